//! The streams of an engine-notes record: the kind of each and the
//! template bytes that choose it, and a game's values while they are
//! collected.

use super::limits::MAX_STREAMS;
use super::moves::MovesFrom;
use crate::item::put_varint;

pub(super) const TAG_LITERAL: u8 = 0;
pub(super) const TAG_NUMBER: u8 = 1;
pub(super) const TAG_MOVES: u8 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StreamKind {
    Numbers,
    Moves,
}

/// The last 8 bytes of a template before a value, a value counting as
/// one byte 0xff: `, tl=` before the clock of `tl=01:26:30`, `kN/s, n=`
/// before the nodes after `s=13681 kN/s`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct KeyWindow {
    buf: [u8; 8],
    len: u8,
}

impl KeyWindow {
    pub(super) fn push(&mut self, b: &[u8]) {
        for &x in b.iter().skip(b.len().saturating_sub(8)) {
            if usize::from(self.len) < self.buf.len() {
                self.buf[usize::from(self.len)] = x;
                self.len += 1;
            } else {
                self.buf.copy_within(1.., 0);
                self.buf[7] = x;
            }
        }
    }
}

/// The writer's choice of streams: one per kind and the 8 template bytes
/// before the value ([`KeyWindow`]), so that a key's values (`mt=`) share
/// a stream whichever template they are in.
#[derive(Debug, Clone, Default)]
pub(super) struct StreamKeys {
    pub(super) keys: Vec<(StreamKind, KeyWindow)>,
}

impl StreamKeys {
    pub(super) fn of(&mut self, kind: StreamKind, window: &KeyWindow) -> u8 {
        let k = (kind, *window);
        if let Some(i) = self.keys.iter().position(|x| *x == k) {
            return i as u8;
        }
        if self.keys.len() >= MAX_STREAMS {
            // Shared: values still go in order.
            return self.keys.iter().position(|x| x.0 == kind).unwrap_or(0) as u8;
        }
        self.keys.push(k);
        (self.keys.len() - 1) as u8
    }
}

/// A stream's values while a game's notes are collected.
#[derive(Debug, Clone)]
pub(super) enum Stream {
    Numbers(Vec<i64>),
    /// Move lists.
    Moves(MoveStream),
}

/// A move stream while a game's notes are collected: the encoded lists,
/// and every list's ordinals whole, for the next lists to share.
#[derive(Debug, Clone, Default)]
pub(super) struct MoveStream {
    pub(super) out: Vec<u8>,
    /// Per list: whether it is ordinals, and its range in `full`.
    pub(super) lists: Vec<(bool, u32, u32)>,
    full: Vec<u8>,
}

impl MoveStream {
    /// Appends a list of ordinals starting from `from`, sharing the
    /// longest prefix it can with the list one back (from its second move)
    /// or two back (from its third).
    pub(super) fn push_ordinals(&mut self, from: MovesFrom, o: &[u8]) {
        // An empty list renders alike from any start: it is written from
        // before the last move, so that the headers 0 and 2 stand for an
        // implied move.
        let from = if o.is_empty() {
            MovesFrom::Before
        } else {
            from
        };
        let mut best = (0usize, 0u64);
        // A list of one move shares nothing: the field would cost its byte.
        for back in (1..=2usize).filter(|_| o.len() >= 2) {
            let Some(&(true, a, b)) = self.lists.len().checked_sub(back).map(|i| &self.lists[i])
            else {
                continue;
            };
            let prev = self
                .full
                .get(a as usize + back..b as usize)
                .unwrap_or_default();
            let shared = prev.iter().zip(o).take_while(|(x, y)| x == y).count();
            if shared > best.0 {
                best = (shared, back as u64);
            }
        }
        put_varint(&mut self.out, (o.len() as u64) << 2 | from as u64);
        if o.len() >= 2 {
            put_varint(&mut self.out, (best.0 as u64) << 2 | best.1);
        }
        self.out.extend_from_slice(&o[best.0..]);
        let a = self.full.len() as u32;
        self.full.extend_from_slice(o);
        self.lists.push((true, a, self.full.len() as u32));
    }

    /// Appends a list of one move, `ordinal`, from `from` (after the last
    /// move, or before the one before it) that the PV implies: its header
    /// alone.
    pub(super) fn push_implied(&mut self, from: MovesFrom, ordinal: u8) {
        debug_assert!(from != MovesFrom::Before);
        put_varint(&mut self.out, from as u64);
        let a = self.full.len() as u32;
        self.full.push(ordinal);
        self.lists.push((true, a, self.full.len() as u32));
    }

    /// Appends a list kept as text.
    pub(super) fn push_text(&mut self, t: &[u8]) {
        put_varint(&mut self.out, (t.len() as u64) << 2 | 3);
        self.out.extend_from_slice(t);
        self.lists.push((false, 0, 0));
    }
}
