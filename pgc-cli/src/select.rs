//! Choosing games: `--where EXPR` ([`pgc_core::filter`]) and `--dedup`.
//!
//! `--where` is decided from the tag section when the expression allows
//! ([`Filter::eval`] without plies): a visitor then stops the game at its
//! movetext (`ControlFlow::Break`), and the walker reads on to the next
//! game without decoding the moves. An expression that reads `Plies`
//! decodes the games its tags leave open and drops them at their end.
//!
//! `--dedup` keeps the first of the games with the same start position and
//! the same main line: each game's [`GameKey`] (a 64-bit hash of the start
//! position's Zobrist hash and the main line's move ordinals, with
//! `--dedup=tags` mixed with a hash of `White`, `Black` and `Date`) is made
//! on the worker threads, and [`Dedup`] decides in input order on the
//! calling thread, so the output is the same for every `-j`. Only the keys
//! are kept: 16 bytes per distinct game (key and game number) in a hash
//! table of at most 2^21 slots of 17 bytes for a million games (34 MiB;
//! 51 MiB while it grows from 2^20 slots), under 64 MiB. Two different
//! games share a 64-bit key with a chance of about n² / 2^65 (3 × 10^-8
//! for a million games).

use crate::error::{Error, Result};
use pgc_core::VariantPosition;
use pgc_core::ext::ExtKind;
use pgc_core::filter::{Filter, Tags};
use pgc_core::record::RecordRef;
use pgc_core::{GameInfo, GameVisitor, Ply, Skip, TagList};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{EnPassantMode, Position};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::ControlFlow;

/// `--dedup`: what makes two games the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DedupMode {
    /// The same start position and main line.
    Moves,
    /// The same start position and main line, White, Black and Date.
    Tags,
}

/// Parses one `--where` expression.
///
/// # Errors
/// The expression's error, with its column.
pub fn parse_where(s: &str) -> std::result::Result<Filter, String> {
    Filter::parse(s).map_err(|e| format!("{e}"))
}

/// What `--where` and `--dedup` ask of a command.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Every `--where`, all of which must hold.
    pub filter: Option<Filter>,
    /// `--dedup`.
    pub dedup: Option<DedupMode>,
}

impl Selection {
    /// The selection of `--where` (several are ANDed) and `--dedup`.
    pub fn new(filters: &[Filter], dedup: Option<DedupMode>) -> Selection {
        Selection {
            filter: Filter::all(filters.iter().cloned()),
            dedup,
        }
    }

    /// Whether games are chosen at all.
    pub fn is_active(&self) -> bool {
        self.filter.is_some() || self.dedup.is_some()
    }
}

/// What identifies a game for `--dedup`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameKey(pub u64);

/// Mixes 64 bits (SplitMix64's finaliser).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Hashes a start position and a main line, move by move.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeyHasher {
    h: u64,
    tags: Option<u64>,
}

/// The value a null move adds to a [`KeyHasher`] (no ordinal is 65,536).
const NULL_MOVE: u64 = 1 << 16;

impl KeyHasher {
    /// Starts from the Zobrist hash of `start` and its variant (the same
    /// board in two variants is two start positions).
    pub fn new(start: &VariantPosition) -> KeyHasher {
        let z: Zobrist64 = start.zobrist_hash(EnPassantMode::Legal);
        KeyHasher {
            h: mix(z.0 ^ mix(start.variant() as u64)),
            tags: None,
        }
    }

    /// Adds a main-line move.
    #[inline]
    pub fn push(&mut self, ordinal: u16) {
        self.h = mix(self.h ^ u64::from(ordinal));
    }

    /// Adds a main-line null move.
    pub fn null(&mut self) {
        self.h = mix(self.h ^ NULL_MOVE);
    }

    /// Adds the tags `--dedup=tags` compares.
    pub fn tags<T: Tags + ?Sized>(&mut self, tags: &T) {
        let mut h = 0xcbf2_9ce4_8422_2325_u64;
        for name in [&b"White"[..], b"Black", b"Date"] {
            for &b in tags.tag(name).unwrap_or(b"") {
                h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
            }
            // A separator no tag byte equals.
            h = mix(h ^ 0x1_0000);
        }
        self.tags = Some(h);
    }

    /// The key.
    pub fn finish(&self) -> GameKey {
        match self.tags {
            None => GameKey(self.h),
            Some(t) => GameKey(mix(self.h ^ t)),
        }
    }
}

