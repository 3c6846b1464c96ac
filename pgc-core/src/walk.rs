//! Walking games: records → moves, with a push visitor.
//!
//! [`GameWalker`] reads records, keeps the position (and a stack of positions
//! for RAVs, bounded by [`crate::Limits::max_rav_depth`]), decodes each ordinal to a
//! shakmaty [`Move`] and calls the visitor. No string is built per move: the
//! SAN text handed out is a stack [`MoveText`] taken from the ordinal table.

use crate::ext::{ExtError, ExtKind, PayloadError};
use crate::game::{Event, GameError, GameParser};
pub use crate::game::{GameInfo, STR_TAGS};
use crate::opening::{NO_NODE, OpeningCache};
use crate::ordinal::memo::{CensusMemo, check_suffix_memo, select_move_counted_memo};
use crate::ordinal::{MoveText, OrdinalError};
use crate::record::{Marker, RecordRef};
use crate::setup::{SetupError, variant_start_position};
use crate::stream::{ReadError, Reader};
use crate::variant::{Variant, VariantPosition, variant_of_tag};
use shakmaty::{Chess, Move, Position};
use std::io::Read;
use std::ops::ControlFlow;

/// One played move, as handed to [`GameVisitor::play`].
///
/// Positions are shakmaty's [`VariantPosition`]: [`VariantPosition::Chess`]
/// for standard chess and Chess960, another arm for a game whose `Variant`
/// tag names another variant ([`crate::variant`]).
#[derive(Debug, Clone, Copy)]
pub struct Ply<'a> {
    /// The position before the move; `None` when the visitor said it does
    /// not need it ([`GameVisitor::wants_before`]), which spares the walker
    /// a copy of the position per move.
    pub before: Option<&'a VariantPosition>,
    /// The position after the move.
    pub after: &'a VariantPosition,
    /// The move.
    pub mv: Move,
    /// Its ordinal: a move-run byte, or 256 and more for the move of a
    /// wide-move record (kind 0x13, a variant position with more than 256
    /// legal moves).
    pub ordinal: u16,
    /// Its SAN with `+`/`#` (empty unless [`GameVisitor::wants_san`]).
    pub san: MoveText,
    /// Ply number within the game's main line or variation (1-based from the
    /// start position's move number: `before.fullmoves()` gives the number).
    pub depth: u32,
    /// The number of legal moves in the position before the move, when the
    /// visitor asked for it ([`GameVisitor::wants_legal`]): counted by the
    /// census that decoded the move, at little cost.
    pub legal: Option<u16>,
}

/// Returned by [`GameVisitor::begin_variation`]: `Skip(true)` skips the
/// variation without decoding its moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[must_use]
pub struct Skip(pub bool);