/// A [`GameVisitor`] that applies a [`Selection`] around `inner`: every
/// callback is forwarded; a game whose tags exclude it is stopped at its
/// movetext, one excluded by its plies is marked [`Select::dropped`] at
/// its end, and each kept game's [`GameKey`] is made for `--dedup`. The
/// caller drops what `inner` wrote of a game that was stopped or dropped.
pub struct Select<'a, V> {
    /// The visitor.
    pub inner: V,
    sel: &'a Selection,
    game: u64,
    tags: TagList,
    started: bool,
    /// Variation nesting (entered variations only).
    depth: u32,
    plies: u64,
    key: KeyHasher,
    /// The last game is not selected: what `inner` wrote of it is dropped.
    pub dropped: bool,
    /// The last game's key, with `--dedup`.
    pub last_key: Option<GameKey>,
    /// Whether the selection chooses at all (else every callback only
    /// goes through).
    active: bool,
}

impl<'a, V: GameVisitor> Select<'a, V> {
    /// `inner` under `sel`.
    pub fn new(inner: V, sel: &'a Selection) -> Select<'a, V> {
        Select {
            inner,
            sel,
            game: 0,
            tags: TagList::default(),
            started: false,
            depth: 0,
            plies: 0,
            key: KeyHasher::default(),
            dropped: false,
            last_key: None,
            active: sel.is_active(),
        }
    }

    /// The current (or last) game's 0-based number.
    pub fn game(&self) -> u64 {
        self.game
    }

    /// The verdict at the end of a game (plies known).
    fn finish_game(&mut self) {
        if !self.active {
            return;
        }
        if let Some(f) = &self.sel.filter
            && !f.matches(&self.tags, self.plies)
        {
            self.dropped = true;
            return;
        }
        if self.sel.dedup.is_some() {
            if !self.started {
                self.key = start_key(&self.tags);
            }
            if self.sel.dedup == Some(DedupMode::Tags) {
                self.key.tags(&self.tags);
            }
            self.last_key = Some(self.key.finish());
        }
    }
}

impl<V: GameVisitor> GameVisitor for Select<'_, V> {
    fn begin_game(&mut self, info: &GameInfo) -> ControlFlow<()> {
        self.game = info.index;
        self.tags.clear();
        self.started = false;
        self.depth = 0;
        self.plies = 0;
        // Stopped games are dropped too: the flag is cleared at the end of
        // a game that is kept.
        self.dropped = true;
        self.last_key = None;
        self.inner.begin_game(info)
    }
    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        if self.active {
            self.tags.push(name, value);
        }
        self.inner.tag(name, value)
    }
    fn begin_moves(&mut self, start: &VariantPosition) -> ControlFlow<()> {
        self.started = true;
        if let Some(f) = &self.sel.filter
            && f.eval(&self.tags, None) == Some(false)
        {
            return ControlFlow::Break(());
        }
        if self.sel.dedup.is_some() {
            self.key = KeyHasher::new(start);
        }
        self.inner.begin_moves(start)
    }
    fn wants_san(&self) -> bool {
        self.inner.wants_san()
    }
    fn wants_before(&self) -> bool {
        self.inner.wants_before()
    }
    #[inline]
    fn play(&mut self, ply: &Ply<'_>) -> ControlFlow<()> {
        if self.active && self.depth == 0 {
            self.plies += 1;
            self.key.push(ply.ordinal);
        }
        self.inner.play(ply)
    }
    fn null_move(&mut self, before: &VariantPosition, spelling: &[u8]) -> ControlFlow<()> {
        if self.depth == 0 {
            self.plies += 1;
            self.key.null();
        }
        self.inner.null_move(before, spelling)
    }
    fn nag(&mut self, nag: u8) -> ControlFlow<()> {
        self.inner.nag(nag)
    }
    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        let r = self.inner.begin_variation();
        if r == ControlFlow::Continue(Skip(false)) {
            self.depth += 1;
        }
        r
    }
    fn end_variation(&mut self) -> ControlFlow<()> {
        self.depth = self.depth.saturating_sub(1);
        self.inner.end_variation()
    }
    fn escape(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.inner.escape(text)
    }
    fn extension(&mut self, kind: ExtKind, payload: &[u8]) -> ControlFlow<()> {
        self.inner.extension(kind, payload)
    }
    fn end_game(&mut self) {
        self.dropped = false;
        self.inner.end_game();
        self.finish_game();
    }
    fn outside(&mut self, offset: u64, record: &RecordRef<'_>) {
        self.inner.outside(offset, record);
    }
    fn record(&mut self, offset: u64, record: &RecordRef<'_>) {
        self.inner.record(offset, record);
    }
}

/// The key of a game's start position, from its tags (`FEN`, `Variant`),
/// for a game whose movetext gives none.
fn start_key(tags: &TagList) -> KeyHasher {
    let variant = tags
        .get(b"Variant")
        .and_then(|v| pgc_core::variant::variant_of_tag(v).ok())
        .unwrap_or_default();
    let start = pgc_core::variant_start_position(variant, tags.get(b"FEN"))
        .unwrap_or_else(|_| VariantPosition::Chess(shakmaty::Chess::default()));
    KeyHasher::new(&start)
}

/// Whether the one game of `pgc` (just encoded) is selected: `Some` with
/// its `--dedup` key (if asked) when it is, `None` when it is not. Only
/// the records are read (the game grammar, no move is replayed): the key
/// is made of the start position and the main line's ordinals as written.
/// Records that do not make one game (which the encoder does not write)
/// keep the game, with no key.
pub fn select_game(pgc: &[u8], sel: &Selection) -> Option<Option<GameKey>> {
    use pgc_core::game::{Event, GameParser};
    let mut parser = GameParser::new(pgc_core::Limits::default());
    let mut records = pgc_core::Reader::new(pgc);
    let mut tags = TagList::default();
    let (mut depth, mut plies) = (0u32, 0u64);
    let mut key = None;
    let kept = Some(None);
    while let Ok(Some((offset, rec))) = records.next_record() {
        let step = parser.feed(offset, rec);
        if step.error.is_some() {
            return kept;
        }
        if step.movetext_begins {
            if let Some(f) = &sel.filter {
                match f.eval(&tags, None) {
                    Some(false) => return None,
                    Some(true) if sel.dedup.is_none() => return kept,
                    _ => {}
                }
            }
            key = Some(start_key(&tags));
        }
        let main = depth == 0;
        match step.event {
            Event::Tag { name, value } => tags.push(name, value),
            Event::Moves { ordinals, .. } if main => {
                plies += ordinals.len() as u64;
                if let Some(k) = key.as_mut() {
                    ordinals.iter().for_each(|&o| k.push(u16::from(o)));
                }
            }
            Event::NullMove(_) if main => {
                plies += 1;
                if let Some(k) = key.as_mut() {
                    k.null();
                }
            }
            Event::WideMove(payload) if main => {
                plies += 1;
                let Ok(o) = pgc_core::ext::simple::wide_move(payload) else {
                    return kept;
                };
                if let Some(k) = key.as_mut() {
                    k.push(o);
                }
            }
            Event::RavBegin => depth += 1,
            Event::RavEnd => depth = depth.saturating_sub(1),
            Event::Reduced { .. } => return kept,
            Event::End => {
                if let Some(f) = &sel.filter
                    && !f.matches(&tags, plies)
                {
                    return None;
                }
                let Some(mode) = sel.dedup else {
                    return kept;
                };
                let mut k = key.unwrap_or_else(|| start_key(&tags));
                if mode == DedupMode::Tags {
                    k.tags(&tags);
                }
                return Some(Some(k.finish()));
            }
            _ => {}
        }
    }
    kept
}

/// Consecutive games of a batch that `--where` may select, by their tags:
/// bytes `start..end` of the batch, the first being game `games` (0-based)
/// of the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// The first byte, in the batch.
    pub start: usize,
    /// Just past the last game's last byte, in the batch.
    pub end: usize,
    /// The 0-based number of the run's first game.
    pub games: u64,
}

/// The verdict of a filter on a game's tags (stopping every game at its
/// movetext): whether the game may be selected.
struct TagVerdict<'a> {
    filter: &'a Filter,
    tags: TagList,
    index: u64,
    keep: bool,
}