/// Receives the events of a game. Every method has a default that does
/// nothing and goes on.
///
/// The callbacks of a game return [`ControlFlow`]: `Break(())` stops the
/// game there. The walker then reads on to the game's end without decoding
/// its moves or calling the visitor again (not even [`Self::end_game`]),
/// still checking that the records frame and follow the grammar, and
/// [`GameWalker::walk_game`] returns `Ok(true)`.
pub trait GameVisitor {
    /// A game begins.
    fn begin_game(&mut self, _info: &GameInfo) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// A tag pair (for 0x01 games, the seven STR tags in order).
    fn tag(&mut self, _name: &[u8], _value: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// The tags are done; movetext follows from `start`.
    fn begin_moves(&mut self, _start: &VariantPosition) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// Whether [`Ply::san`] should be filled in.
    fn wants_san(&self) -> bool {
        true
    }
    /// Whether [`Ply::before`] should be filled in.
    fn wants_before(&self) -> bool {
        true
    }
    /// Whether [`Ply::legal`] should be filled in. The walker then decodes
    /// every move with the census (no opening cache) and counts the classes
    /// after the move's too.
    fn wants_legal(&self) -> bool {
        false
    }
    /// Whether the walker decodes the moves (the default). Without, it
    /// decodes no ordinal and enters no variation: the main line's moves
    /// and null moves come only as counted ([`Self::unplayed`]), and the
    /// other records of the game as usual.
    fn wants_moves(&self) -> bool {
        true
    }
    /// `plies` moves or null moves of the main line, counted but not
    /// decoded (only when [`Self::wants_moves`] is false).
    fn unplayed(&mut self, _plies: u32) {}
    /// A move was played.
    fn play(&mut self, _ply: &Ply<'_>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// A null move was played (extension record); `spelling` is its payload.
    fn null_move(&mut self, _before: &VariantPosition, _spelling: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// A simple NAG (0x07).
    fn nag(&mut self, _nag: u8) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// A variation begins: `Continue(Skip(false))` enters it,
    /// `Continue(Skip(true))` skips it.
    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        ControlFlow::Continue(Skip(false))
    }
    /// A variation ends (only for entered ones).
    fn end_variation(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// An escape string (0x0a) inside the game.
    fn escape(&mut self, _text: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// An extension record inside the game, other than a null move. Its
    /// payload is not checked here: [`crate::ext::check`] checks it, and
    /// each kind's codec in [`crate::ext`] decodes it.
    fn extension(&mut self, _kind: ExtKind, _payload: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// The game ends.
    fn end_game(&mut self) {}
    /// A record outside any game (escape strings, file-level extensions, noops).
    fn outside(&mut self, _offset: u64, _record: &RecordRef<'_>) {}
    /// Every record the walker reads, with its byte offset, before the
    /// walker acts on it (so a move record comes before its [`Self::play`]
    /// calls). For tools that show the records themselves, like `pgc dump`.
    fn record(&mut self, _offset: u64, _record: &RecordRef<'_>) {}
}

/// What went wrong while walking a game.
#[derive(Debug, thiserror::Error)]
pub enum WalkErrorKind {
    /// Framing failed.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// An ordinal could not be decoded.
    #[error(transparent)]
    Ordinal(#[from] OrdinalError),
    /// The FEN or Variant tag gives no position.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The records are not in a valid order (the game grammar, [`crate::game`]).
    #[error(transparent)]
    Structure(#[from] GameError),
    /// A null move while the side to move is in check.
    #[error("null move while in check")]
    NullMoveInCheck,
    /// An extension record's payload that its kind's codec refuses.
    #[error("kind {kind}, {error}")]
    Payload {
        /// The record's kind.
        kind: ExtKind,
        /// What the codec found wrong, positioned within the payload.
        error: PayloadError,
    },
}

/// A positioned walking error.
#[derive(Debug, thiserror::Error)]
#[error("byte {offset}, game {}, ply {ply}, {marker}: {kind}", game + 1, marker = marker.map_or("-".to_string(), |m| m.to_string()))]
pub struct WalkError {
    /// Byte offset of the record; for a bad ordinal, of the ordinal byte.
    pub offset: u64,
    /// 0-based game number.
    pub game: u64,
    /// Plies played in the current line when the error occurred; for a bad
    /// ordinal, the 1-based ply of that move (as [`crate::verify()`] reports).
    pub ply: u32,
    /// The record's marker, when known.
    pub marker: Option<Marker>,
    /// What went wrong.
    pub kind: WalkErrorKind,
}

/// A framing error in game `game`, placed as the verifier places it: at the
/// ply of the line the record cuts into, with its marker when known.
fn read_error(parser: &GameParser, game: u64, e: ReadError) -> WalkError {
    let (offset, marker) = (e.offset(), e.marker());
    let ply = parser.ply().unwrap_or(0);
    errors_of(game)(offset, ply, marker, e.into())
}

/// Builds the errors of game `game` from (offset, ply, marker, kind).
fn errors_of(game: u64) -> impl Fn(u64, u32, Option<Marker>, WalkErrorKind) -> WalkError {
    move |offset, ply, marker, kind| WalkError {
        offset,
        game,
        ply,
        marker,
        kind,
    }
}

/// A refused extension payload as a walking error, at its record.
impl From<ExtError> for WalkError {
    fn from(e: ExtError) -> WalkError {
        WalkError {
            offset: e.offset,
            game: e.game,
            ply: e.ply,
            marker: Some(Marker::Extension),
            kind: WalkErrorKind::Payload {
                kind: e.kind,
                error: e.error,
            },
        }
    }
}

struct Frame {
    pos: VariantPosition,
    prev: Option<VariantPosition>,
    ply: u32,
    /// The position's node in the opening cache, or `NO_NODE`.
    node: u32,
}

/// Walks the games of a PGC stream.
pub struct GameWalker<R> {
    reader: Reader<R>,
    parser: GameParser,
    opening: OpeningCache,
    /// The lines around the open RAVs (reused from game to game).
    stack: Vec<Frame>,
}

impl<R: Read> GameWalker<R> {
    /// A walker with default limits.
    pub fn new(inner: R) -> GameWalker<R> {
        GameWalker::from_reader(Reader::new(inner))
    }

    /// A walker over a configured record reader.
    pub fn from_reader(reader: Reader<R>) -> GameWalker<R> {
        GameWalker {
            parser: GameParser::new(*reader.limits()),
            reader,
            opening: OpeningCache::new(),
            stack: Vec::new(),
        }
    }

    /// For input that starts mid-file at a game boundary (a batch, or after
    /// a seek): `games` games came before it, so game numbers, in
    /// [`GameInfo`] and in errors, are those of the whole file (give the
    /// reader the file offset with [`Reader::starting_at`]).
    pub fn starting_at(mut self, games: u64) -> GameWalker<R> {
        self.parser = self.parser.starting_at(games);
        self
    }

    /// For a walker over input that starts mid-file: [`starting_at`]
    /// (`games` before it), with record offsets counted from `offset`, the
    /// file offset of its first byte, as [`Reader::starting_at`] gives
    /// them. Call it before anything is read.
    ///
    /// [`starting_at`]: GameWalker::starting_at
    pub(crate) fn starting_at_offset(mut self, offset: u64, games: u64) -> GameWalker<R> {
        self.reader = self.reader.starting_at(offset);
        self.starting_at(games)
    }

    /// Games walked so far.
    pub fn games(&self) -> u64 {
        self.parser.games()
    }

    /// Bytes read so far.
    pub fn offset(&self) -> u64 {
        self.reader.offset()
    }

    /// The opening moves remembered so far (`OpeningCache`), for a
    /// walker over the next batch of the same file to start from.
    #[doc(hidden)]
    pub fn opening_cache_mut(&mut self) -> &mut OpeningCache {
        &mut self.opening
    }

    /// Walks the next game. Records before it that belong to no game go to
    /// [`GameVisitor::outside`]. Returns `false` at the end of input.
    ///
    /// # Errors
    /// A [`WalkError`] with offset, game, ply and marker: a record that
    /// does not frame, a rule of the game grammar broken ([`crate::game`]),
    /// a bad FEN tag or ordinal.
    pub fn walk_game<V: GameVisitor>(&mut self, v: &mut V) -> Result<bool, WalkError> {
        let game = self.parser.games();
        let err = errors_of(game);
        self.stack.clear();
        let mut cur: Option<Frame> = None;
        // With moves not decoded: the variation depth.
        let mut unplayed: Option<u32> = None;
        loop {
            let next = self.reader.next_record();
            // The record is read where the reader put it, not moved.
            let (offset, rec) = match &next {
                Ok(Some((o, r))) => (*o, r),
                _ => {
                    if let Err(e) = next {
                        return Err(read_error(&self.parser, game, e));
                    }
                    return match self.parser.finish(self.reader.offset()) {
                        Some(e) => Err(grammar(e, game)),
                        None => Ok(false),
                    };
                }
            };
            v.record(offset, rec);
            let mut at = At {
                v: &mut *v,
                cur: &mut cur,
                unplayed: &mut unplayed,
                parser: &mut self.parser,
                opening: &mut self.opening,
                stack: &mut self.stack,
                game,
                offset,
                rec,
            };
            // The common records (no error, no movetext beginning) have a
            // path of their own, on which the event is known.
            if let Some(event) = at.parser.feed_common(offset, *rec) {
                match at.event(event)? {
                    Flow::Go => continue,
                    Flow::Done => return Ok(true),
                    Flow::Break => return self.skip_rest(game),
                }
            }
            let step = at.parser.feed_other(offset, *rec);
            if let Some(e) = step.error {
                return Err(grammar(e, game));
            }
            if step.movetext_begins {
                let fen = at.parser.fen();
                let variant = match at.parser.variant() {
                    None => Ok(Variant::Chess),
                    Some(v) => variant_of_tag(v).map_err(SetupError::from),
                };
                let start = variant
                    .and_then(|v| variant_start_position(v, fen.map(|f| f.0)))
                    .map_err(|e| err(offset, 0, Some(rec.marker()), e.into()))?;
                let standard = matches!(start, VariantPosition::Chess(_));
                let flow = at.v.begin_moves(&start);
                if at.v.wants_moves() {
                    *at.cur = Some(Frame {
                        pos: start,
                        prev: None,
                        ply: 0,
                        // The opening cache holds paths from the initial
                        // position of standard chess.
                        node: if fen.is_none() && standard {
                            0
                        } else {
                            NO_NODE
                        },
                    });
                } else {
                    // No frame: the moves are counted, not decoded.
                    *at.unplayed = Some(0);
                }
                if flow.is_break() {
                    return self.skip_rest(game);
                }
            }
            match at.event(step.event)? {
                Flow::Go => {}
                Flow::Done => return Ok(true),
                Flow::Break => return self.skip_rest(game),
            }
        }
    }

    /// After a visitor's `Break`: reads on to the end of game `game`,
    /// checking framing and grammar but decoding no move.
    fn skip_rest(&mut self, game: u64) -> Result<bool, WalkError> {
        if self.parser.game().is_none() {
            // The game ended with the record whose callback broke (0x01).
            return Ok(true);
        }
        loop {
            let (offset, rec) = match self.reader.next_record() {
                Ok(Some(r)) => r,
                Ok(None) => {
                    return match self.parser.finish(self.reader.offset()) {
                        Some(e) => Err(grammar(e, game)),
                        None => Ok(true),
                    };
                }
                Err(e) => return Err(read_error(&self.parser, game, e)),
            };
            let event = match self.parser.feed_common(offset, rec) {
                Some(event) => event,
                None => {
                    let step = self.parser.feed_other(offset, rec);
                    if let Some(e) = step.error {
                        return Err(grammar(e, game));
                    }
                    step.event
                }
            };
            if matches!(event, Event::End) {
                return Ok(true);
            }
        }
    }
}

/// What the walker does after one record's event.
enum Flow {
    /// Read the next record.
    Go,
    /// The game ended.
    Done,
    /// The visitor stopped the game.
    Break,
}

/// `Flow::Break` when the visitor broke.
#[inline(always)]
fn flow(c: ControlFlow<()>) -> Flow {
    match c {
        ControlFlow::Continue(()) => Flow::Go,
        ControlFlow::Break(()) => Flow::Break,
    }
}

/// What the walker acts on for one record: the visitor, its state, and the
/// record.
struct At<'w, 'r, V> {
    v: &'w mut V,
    cur: &'w mut Option<Frame>,
    /// Moves are counted, not decoded: the variation depth.
    unplayed: &'w mut Option<u32>,
    parser: &'w mut GameParser,
    opening: &'w mut OpeningCache,
    stack: &'w mut Vec<Frame>,
    game: u64,
    offset: u64,
    rec: &'w RecordRef<'r>,
}

impl<V: GameVisitor> At<'_, '_, V> {
    /// Acts on the record's event.
    #[inline(always)]
    fn event(&mut self, event: Event<'_>) -> Result<Flow, WalkError> {
        let (v, offset, game) = (&mut *self.v, self.offset, self.game);
        let marker = self.rec.marker();
        let err = errors_of(game);
        Ok(match event {
            Event::Moves { ordinals, first } => {
                let Some(frame) = self.cur.as_mut() else {
                    if *self.unplayed == Some(0) {
                        v.unplayed(u32::try_from(ordinals.len()).unwrap_or(u32::MAX));
                    }
                    return Ok(Flow::Go);
                };
                flow(
                    play_run(v, frame, ordinals, self.opening)
                        .map_err(|(ply, i, e)| err(first + i, ply, Some(marker), e.into()))?,
                )
            }
            Event::Reduced {
                info,
                roster,
                moves,
                first,
            } => {
                let mut go = v.begin_game(&info);
                for (name, value) in STR_TAGS.iter().zip(roster) {
                    if go.is_break() {
                        break;
                    }
                    go = v.tag(name, value);
                }
                let start = VariantPosition::Chess(Chess::default());
                if go.is_continue() {
                    go = v.begin_moves(&start);
                }
                if go.is_continue() && !v.wants_moves() {
                    v.unplayed(u32::try_from(moves.len()).unwrap_or(u32::MAX));
                } else if go.is_continue() {
                    let mut frame = Frame {
                        pos: start,
                        prev: None,
                        ply: 0,
                        node: 0,
                    };
                    go = play_run(v, &mut frame, moves, self.opening)
                        .map_err(|(ply, i, e)| err(first + i, ply, Some(marker), e.into()))?;
                }
                if go.is_break() {
                    return Ok(Flow::Break);
                }
                v.end_game();
                Flow::Done
            }
            Event::Begin(info) => flow(v.begin_game(&info)),
            Event::Tag { name, value } => flow(v.tag(name, value)),
            Event::Nag(n) => flow(v.nag(n)),
            Event::Escape(t) => flow(v.escape(t)),
            Event::Extension { kind, payload } => flow(v.extension(ExtKind(kind), payload)),
            Event::NullMove(payload) => {
                let Some(frame) = self.cur.as_mut() else {
                    if *self.unplayed == Some(0) {
                        v.unplayed(u32::try_from(1).unwrap_or(u32::MAX));
                    }
                    return Ok(Flow::Go);
                };
                let go = v.null_move(&frame.pos, payload);
                let after = crate::setup::variant_null_move(&frame.pos).ok_or_else(|| {
                    err(
                        offset,
                        frame.ply,
                        Some(marker),
                        WalkErrorKind::NullMoveInCheck,
                    )
                })?;
                frame.prev = Some(std::mem::replace(&mut frame.pos, after));
                frame.ply += 1;
                frame.node = NO_NODE;
                flow(go)
            }
            Event::WideMove(payload) => {
                let Some(frame) = self.cur.as_mut() else {
                    if *self.unplayed == Some(0) {
                        v.unplayed(u32::try_from(1).unwrap_or(u32::MAX));
                    }
                    return Ok(Flow::Go);
                };
                let ordinal = crate::ext::simple::wide_move(payload).map_err(|error| {
                    let kind = WalkErrorKind::Payload {
                        kind: ExtKind::WIDE_MOVE,
                        error,
                    };
                    err(offset, frame.ply, Some(marker), kind)
                })?;
                let (m, san) = crate::ordinal::variant::select_in(&frame.pos, ordinal)
                    .map_err(|e| err(offset, frame.ply + 1, Some(marker), e.into()))?;
                frame.node = NO_NODE;
                let (want_san, want_before) = (v.wants_san(), v.wants_before());
                let legal = v.wants_legal().then(|| legal_count(&frame.pos));
                flow(play_one(
                    v,
                    &mut frame.pos,
                    &mut frame.prev,
                    &mut frame.ply,
                    m,
                    ordinal,
                    want_san.then_some(san),
                    want_before,
                    true,
                    legal,
                ))
            }
            Event::RavBegin => {
                let Some(frame) = self.cur.as_mut() else {
                    if let Some(depth) = self.unplayed.as_mut() {
                        *depth += 1;
                    }
                    return Ok(Flow::Go);
                };
                match v.begin_variation() {
                    ControlFlow::Break(()) => return Ok(Flow::Break),
                    ControlFlow::Continue(Skip(true)) => {
                        self.parser.skip_rav();
                        return Ok(Flow::Go);
                    }
                    ControlFlow::Continue(Skip(false)) => {}
                }
                // The grammar saw a move before the RAV: `prev` is set.
                let Some(prev) = frame.prev.clone() else {
                    return Ok(Flow::Go);
                };
                let ply = frame.ply.saturating_sub(1);
                let saved = std::mem::replace(
                    frame,
                    Frame {
                        pos: prev,
                        prev: None,
                        ply,
                        node: NO_NODE,
                    },
                );
                self.stack.push(saved);
                Flow::Go
            }
            Event::RavEnd => {
                if let Some(depth) = self.unplayed.as_mut() {
                    *depth = depth.saturating_sub(1);
                }
                if let (Some(frame), Some(saved)) = (self.cur.as_mut(), self.stack.pop()) {
                    *frame = saved;
                    flow(v.end_variation())
                } else {
                    Flow::Go
                }
            }
            Event::End => {
                v.end_game();
                Flow::Done
            }
            Event::Outside => {
                v.outside(offset, self.rec);
                Flow::Go
            }
            Event::Noop | Event::Skipped | Event::Dropped => Flow::Go,
        })
    }
}

/// A grammar error as a walking error (plies count from 0 there).
fn grammar(e: GameError, next_game: u64) -> WalkError {
    WalkError {
        offset: e.offset,
        game: e.game.unwrap_or(next_game),
        ply: e.ply.unwrap_or(0),
        marker: e.marker,
        kind: WalkErrorKind::Structure(e),
    }
}

fn play_run<V: GameVisitor>(
    v: &mut V,
    frame: &mut Frame,
    ordinals: &[u8],
    opening: &mut OpeningCache,
) -> Result<ControlFlow<()>, (u32, u64, OrdinalError)> {
    let want_san = v.wants_san();
    let want_before = v.wants_before();
    let want_legal = v.wants_legal();
    let Frame {
        pos,
        prev,
        ply,
        node,
    } = frame;
    let last = ordinals.len().saturating_sub(1);
    // The checkers and pins of the position after a move, found for its
    // check suffix, then used to decode the next move.
    let mut memo = CensusMemo::new();
    for (i, &ord) in ordinals.iter().enumerate() {
        // Standard chess (and Chess960): the census and the opening cache.
        // The other variants have their own loop, out of this hot one.
        let VariantPosition::Chess(c) = &*pos else {
            return play_run_variant(v, pos, prev, ply, &ordinals[i..], i as u64);
        };
        // A bad ordinal is reported at its own byte (index `i` in the run)
        // with the 1-based ply it would have been, as the verifier does.
        let (m, san_of, legal) = if want_legal {
            // The census that decodes the move counts the position's
            // legal moves too; the cache would skip it.
            *node = NO_NODE;
            let (m, san_of, n) =
                select_move_counted_memo(c, &mut memo, ord).map_err(|e| (*ply + 1, i as u64, e))?;
            (m, san_of, Some(u16::try_from(n).unwrap_or(u16::MAX)))
        } else {
            let (m, san_of) = opening
                .select(node, *ply, c, &mut memo, ord)
                .map_err(|e| (*ply + 1, i as u64, e))?;
            (m, san_of, None)
        };
        // The position before the move becomes `prev` (a RAV, which can
        // only follow the run, starts from it), and `pos` plays the move in
        // place: one copy per move when the visitor wants the position
        // before, else one for the run's last move.
        let before = if want_before || i == last {
            want_before.then_some(keep_before(prev, pos))
        } else {
            None
        };
        let mut san = MoveText::new();
        if let VariantPosition::Chess(c) = &mut *pos {
            c.play_unchecked(m);
            memo.clear();
            if want_san {
                san = san_of.text(m);
                for &b in check_suffix_memo(c, &mut memo) {
                    san.push(b);
                }
            }
        }
        *ply += 1;
        let go = v.play(&Ply {
            before,
            after: pos,
            mv: m,
            ordinal: u16::from(ord),
            san,
            depth: *ply,
            legal,
        });
        if go.is_break() {
            return Ok(go);
        }
    }
    Ok(ControlFlow::Continue(()))
}

/// The number of legal moves of `pos` (by the census in standard chess).
#[inline(never)]
fn legal_count(pos: &VariantPosition) -> u16 {
    let n = match pos {
        VariantPosition::Chess(c) => crate::ordinal::legal_count(c),
        other => other.legal_moves().len(),
    };
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// [`play_run`] in a variant other than standard chess: each ordinal
/// through the variant's move list. `at` is the index of `ordinals[0]` in
/// its run (errors are positioned in the run).
#[inline(never)]
fn play_run_variant<V: GameVisitor>(
    v: &mut V,
    pos: &mut VariantPosition,
    prev: &mut Option<VariantPosition>,
    ply: &mut u32,
    ordinals: &[u8],
    at: u64,
) -> Result<ControlFlow<()>, (u32, u64, OrdinalError)> {
    let (want_san, want_before) = (v.wants_san(), v.wants_before());
    let want_legal = v.wants_legal();
    let last = ordinals.len().saturating_sub(1);
    for (i, &ord) in ordinals.iter().enumerate() {
        let (m, san) = crate::ordinal::variant::select_in(pos, u16::from(ord))
            .map_err(|e| (*ply + 1, at + i as u64, e))?;
        let legal = want_legal.then(|| legal_count(pos));
        let go = play_one(
            v,
            pos,
            prev,
            ply,
            m,
            u16::from(ord),
            want_san.then_some(san),
            want_before,
            i == last,
            legal,
        );
        if go.is_break() {
            return Ok(go);
        }
    }
    Ok(ControlFlow::Continue(()))
}

/// Keeps the position before a move in `prev` (copied in place once
/// `prev` holds one: no allocation per move) and returns it.
#[inline]
fn keep_before<'a>(
    prev: &'a mut Option<VariantPosition>,
    pos: &VariantPosition,
) -> &'a VariantPosition {
    match prev {
        Some(p) => {
            crate::variant::copy_position(p, pos);
            p
        }
        None => prev.insert(pos.clone()),
    }
}

/// Plays `m` in `pos` (a variant other than standard chess, or a wide
/// move) and calls the visitor; `san` is the move's SAN body and `legal`
/// the legal moves before it when the visitor wants them.
#[allow(clippy::too_many_arguments)]
fn play_one<V: GameVisitor>(
    v: &mut V,
    pos: &mut VariantPosition,
    prev: &mut Option<VariantPosition>,
    ply: &mut u32,
    m: Move,
    ordinal: u16,
    san: Option<MoveText>,
    want_before: bool,
    keep_prev: bool,
    legal: Option<u16>,
) -> ControlFlow<()> {
    let before = if want_before || keep_prev {
        want_before.then_some(keep_before(prev, pos))
    } else {
        None
    };
    crate::variant::play_unchecked(pos, m);
    let mut text = MoveText::new();
    if let Some(san) = san {
        text = san;
        for &b in crate::variant::check_suffix(pos) {
            text.push(b);
        }
    }
    *ply += 1;
    v.play(&Ply {
        before,
        after: pos,
        mv: m,
        ordinal,
        san: text,
        depth: *ply,
        legal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Log(Vec<String>, bool);
    impl GameVisitor for Log {
        fn wants_before(&self) -> bool {
            !self.1
        }
        fn tag(&mut self, n: &[u8], v: &[u8]) -> ControlFlow<()> {
            self.0.push(format!(
                "{}={}",
                String::from_utf8_lossy(n),
                String::from_utf8_lossy(v)
            ));
            ControlFlow::Continue(())
        }
        fn play(&mut self, p: &Ply<'_>) -> ControlFlow<()> {
            assert_eq!(p.before.is_none(), self.1, "before given when wanted");
            self.0.push(p.san.to_string());
            ControlFlow::Continue(())
        }
        fn nag(&mut self, n: u8) -> ControlFlow<()> {
            self.0.push(format!("${n}"));
            ControlFlow::Continue(())
        }
        fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
            self.0.push("(".into());
            ControlFlow::Continue(Skip(false))
        }
        fn end_variation(&mut self) -> ControlFlow<()> {
            self.0.push(")".into());
            ControlFlow::Continue(())
        }
    }

    /// Checks each ply's legal count against the position before it.
    struct Counted(usize);
    impl GameVisitor for Counted {
        fn wants_legal(&self) -> bool {
            true
        }
        fn play(&mut self, p: &Ply<'_>) -> ControlFlow<()> {
            let before = p.before.expect("before");
            assert_eq!(p.legal.map(usize::from), Some(before.legal_moves().len()));
            self.0 += 1;
            ControlFlow::Continue(())
        }
    }

    #[test]
    fn plies_carry_the_legal_count_when_asked() {
        // 1. e4 (1. d4 d5) 1... e5 2. Qh5 $1, twice: the second game's
        // first plies are in the opening cache, which the count bypasses.
        let game = [
            0x05, 0x02, 1, b'A', 1, b'B', 0x03, 1, 13, 0x08, 0x03, 2, 11, 10, 0x09, 0x03, 2, 12,
            14, 0x07, 1, 0x06,
        ];
        let bytes = game.repeat(2);
        let mut w = GameWalker::new(&bytes[..]);
        let mut v = Counted(0);
        while w.walk_game(&mut v).unwrap() {}
        assert_eq!(v.0, 10);
        // Not asked: no count.
        let mut w = GameWalker::new(&bytes[..]);
        struct Plain;
        impl GameVisitor for Plain {
            fn play(&mut self, p: &Ply<'_>) -> ControlFlow<()> {
                assert_eq!(p.legal, None);
                ControlFlow::Continue(())
            }
        }
        while w.walk_game(&mut Plain).unwrap() {}
    }

    #[test]
    fn a_record_cut_off_is_placed_as_the_verifier_places_it() {
        // 1. e4 (1. d4 d5) 1... e5 2. Qh5 $1, cut inside the NAG record:
        // the main line has played three plies, the record is a 0x07.
        let bytes = [
            0x05, 0x02, 1, b'A', 1, b'B', 0x03, 1, 13, 0x08, 0x03, 2, 11, 10, 0x09, 0x03, 2, 12,
            14, 0x07,
        ];
        let e = GameWalker::new(&bytes[..])
            .walk_game(&mut Log::default())
            .unwrap_err();
        assert_eq!((e.offset, e.game, e.ply), (19, 0, 3));
        assert_eq!(e.marker, Some(Marker::Nag));
        let report = crate::verify(&bytes[..], crate::Limits::default()).unwrap();
        let p = &report.problems[0];
        assert_eq!(
            (p.offset, p.game, p.ply, p.marker),
            (e.offset, Some(e.game), Some(e.ply), e.marker)
        );
    }

    #[test]
    fn walks_a_general_game_with_a_variation() {
        // 1. e4 (1. d4 d5) 1... e5 2. Qh5 $1: ordinals from the table of section 20.2
        // (e4 = 13, d4 = 11) and hand-sorted SAN lists (d5 = 10, e5 = 12, Qh5 = 14).
        let bytes = [
            0x05, 0x02, 1, b'A', 1, b'B', 0x03, 1, 13, 0x08, 0x03, 2, 11, 10, 0x09, 0x03, 2, 12,
            14, 0x07, 1, 0x06,
        ];
        let mut w = GameWalker::new(&bytes[..]);
        let mut log = Log::default();
        assert!(w.walk_game(&mut log).unwrap());
        assert!(!w.walk_game(&mut log).unwrap());
        assert_eq!(log.0.join(" "), "A=B e4 ( d4 d5 ) e5 Qh5 $1");
    }

    #[test]
    fn a_variation_after_a_run_starts_before_its_last_move_with_or_without_before() {
        // 1. e4 e5 (1... c5) 2. Nf3, ordinals from `encode` (shakmaty's
        // moves): the variation follows a run of two moves, so it starts
        // from the position after e4 whether or not the visitor asked for
        // the position before each move.
        let san = |p: &Chess, s: &str| s.parse::<shakmaty::san::San>().unwrap().to_move(p).unwrap();
        let start = Chess::default();
        let e4 = san(&start, "e4");
        let after_e4 = start.clone().play(e4).unwrap();
        let (e5, c5) = (san(&after_e4, "e5"), san(&after_e4, "c5"));
        let after_e5 = after_e4.clone().play(e5).unwrap();
        let nf3 = san(&after_e5, "Nf3");
        let o = |p: &Chess, m| crate::ordinal::encode(p, m).unwrap();
        let bytes = [
            0x05,
            0x03,
            2,
            o(&start, e4),
            o(&after_e4, e5),
            0x08,
            0x03,
            1,
            o(&after_e4, c5),
            0x09,
            0x03,
            1,
            o(&after_e5, nf3),
            0x06,
        ];
        for skip_before in [false, true] {
            let mut w = GameWalker::new(&bytes[..]);
            let mut log = Log(Vec::new(), skip_before);
            assert!(w.walk_game(&mut log).unwrap());
            assert_eq!(log.0.join(" "), "e4 e5 ( c5 ) Nf3", "skip {skip_before}");
        }
    }

    #[test]
    fn a_repeated_opening_comes_from_the_cache_unchanged() {
        // The same three games twice: 1. e4 e5 2. Qh5 (ordinals 13 12 14),
        // 1. e4 d5 (13 10), and 1. d4 d5 from a FEN start (no caching).
        let fen = b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let mut game3 = vec![0x05, 0x02, 3, b'F', b'E', b'N', fen.len() as u8];
        game3.extend_from_slice(fen);
        game3.extend_from_slice(&[0x03, 2, 11, 10, 0x06]);
        let mut bytes = Vec::new();
        for _ in 0..2 {
            bytes.extend_from_slice(&[0x05, 0x03, 3, 13, 12, 14, 0x06]);
            bytes.extend_from_slice(&[0x05, 0x03, 2, 13, 10, 0x06]);
            bytes.extend_from_slice(&game3);
        }
        let mut w = GameWalker::new(&bytes[..]);
        let mut log = Log::default();
        while w.walk_game(&mut log).unwrap() {}
        let plies: Vec<&str> = log
            .0
            .iter()
            .map(String::as_str)
            .filter(|s| !s.contains('='))
            .collect();
        let once = ["e4", "e5", "Qh5", "e4", "d5", "d4", "d5"];
        assert_eq!(plies[..7], once);
        assert_eq!(plies[7..], once);
        // Four plies were remembered: e4, then e5 and d5 after it, and Qh5.
        assert_eq!(w.opening_cache_mut().len(), 4);
    }

    #[test]
    fn the_record_hook_sees_every_record_before_its_moves() {
        struct Hook(Vec<String>);
        impl GameVisitor for Hook {
            fn record(&mut self, offset: u64, rec: &RecordRef<'_>) {
                self.0.push(format!("{offset}:{}", rec.marker().name()));
            }
            fn play(&mut self, p: &Ply<'_>) -> ControlFlow<()> {
                self.0.push(p.san.to_string());
                ControlFlow::Continue(())
            }
        }
        // A noop outside the games, a general game and a reduced game.
        let mut bytes = vec![0x00, 0x05, 0x03, 1, 13, 0x06, 0x01];
        bytes.extend([0; 7]);
        bytes.extend([1, 0, 11]);
        let mut w = GameWalker::new(&bytes[..]);
        let mut hook = Hook(Vec::new());
        while w.walk_game(&mut hook).unwrap() {}
        assert_eq!(
            hook.0.join(" "),
            "0:noop 1:game-begin 2:short-moves e4 5:game-end 6:reduced-game d4"
        );
    }

    #[test]
    fn structure_errors_are_positioned() {
        // A RAV before any move.
        let bytes = [0x05, 0x08, 0x09, 0x06];
        let e = GameWalker::new(&bytes[..])
            .walk_game(&mut Log::default())
            .unwrap_err();
        assert_eq!((e.offset, e.marker), (1, Some(Marker::RavBegin)));
        // An out-of-range ordinal at the second ply.
        let bytes = [0x05, 0x03, 2, 13, 20, 0x06];
        let e = GameWalker::new(&bytes[..])
            .walk_game(&mut Log::default())
            .unwrap_err();
        assert_eq!((e.offset, e.ply), (4, 2));
        assert!(matches!(
            e.kind,
            WalkErrorKind::Ordinal(OrdinalError::OutOfRange {
                ordinal: 20,
                legal: 20
            })
        ));
        // 0x01 inside 0x05.
        let mut bytes = vec![0x05, 0x01];
        bytes.extend([0; 7]);
        bytes.extend([0, 0, 0x06]);
        let e = GameWalker::new(&bytes[..])
            .walk_game(&mut Log::default())
            .unwrap_err();
        assert_eq!((e.offset, e.marker), (1, Some(Marker::ReducedGame)));
    }

    #[test]
    fn a_wide_move_needs_a_position_with_its_ordinal() {
        // 1. e4 then a wide move (ordinal 256) where 20 moves are legal,
        // then one whose payload is a byte too short.
        let bytes = [0x05, 0x03, 1, 13, 0x80, 0x13, 2, 1, 0, 0x06];
        let e = GameWalker::new(&bytes[..])
            .walk_game(&mut Log::default())
            .unwrap_err();
        assert_eq!((e.offset, e.ply), (4, 2));
        assert!(matches!(
            e.kind,
            WalkErrorKind::Ordinal(OrdinalError::OutOfRange {
                ordinal: 256,
                legal: 20
            })
        ));
        let bytes = [0x05, 0x03, 1, 13, 0x80, 0x13, 1, 1, 0x06];
        let e = GameWalker::new(&bytes[..])
            .walk_game(&mut Log::default())
            .unwrap_err();
        assert!(matches!(e.kind, WalkErrorKind::Payload { .. }), "{e}");
    }

    #[test]
    fn deep_ravs_hit_the_limit_not_the_stack() {
        let mut bytes = vec![0x05, 0x03, 1, 15];
        for _ in 0..100_000 {
            bytes.extend([0x08, 0x03, 1, 15]);
        }
        let e = GameWalker::new(&bytes[..])
            .walk_game(&mut Log::default())
            .unwrap_err();
        assert!(e.to_string().contains("--max-rav-depth"), "{e}");
    }

    /// Stops at the `n`th event it sees in each game, counting the calls.
    struct StopAt {
        n: usize,
        seen: usize,
        ends: usize,
        sans: Vec<String>,
    }
    impl StopAt {
        fn step(&mut self) -> ControlFlow<()> {
            self.seen += 1;
            if self.seen == self.n {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
    }
    impl GameVisitor for StopAt {
        fn begin_game(&mut self, _: &GameInfo) -> ControlFlow<()> {
            self.seen = 0;
            self.step()
        }
        fn tag(&mut self, _: &[u8], _: &[u8]) -> ControlFlow<()> {
            self.step()
        }
        fn play(&mut self, p: &Ply<'_>) -> ControlFlow<()> {
            self.sans.push(p.san.to_string());
            self.step()
        }
        fn end_game(&mut self) {
            self.ends += 1;
        }
    }

    #[test]
    fn break_skips_the_rest_of_the_game_and_the_next_one_walks() {
        // 1. e4 e5 2. Qh5 (ordinals 13 12 14) with one tag, as a general
        // game, then as a reduced game (seven empty STR values).
        let general = [0x05, 0x02, 1, b'A', 1, b'B', 0x03, 3, 13, 12, 14, 0x06];
        let mut reduced = vec![0x01];
        reduced.extend([0; 7]);
        reduced.extend([3, 0, 13, 12, 14]);
        for (game, events) in [(&general[..], 5), (&reduced[..], 11)] {
            // Events per game: begin, tags, then one per move; stopping at
            // every one of them leaves the second copy of the game whole.
            for n in 1..=events + 1 {
                let bytes = [game, game].concat();
                let mut v = StopAt {
                    n,
                    seen: 0,
                    ends: 0,
                    sans: Vec::new(),
                };
                let mut w = GameWalker::new(&bytes[..]);
                assert!(w.walk_game(&mut v).unwrap());
                let tags = events - 4;
                let played = n.saturating_sub(1 + tags).min(3);
                assert_eq!(v.sans.len(), played, "n {n}");
                assert_eq!(
                    v.ends,
                    usize::from(n > events),
                    "n {n}: end_game after a break"
                );
                assert_eq!(w.games(), 1);
                assert!(w.walk_game(&mut v).unwrap());
                assert_eq!(w.games(), 2);
                assert!(!w.walk_game(&mut v).unwrap());
            }
        }
    }

    #[test]
    fn a_broken_game_still_reports_its_grammar_and_framing_errors() {
        // Break at the first move; the 0x09 without a RAV later in the same
        // game is still an error, and so is a truncated record.
        let bytes = [0x05, 0x03, 1, 13, 0x09, 0x06];
        let mut v = StopAt {
            n: 2,
            seen: 0,
            ends: 0,
            sans: Vec::new(),
        };
        let e = GameWalker::new(&bytes[..]).walk_game(&mut v).unwrap_err();
        assert_eq!((e.offset, e.marker), (4, Some(Marker::RavEnd)));
        let bytes = [0x05, 0x03, 1, 13, 0x03, 5, 13];
        v.n = 2;
        let e = GameWalker::new(&bytes[..]).walk_game(&mut v).unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(matches!(e.kind, WalkErrorKind::Read(_)), "{e}");
    }
}