impl GameVisitor for TagVerdict<'_> {
    fn begin_game(&mut self, info: &GameInfo) -> ControlFlow<()> {
        self.tags.clear();
        self.index = info.index;
        self.keep = true;
        ControlFlow::Continue(())
    }
    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        self.tags.push(name, value);
        ControlFlow::Continue(())
    }
    fn begin_moves(&mut self, _start: &VariantPosition) -> ControlFlow<()> {
        self.keep = self.filter.eval(&self.tags, None) != Some(false);
        ControlFlow::Break(())
    }
    fn end_game(&mut self) {
        // No movetext: no plies.
        self.keep = self.filter.matches(&self.tags, 0);
    }
}

/// What [`selected_runs`] found in a batch.
#[derive(Debug, Default)]
pub struct Runs {
    /// The runs of games the tags do not exclude, in order.
    pub runs: Vec<Run>,
    /// Games walked (whole games).
    pub games: u64,
    /// Where the last whole game ends in the batch (the records after it
    /// belong to the next batch's first game).
    pub end: usize,
    /// The error that stopped the walk, positioned in the input.
    pub error: Option<pgc_core::WalkError>,
}

/// Walks the tag sections of a batch (`data`, at byte `offset` of the
/// input after `games` games) and returns the runs of games `filter` does
/// not exclude by their tags. No move is decoded: the walker still checks
/// that every record frames and follows the game grammar, as `pgc decode
/// --where` does for the games it skips.
///
/// Without a filter the batch is one run.
pub fn selected_runs(
    data: &[u8],
    offset: u64,
    games: u64,
    limits: pgc_core::Limits,
    filter: Option<&Filter>,
) -> Runs {
    let Some(filter) = filter else {
        return Runs {
            runs: vec![Run {
                start: 0,
                end: data.len(),
                games,
            }],
            ..Runs::default()
        };
    };
    let reader = pgc_core::Reader::with_limits(data, limits).starting_at(offset);
    let mut walker = pgc_core::GameWalker::from_reader(reader).starting_at(games);
    let mut v = TagVerdict {
        filter,
        tags: TagList::default(),
        index: 0,
        keep: false,
    };
    let mut found = Runs::default();
    let mut start = 0usize;
    loop {
        match walker.walk_game(&mut v) {
            Ok(true) => {
                let end = usize::try_from(walker.offset() - offset)
                    .unwrap_or(data.len())
                    .min(data.len());
                if v.keep {
                    match found.runs.last_mut() {
                        Some(r) if r.end == start => r.end = end,
                        _ => found.runs.push(Run {
                            start,
                            end,
                            games: v.index,
                        }),
                    }
                }
                found.games += 1;
                found.end = end;
                start = end;
            }
            Ok(false) => return found,
            Err(e) => {
                found.error = Some(e);
                return found;
            }
        }
    }
}

/// A kept game of a batch's text: its 0-based number, key, and where its
/// text starts and ends in the batch's output (text between games goes
/// to the output).
#[derive(Debug, Clone, Copy)]
pub struct KeptGame {
    /// 0-based game number in the input.
    pub game: u64,
    /// Its `--dedup` key.
    pub key: GameKey,
    /// The start of its text in the batch's output.
    pub start: usize,
    /// The start of the game's own text in the batch's output: after the
    /// text kept as read before it (a rejected game, text between games),
    /// which its text holds from `start` on; `start` when there is none.
    pub own: usize,
    /// The end of its text in the batch's output.
    pub end: usize,
}

/// The table's hash of a [`GameKey`]: the key itself, already mixed.
#[derive(Debug, Default)]
pub struct KeyHash(u64);

impl Hasher for KeyHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix(self.0 ^ u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// `--dedup`'s memory of the games kept so far: key → first game (0-based).
#[derive(Debug, Default)]
pub struct Dedup {
    seen: HashMap<GameKey, u64, BuildHasherDefault<KeyHash>>,
    /// Games dropped as duplicates.
    pub dropped: u64,
}

impl Dedup {
    /// The game `key` duplicates (0-based), or `None` when it is the first
    /// of its kind (then it is remembered as `game`).
    pub fn check(&mut self, key: GameKey, game: u64) -> Option<u64> {
        match self.seen.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => {
                self.dropped += 1;
                Some(*e.get())
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(game);
                None
            }
        }
    }

    /// Splits a batch's text (its kept games' spans in `kept`) into what
    /// goes to the output and, through `dup`, what goes to `--duplicates`:
    /// `dup(text, own, game, first)` for each duplicate, with 0-based
    /// numbers and `own` where the game's own text starts in `text`.
    ///
    /// # Errors
    /// Those of `put` and `dup`.
    pub fn split(
        &mut self,
        out: &[u8],
        kept: &[KeptGame],
        mut put: impl FnMut(&[u8]) -> Result<()>,
        mut dup: impl FnMut(&[u8], usize, u64, u64) -> Result<()>,
    ) -> Result<()> {
        // The start of the text not written yet.
        let mut run = 0;
        for k in kept {
            let end = k.end.min(out.len());
            let start = k.start.clamp(run, end);
            if let Some(first) = self.check(k.key, k.game) {
                put(&out[run..start])?;
                let own = k.own.clamp(start, end) - start;
                dup(&out[start..end], own, k.game, first)?;
                run = end;
            }
        }
        put(&out[run..])
    }
}

/// The `--duplicates` text of a PGN game: a `DuplicateOf` tag naming the
/// 1-based number of the game it duplicates, first in its own tag section
/// (right before its first tag pair, as the PGN lexer finds it, or before
/// its movetext when it has none). `own` is where the game's own text
/// starts in `text`: the text kept before it (a rejected game, junk)
/// stays before the tag, as it was.
pub fn pgn_duplicate(text: &[u8], own: usize, first: u64, to: &mut Vec<u8>) {
    let own = own.min(text.len());
    let at = own + pgn_bridge::first_tag_pair(&text[own..]).unwrap_or(0);
    to.extend_from_slice(&text[..at]);
    to.extend_from_slice(format!("[DuplicateOf \"{}\"]\n", first + 1).as_bytes());
    to.extend_from_slice(&text[at..]);
}

/// Plies and `--dedup` key of a game read by a `BulkReader` (main line
/// only: null moves count as plies).
pub fn bulk_plies_and_key(g: &pgc_core::BulkGame, dedup: Option<DedupMode>) -> (u64, GameKey) {
    let Some(mode) = dedup else {
        // Counted and not decoded (a table of tags and plies), or decoded.
        let plies = if g.has_null_moves() {
            main_line_plies(g)
        } else {
            g.moves().len() as u64 + g.unplayed_plies()
        };
        return (plies, GameKey(0));
    };
    let mut key = KeyHasher::new(g.start());
    let ordinals = g.ordinals();
    let (mut depth, mut i, mut plies) = (0u32, 0usize, 0u64);
    for ev in g.events() {
        match ev {
            pgc_core::BulkEvent::BeginVariation => depth += 1,
            pgc_core::BulkEvent::EndVariation => depth = depth.saturating_sub(1),
            pgc_core::BulkEvent::Move(_) if depth == 0 => {
                key.push(ordinals.get(i).copied().unwrap_or(0));
                i += 1;
                plies += 1;
            }
            pgc_core::BulkEvent::NullMove if depth == 0 => {
                key.null();
                plies += 1;
            }
            _ => {}
        }
    }
    if mode == DedupMode::Tags {
        key.tags(g);
    }
    (plies, key.finish())
}

fn main_line_plies(g: &pgc_core::BulkGame) -> u64 {
    let (mut depth, mut plies) = (0u32, 0u64);
    for ev in g.events() {
        match ev {
            pgc_core::BulkEvent::BeginVariation => depth += 1,
            pgc_core::BulkEvent::EndVariation => depth = depth.saturating_sub(1),
            pgc_core::BulkEvent::Move(_) | pgc_core::BulkEvent::NullMove if depth == 0 => {
                plies += 1;
            }
            _ => {}
        }
    }
    plies
}

/// The `--duplicates` text of `pgc moves`: a `# duplicate of game N` line
/// (N 1-based) before the game's lines (its own, from `own` in `text`).
pub fn line_duplicate(text: &[u8], own: usize, first: u64, to: &mut Vec<u8>) {
    let (before, game) = text.split_at(own.min(text.len()));
    to.extend_from_slice(before);
    to.extend_from_slice(format!("# duplicate of game {}\n", first + 1).as_bytes());
    to.extend_from_slice(game);
}

/// An `Error` for a `--duplicates` path used without `--dedup`.
pub fn duplicates_without_dedup() -> Error {
    Error::Usage("--duplicates needs --dedup (it lists the games --dedup drops)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dedup_keeps_first_games_and_splits_text() {
        let mut d = Dedup::default();
        let out = b"aaBBccDD--";
        let k = |game, key, start, end| KeptGame {
            game,
            key: GameKey(key),
            start,
            own: start,
            end,
        };
        let kept = [k(0, 1, 0, 2), k(1, 1, 2, 4), k(2, 2, 4, 6), k(3, 2, 6, 8)];
        let (mut put, mut dups) = (Vec::new(), Vec::new());
        d.split(
            out,
            &kept,
            |t| {
                put.extend_from_slice(t);
                Ok(())
            },
            |t, own, game, first| {
                assert_eq!(own, 0);
                dups.push((t.to_vec(), game, first));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(put, b"aacc--");
        assert_eq!(dups, [(b"BB".to_vec(), 1, 0), (b"DD".to_vec(), 3, 2)]);
        assert_eq!(d.dropped, 2);
        // A later batch still sees the first games.
        assert_eq!(d.check(GameKey(2), 9), Some(2));
    }

    #[test]
    fn the_duplicate_of_tag_goes_before_the_games_own_first_tag_pair() {
        let dup = |text: &[u8], own| {
            let mut to = Vec::new();
            pgn_duplicate(text, own, 0, &mut to);
            String::from_utf8(to).expect("utf-8")
        };
        let kept = "[Event \"bad\"]\n\n1. e5 *\n\n";
        let game = "[Event \"dup\"]\n\n1. e4 *\n";
        let tag = "[DuplicateOf \"1\"]\n";
        let text = format!("{kept}{game}");
        assert_eq!(
            dup(text.as_bytes(), kept.len()),
            format!("{kept}{tag}{game}")
        );
        assert_eq!(
            dup(b"\n[x]\n[Event \"a\"]\n*", 0),
            format!("\n[x]\n{tag}[Event \"a\"]\n*")
        );
        // No tag pair: before the movetext; an offset past the end: last.
        assert_eq!(dup(b"1. e4 *\n", 0), format!("{tag}1. e4 *\n"));
        assert_eq!(dup(b"1. e4 *\n", 99), format!("1. e4 *\n{tag}"));
        // Split hands each duplicate's own start, within its text, over.
        let mut d = Dedup::default();
        let k = |game, start, own, end| KeptGame {
            game,
            key: GameKey(7),
            start,
            own,
            end,
        };
        let mut own_starts = Vec::new();
        d.split(
            b"aaXXbb",
            &[k(0, 0, 0, 2), k(1, 2, 4, 6)],
            |_| Ok(()),
            |t, own, _, _| {
                own_starts.push((t.to_vec(), own));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(own_starts, [(b"XXbb".to_vec(), 2)]);
    }

    #[test]
    fn dedup_memory_for_a_million_games() {
        // 16 bytes a slot, and at most 2^21 slots for a million keys:
        // 2^21 × 17 bytes (with the control byte) = 34 MiB, 51 MiB while
        // the table grows from 2^20 slots.
        assert_eq!(std::mem::size_of::<(GameKey, u64)>(), 16);
        let mut d = Dedup::default();
        for i in 0..1_000_000u64 {
            assert_eq!(d.check(GameKey(mix(i)), i), None);
        }
        assert!(d.seen.capacity() < 1 << 21, "{}", d.seen.capacity());
        assert_eq!(d.check(GameKey(mix(17)), 5), Some(17));
    }

    #[test]
    fn keys_tell_start_positions_moves_and_tags_apart() {
        let start = VariantPosition::Chess(shakmaty::Chess::default());
        let line = |ords: &[u16]| {
            let mut k = KeyHasher::new(&start);
            ords.iter().for_each(|&o| k.push(o));
            k.finish()
        };
        assert_eq!(line(&[13, 12]), line(&[13, 12]));
        assert_ne!(line(&[13, 12]), line(&[12, 13]));
        assert_ne!(line(&[13]), line(&[13, 0]));
        let mut other = KeyHasher::new(&start.clone().swap_turn().unwrap());
        other.push(13);
        assert_ne!(other.finish(), line(&[13]));
        let tagged = |w: &str| {
            let mut k = KeyHasher::new(&start);
            k.tags(&[("White", w), ("Black", "b"), ("Date", "?")][..]);
            k.finish()
        };
        assert_eq!(tagged("a"), tagged("a"));
        assert_ne!(tagged("a"), tagged("ab"));
        assert_ne!(tagged("a"), line(&[]));
    }
}
