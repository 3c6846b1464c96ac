//! The game grammar, once: a state machine over records that says, for each
//! record, what it is in a game, or which rule it breaks.
//!
//! [`GameParser::feed`] takes one framed record and returns a [`Step`]: the
//! structure [`Event`] the record stands for (a game begins, a tag, a run of
//! ordinals, a NAG, a RAV begins or ends, a null move, the game ends, a
//! record outside games, …), whether it begins the movetext, and the rule it
//! breaks, if any, as a positioned [`GameError`]. It decodes no move: the
//! walker ([`crate::GameWalker`]) replays the moves, the verifier
//! ([`crate::verify()`]) checks them, the batch splitter only
//! wants the game boundaries, and each of them takes the grammar from here.
//!
//! # The rules (section 20.4 and `spec/pgc.md`)
//!
//! - Outside a game: a 0x01 record is a whole game; a 0x05 begins a general
//!   game; noops, escape strings and extension records may stand there,
//!   except the extension kinds that are tags or movetext
//!   ([`ext::LONG_TAG`], [`ext::LONG_NAG`], [`ext::NULL_MOVE`]). Any other
//!   record outside a game is an error.
//! - A general game opens with its tag section: 0x02 tag pairs,
//!   [`ext::LONG_TAG`] records, and the records that may stand among tags
//!   (noops, escape strings, the extension kinds of [`starts_movetext`]).
//!   The first other record begins the movetext, from the position of the
//!   game's `FEN` tag ([`GameParser::fen`]) or the initial position.
//! - In the movetext: moves (0x03, 0x04, null moves), NAGs, RAVs, escape
//!   strings, extension records. A tag there is an error (the record is
//!   dropped). A RAV (0x08) needs a move before it in its line (it replaces
//!   that move) and nests at most [`Limits::max_rav_depth`] deep: a deeper
//!   RAV is an error and is skipped to its 0x09. A 0x09 needs an open RAV.
//! - A game's text patch ([`ext::TEXT_PATCH`]) stands among the records
//!   that lead it: after 0x05 and any records of the kinds of [`may_lead`]
//!   (layout, commands, engine notes, unknown kinds), before anything with
//!   text. A patch elsewhere, or a second one, is an error (the decoder
//!   applies a patch to the game's whole text, which it then holds).
//! - 0x06 ends the game (an error when RAVs are still open; the game ends
//!   all the same). A 0x05 inside a game is an error and begins a new game
//!   (the open one is dropped); a 0x01 inside a general game is an error
//!   and is a whole game of its own, the general game staying open around
//!   it. The input ending inside a game is an error ([`GameParser::finish`]).
//!
//! After an error the parser goes on as each rule says, so a reader that
//! stops at the first error (the walker) and one that reports every error
//! (the verifier) read the same grammar.
//!
//! ```
//! use pgc_core::game::{Event, GameParser};
//! use pgc_core::record::frame;
//! use pgc_core::Limits;
//!
//! // A general game: 0x05, 1. e4 (ordinal 13), then 0x09 with no open RAV.
//! let bytes: &[u8] = &[0x05, 0x03, 1, 13, 0x09, 0x06];
//! let mut parser = GameParser::new(Limits::default());
//! let (mut at, mut events, mut errors) = (0, vec![], vec![]);
//! while at < bytes.len() {
//!     let (rec, len) = frame(&bytes[at..], &Limits::default()).unwrap();
//!     let step = parser.feed(at as u64, rec);
//!     events.push(format!("{:?}", step.event).split([' ', '(']).next().unwrap().to_string());
//!     errors.extend(step.error.map(|e| (e.offset, e.to_string())));
//!     at += len;
//! }
//! assert_eq!(events, ["Begin", "Moves", "Dropped", "End"]);
//! assert_eq!(errors, [(4, "0x09 rav-end without a matching 0x08 rav-begin".to_string())]);
//! ```

use crate::ext::{self, ExtKind};
use crate::limits::Limits;
use crate::record::{Marker, RecordRef};
use std::fmt;

/// The seven tag names of the Seven Tag Roster, in STR order (section 8.1.1).
pub const STR_TAGS: [&[u8]; 7] = [
    b"Event", b"Site", b"Date", b"Round", b"White", b"Black", b"Result",
];

/// Where a game starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameInfo {
    /// 0-based game number in the input.
    pub index: u64,
    /// Byte offset of the game's first record.
    pub offset: u64,
    /// Whether the game is one 0x01 record.
    pub reduced: bool,
}

/// What a record is in the game grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event<'a> {
    /// A record outside any game that may stand there: a noop, an escape
    /// string, an extension record.
    Outside,
    /// A whole reduced game (0x01): it begins, has the seven STR tags in
    /// order, its movetext from the initial position is `moves`, and it ends.
    Reduced {
        /// Where the game starts.
        info: GameInfo,
        /// Event, Site, Date, Round, White, Black, Result values.
        roster: [&'a [u8]; 7],
        /// The ordinals.
        moves: &'a [u8],
        /// Byte offset of the first ordinal.
        first: u64,
    },
    /// A general game begins (0x05).
    Begin(GameInfo),
    /// A 0x02 tag pair in the tag section (a `FEN` tag gives the start
    /// position, see [`GameParser::fen`]).
    Tag {
        /// Tag name.
        name: &'a [u8],
        /// Tag value.
        value: &'a [u8],
    },
    /// A run of move ordinals (0x03 or 0x04) in the current line.
    Moves {
        /// The ordinals.
        ordinals: &'a [u8],
        /// Byte offset of the first ordinal.
        first: u64,
    },
    /// A null move (an [`ext::NULL_MOVE`] extension): its spelling.
    NullMove(&'a [u8]),
    /// A move with an ordinal of 256 or more (an [`ext::WIDE_MOVE`]
    /// extension): its payload, not yet checked.
    WideMove(&'a [u8]),
    /// A simple NAG (0x07).
    Nag(u8),
    /// A RAV begins (0x08): it replaces the last move of the current line.
    RavBegin,
    /// The innermost RAV ends (0x09).
    RavEnd,
    /// An escape string (0x0a) inside a game.
    Escape(&'a [u8]),
    /// An extension record inside a game (other than a null move; a
    /// [`ext::LONG_TAG`] in the tag section is a tag, see
    /// [`GameParser::fen`]).
    Extension {
        /// The kind byte.
        kind: u8,
        /// The payload.
        payload: &'a [u8],
    },
    /// A noop (0x00) inside a game.
    Noop,
    /// The game ends (0x06).
    End,
    /// A record inside a skipped RAV (one nested too deep, or one the
    /// reader asked to skip with [`GameParser::skip_rav`]).
    Skipped,
    /// A record dropped for the rule it breaks ([`Step::error`]).
    Dropped,
}

/// What [`GameParser::feed`] found in one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step<'a> {
    /// The record begins the movetext (before its own event): the start
    /// position is the `FEN` tag's ([`GameParser::fen`]) or the initial one.
    pub movetext_begins: bool,
    /// What the record is.
    pub event: Event<'a>,
    /// The rule the record breaks, if any; [`Self::event`] says how the
    /// parser went on.
    pub error: Option<GameError>,
}

/// Which grammar rule a record breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameErrorKind {
    /// A record that belongs inside a game, outside any game.
    OutsideGame,
    /// A 0x05 game-begin inside a game (0x06 missing).
    GameBeginInsideGame,
    /// A 0x01 reduced game inside a general game (section 20.4.5).
    ReducedInsideGame,
    /// A tag after the movetext began.
    TagAfterMovetext {
        /// The tag's name (lossy UTF-8).
        name: String,
    },
    /// A 0x08 with no move before it in its line.
    RavWithoutMove,
    /// A 0x08 nested deeper than the limit.
    RavTooDeep {
        /// The limit ([`Limits::max_rav_depth`]).
        limit: u32,
    },
    /// A 0x09 with no open RAV.
    UnmatchedRavEnd,
    /// A 0x06 with RAVs still open.
    EndInsideRav {
        /// How many.
        open: u64,
    },
    /// The input ends inside a game.
    EndOfInput,
    /// A text patch that is not where a game's one patch stands: among the
    /// records that lead the game, before any record with text.
    MisplacedPatch {
        /// It is the game's second patch (else it comes after text).
        second: bool,
    },
}

/// A broken grammar rule, positioned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameError {
    /// Byte offset of the record (of the end of the input for
    /// [`GameErrorKind::EndOfInput`]).
    pub offset: u64,
    /// 0-based index of the game it is in, if any.
    pub game: Option<u64>,
    /// Plies of the current line once the movetext began.
    pub ply: Option<u32>,
    /// The record's marker (`None` at the end of the input).
    pub marker: Option<Marker>,
    /// The rule.
    pub kind: GameErrorKind,
}

impl GameError {
    /// What the standard expects there.
    pub fn expected(&self) -> String {
        match &self.kind {
            GameErrorKind::OutsideGame => {
                "a 0x05 game-begin or 0x01 reduced-game before it".to_string()
            }
            GameErrorKind::GameBeginInsideGame => {
                "0x06 game-end before the next 0x05 game-begin".to_string()
            }
            GameErrorKind::ReducedInsideGame => {
                "0x06 game-end first (0x01 is not permitted inside 0x05 ... 0x06, section 20.4.5)"
                    .to_string()
            }
            GameErrorKind::TagAfterMovetext { .. } => {
                "tag pairs before the movetext (section 8.1)".to_string()
            }
            GameErrorKind::RavWithoutMove => {
                "a move before the RAV (a RAV replaces the move before it)".to_string()
            }
            GameErrorKind::RavTooDeep { limit } => {
                format!("RAVs nested at most {limit} deep (raise it with --max-rav-depth)")
            }
            GameErrorKind::UnmatchedRavEnd => {
                "a 0x08 rav-begin before each 0x09 rav-end".to_string()
            }
            GameErrorKind::EndInsideRav { open } => {
                format!("0x09 rav-end for each of the {open} open RAV(s) first")
            }
            GameErrorKind::EndOfInput => "0x06 game-end".to_string(),
            GameErrorKind::MisplacedPatch { .. } => ext::patch::PLACE.to_string(),
        }
    }

    /// What the input holds instead.
    pub fn found(&self) -> String {
        let game = self.game.unwrap_or(0).saturating_add(1);
        let marker = self
            .marker
            .map_or_else(|| "a record".to_string(), |m| m.to_string());
        match &self.kind {
            GameErrorKind::OutsideGame => format!("{marker} outside a game"),
            GameErrorKind::GameBeginInsideGame => {
                format!("a new game beginning inside game {game}")
            }
            GameErrorKind::ReducedInsideGame => {
                format!("a 0x01 reduced-game inside game {game}")
            }
            GameErrorKind::TagAfterMovetext { name } => {
                format!("tag {name:?} after the movetext began")
            }
            GameErrorKind::RavWithoutMove => {
                "0x08 rav-begin with no move before it in its line".to_string()
            }
            GameErrorKind::RavTooDeep { .. } => "a deeper RAV (skipped)".to_string(),
            GameErrorKind::UnmatchedRavEnd => "0x09 rav-end with no open RAV".to_string(),
            GameErrorKind::EndInsideRav { .. } => "0x06 game-end inside a RAV".to_string(),
            GameErrorKind::EndOfInput => format!("the end of the input inside game {game}"),
            GameErrorKind::MisplacedPatch { second: true } => {
                format!("a second text patch in game {game}")
            }
            GameErrorKind::MisplacedPatch { second: false } => {
                format!("a text patch after game {game}'s tags or movetext began")
            }
        }
    }
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let marker = self
            .marker
            .map_or_else(|| "-".to_string(), |m| m.to_string());
        match &self.kind {
            GameErrorKind::OutsideGame => write!(
                f,
                "{marker} outside a game (expected 0x01 reduced-game or 0x05 game-begin)"
            ),
            GameErrorKind::GameBeginInsideGame | GameErrorKind::ReducedInsideGame => write!(
                f,
                "{marker} inside a general game (expected 0x06 game-end first)"
            ),
            GameErrorKind::TagAfterMovetext { .. } => {
                write!(f, "tag pair after the movetext began")
            }
            GameErrorKind::RavWithoutMove => {
                write!(f, "RAV with no move before it (expected a move first)")
            }
            GameErrorKind::RavTooDeep { limit } => write!(
                f,
                "RAVs nested deeper than the limit of {limit} (raise it with --max-rav-depth)"
            ),
            GameErrorKind::UnmatchedRavEnd => {
                write!(f, "0x09 rav-end without a matching 0x08 rav-begin")
            }
            GameErrorKind::EndInsideRav { open } => write!(
                f,
                "game ends inside {open} open RAV(s) (expected 0x09 rav-end)"
            ),
            GameErrorKind::EndOfInput => {
                write!(f, "input ends inside a game (expected 0x06 game-end)")
            }
            GameErrorKind::MisplacedPatch { .. } => {
                write!(f, "{} (expected {})", self.found(), ext::patch::PLACE)
            }
        }
    }
}

impl std::error::Error for GameError {}

/// Whether an extension record of this kind, met in a game's tag section,
/// begins the movetext: the kinds that stand for movetext (null moves,
/// NAGs, comments, annotations, the termination marker). Long tags, layout
/// and clock records, `;` comments, junk and unknown kinds belong to the
/// tag section (the encoder writes a `;` comment or junk found before the
/// tags there).
pub const fn starts_movetext(kind: u8) -> bool {
    matches!(
        kind,
        ext::COMMENT
            | ext::TERMINATION
            | ext::NULL_MOVE
            | ext::WIDE_MOVE
            | ext::LONG_NAG
            | ext::MOVE_SPELLING
            | ext::EVALS
            | ext::COMMAND_COMMENT
    )
}

/// Whether an extension record of this kind may stand among the records
/// that lead a game, before its text patch: it writes no text of its own
/// (layout, commands, engine notes, a kind this version does not know).
pub const fn may_lead(kind: u8) -> bool {
    matches!(kind, ext::LAYOUT | ext::CLOCKS | ext::ENGINE_NOTES) || !ExtKind(kind).is_known()
}

/// Whether an extension record of this kind is a tag or movetext, and so
/// must be inside a game.
const fn belongs_in_game(kind: u8) -> bool {
    matches!(
        kind,
        ext::LONG_TAG | ext::LONG_NAG | ext::NULL_MOVE | ext::WIDE_MOVE
    )
}

/// What a record does to the game boundaries, whatever else it is: the part
/// of the grammar a splitter or an index needs (the batch splitter), and the
/// one [`GameParser`] follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// Nothing.
    None,
    /// A whole game (0x01); it ends a game only outside one (inside a
    /// general game it is an error and that game stays open).
    Whole,
    /// A general game begins (0x05; inside a game, the open one is dropped).
    Begin,
    /// The open general game ends (0x06 inside a game).
    End,
}

/// The [`Edge`] of a record with `marker`, inside a general game or not.
#[inline]
pub const fn edge(in_game: bool, marker: Marker) -> Edge {
    match marker {
        Marker::ReducedGame => Edge::Whole,
        Marker::GameBegin => Edge::Begin,
        Marker::GameEnd if in_game => Edge::End,
        _ => Edge::None,
    }
}

/// One line of play: the main line or a RAV.
#[derive(Debug, Clone, Copy)]
struct Line {
    /// Plies from the game's start to the line's current position.
    ply: u32,
    /// Whether the line holds a move yet (a RAV needs one before it).
    has_move: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between games.
    Outside,
    /// In a general game's tag section.
    Tags,
    /// In a general game's movetext.
    Movetext,
}

/// The game grammar as a state machine over records: see the
/// [module documentation](self).
#[derive(Debug, Clone)]
pub struct GameParser {
    limits: Limits,
    state: State,
    /// Games begun so far (0x01 and 0x05 records).
    games: u64,
    /// Index of the open general game.
    index: u64,
    /// The current line and the lines around the open RAVs (entered ones).
    lines: Vec<Line>,
    /// Nesting within a RAV skipped for its depth (0: not skipping).
    skip: u64,
    /// The number of lines when the reader skipped a RAV
    /// ([`GameParser::skip_rav`]; 0: none skipped): while at least as many
    /// are open, records are checked as anywhere and come as
    /// [`Event::Skipped`].
    quiet_from: usize,
    /// The open game's FEN value and where its tag is.
    fen: Vec<u8>,
    fen_at: Option<(u64, Marker)>,
    /// The open game's first `Variant` value, if it has one.
    variant: Vec<u8>,
    has_variant: bool,
    /// The open game's records so far are those that may lead it (see
    /// [`may_lead`]), where its text patch stands.
    lead: bool,
    /// The open game has a text patch.
    patched: bool,
}

impl GameParser {
    /// A parser at the start of an input.
    pub fn new(limits: Limits) -> GameParser {
        GameParser {
            limits,
            state: State::Outside,
            games: 0,
            index: 0,
            lines: Vec::new(),
            skip: 0,
            quiet_from: 0,
            fen: Vec::new(),
            fen_at: None,
            variant: Vec::new(),
            has_variant: false,
            lead: false,
            patched: false,
        }
    }

    /// For input that starts mid-file at a game boundary: `games` games came
    /// before it.
    pub fn starting_at(mut self, games: u64) -> GameParser {
        self.games = games;
        self
    }

    /// Games begun so far.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// The open general game's index, if one is open.
    pub fn game(&self) -> Option<u64> {
        (self.state != State::Outside).then_some(self.index)
    }

    /// Whether a general game is open.
    pub fn in_game(&self) -> bool {
        self.state != State::Outside
    }

    /// Whether the open game's movetext began.
    pub fn in_movetext(&self) -> bool {
        self.state == State::Movetext
    }

    /// Plies of the current line, once the movetext began.
    pub fn ply(&self) -> Option<u32> {
        (self.state == State::Movetext).then(|| self.lines.last().map_or(0, |l| l.ply))
    }

    /// Whether the open game's records so far may all lead it (0x05 and
    /// the kinds of [`may_lead`]), so that its text patch may come next.
    pub(crate) fn leads(&self) -> bool {
        self.in_game() && self.lead
    }

    /// Whether the open game has a text patch.
    pub(crate) fn patched(&self) -> bool {
        self.in_game() && self.patched
    }

    /// The open game's `FEN` tag (a 0x02 tag pair or an [`ext::LONG_TAG`]
    /// record in its tag section): its value, and the offset and marker of
    /// its record. The last one counts.
    pub fn fen(&self) -> Option<(&[u8], u64, Marker)> {
        self.fen_at.map(|(at, m)| (&self.fen[..], at, m))
    }

    /// The open game's `Variant` tag value (a 0x02 tag pair or an
    /// [`ext::LONG_TAG`] record in its tag section). The first one counts.
    pub fn variant(&self) -> Option<&[u8]> {
        self.has_variant.then_some(&self.variant[..])
    }

    /// Skips the RAV that just began ([`Event::RavBegin`]): its records come
    /// as [`Event::Skipped`] up to and with its 0x09. They are checked as
    /// in an entered RAV (a RAV inside needs a move before it and nests at
    /// most [`Limits::max_rav_depth`] deep), so a reader that skips
    /// variations finds the errors a reader that enters them finds.
    pub fn skip_rav(&mut self) {
        if self.skip == 0 && self.quiet_from == 0 && self.lines.len() > 1 {
            self.quiet_from = self.lines.len();
        }
    }

    /// Drops the open game, if any (a reader lost the framing inside it):
    /// its index and ply. The parser is then between games.
    pub fn abandon(&mut self) -> Option<(u64, Option<u32>)> {
        let open = self.game().map(|g| (g, self.ply()));
        self.close();
        open
    }

    /// The end of the input, at `offset`: an error if a game is open (it is
    /// closed).
    pub fn finish(&mut self, offset: u64) -> Option<GameError> {
        let e = self
            .in_game()
            .then(|| self.error(offset, None, GameErrorKind::EndOfInput));
        self.close();
        e
    }

    fn close(&mut self) {
        self.state = State::Outside;
        self.lead = false;
        self.patched = false;
        self.lines.clear();
        self.skip = 0;
        self.quiet_from = 0;
        self.fen_at = None;
        self.has_variant = false;
    }

    /// The step of a record `rec` at `offset` that breaks a rule: `event`,
    /// and the error `kind`.
    fn failed<'a>(
        &self,
        offset: u64,
        rec: RecordRef<'_>,
        kind: GameErrorKind,
        event: Event<'a>,
    ) -> Step<'a> {
        Step {
            movetext_begins: false,
            event,
            error: Some(self.error(offset, Some(rec.marker()), kind)),
        }
    }

    fn error(&self, offset: u64, marker: Option<Marker>, kind: GameErrorKind) -> GameError {
        GameError {
            offset,
            game: self.game(),
            ply: self.ply(),
            marker,
            kind,
        }
    }

    fn next_index(&mut self) -> u64 {
        let i = self.games;
        self.games += 1;
        i
    }

    /// What the record at `offset` is in the grammar; see [`Step`].
    #[inline(always)]
    pub fn feed<'a>(&mut self, offset: u64, rec: RecordRef<'a>) -> Step<'a> {
        match self.feed_common(offset, rec) {
            Some(event) => Self::step(event),
            None => self.feed_other(offset, rec),
        }
    }

    /// [`Self::feed`] for the common records, which begin no movetext and
    /// break no rule: their event, or `None` (the parser unchanged) for any
    /// other record, which then goes to [`Self::feed_other`]. Inlined into
    /// the readers, so that they match on a known event.
    ///
    /// The common records, decided on the record kind once: a run of moves
    /// in an entered line, a tag pair other than `FEN` in the tag section,
    /// an extension record that stays in the tag section, a game's 0x05 and
    /// 0x06. `feed_other` says the same of them.
    #[inline(always)]
    pub(crate) fn feed_common<'a>(&mut self, offset: u64, rec: RecordRef<'a>) -> Option<Event<'a>> {
        match rec {
            RecordRef::ShortMoves(m) | RecordRef::LongMoves(m)
                if self.state == State::Movetext && self.skip == 0 && self.quiet_from == 0 =>
            {
                let line = self.lines.last_mut()?;
                line.ply = line.ply.saturating_add(m.len() as u32);
                line.has_move |= !m.is_empty();
                let head = if matches!(rec, RecordRef::ShortMoves(_)) {
                    2
                } else {
                    3
                };
                Some(Event::Moves {
                    ordinals: m,
                    first: offset + head,
                })
            }
            RecordRef::TagPair { name, value }
                if self.state == State::Tags && name != b"FEN" && name != b"Variant" =>
            {
                self.lead = false;
                Some(Event::Tag { name, value })
            }
            RecordRef::Extension { kind, payload }
                if self.state == State::Tags
                    && kind != ext::LONG_TAG
                    && kind != ext::TEXT_PATCH
                    && !starts_movetext(kind) =>
            {
                self.lead &= may_lead(kind);
                Some(Event::Extension { kind, payload })
            }
            RecordRef::GameEnd
                if self.state == State::Movetext && self.skip == 0 && self.lines.len() == 1 =>
            {
                self.close();
                Some(Event::End)
            }
            RecordRef::GameBegin if self.state == State::Outside => {
                self.close();
                self.state = State::Tags;
                self.lead = true;
                self.index = self.next_index();
                Some(Event::Begin(GameInfo {
                    index: self.index,
                    offset,
                    reduced: false,
                }))
            }
            _ => None,
        }
    }

    #[inline]
    fn step(event: Event<'_>) -> Step<'_> {
        Step {
            movetext_begins: false,
            event,
            error: None,
        }
    }

    /// [`Self::feed`] for a record that [`Self::feed_common`] does not take
    /// (it is right for any record).
    pub(crate) fn feed_other<'a>(&mut self, offset: u64, rec: RecordRef<'a>) -> Step<'a> {
        let marker = rec.marker();
        // 0x01 and 0x05 are the same in every state.
        match (edge(self.in_game(), marker), rec) {
            (Edge::Whole, RecordRef::ReducedGame { roster, moves }) => {
                let error = self
                    .in_game()
                    .then(|| self.error(offset, Some(marker), GameErrorKind::ReducedInsideGame));
                let head: u64 = roster.iter().map(|s| 1 + s.len() as u64).sum();
                let info = GameInfo {
                    index: self.next_index(),
                    offset,
                    reduced: true,
                };
                return Step {
                    movetext_begins: false,
                    event: Event::Reduced {
                        info,
                        roster,
                        moves,
                        // The marker, the seven string-1s, the mvseq-2 count.
                        first: offset + 1 + head + 2,
                    },
                    error,
                };
            }
            (Edge::Begin, _) => {
                let error = self
                    .in_game()
                    .then(|| self.error(offset, Some(marker), GameErrorKind::GameBeginInsideGame));
                self.close();
                self.state = State::Tags;
                self.lead = true;
                self.index = self.next_index();
                return Step {
                    movetext_begins: false,
                    event: Event::Begin(GameInfo {
                        index: self.index,
                        offset,
                        reduced: false,
                    }),
                    error,
                };
            }
            // 0x06 ends a game from its tag section or its movetext (below).
            _ => {}
        }
        match self.state {
            State::Outside => {
                let ok = match rec {
                    RecordRef::Noop | RecordRef::Escape(_) => true,
                    RecordRef::Extension { kind, .. } => !belongs_in_game(kind),
                    _ => false,
                };
                if ok {
                    Self::step(Event::Outside)
                } else {
                    Step {
                        movetext_begins: false,
                        event: Event::Dropped,
                        error: Some(self.error(offset, Some(marker), GameErrorKind::OutsideGame)),
                    }
                }
            }
            State::Tags => match rec {
                RecordRef::Extension {
                    kind: ext::TEXT_PATCH,
                    payload,
                } => self.patch(offset, payload),
                RecordRef::TagPair { name, value } => {
                    self.lead = false;
                    if name == b"FEN" {
                        self.set_fen(value, offset, marker);
                    } else if name == b"Variant" {
                        self.set_variant(value);
                    }
                    Self::step(Event::Tag { name, value })
                }
                RecordRef::Extension {
                    kind: ext::LONG_TAG,
                    payload,
                } => {
                    self.lead = false;
                    // A long tag is a tag pair to every reader; one that
                    // does not decode stays an extension, for its reader
                    // to report.
                    match long_tag(payload) {
                        Some((name, value)) => {
                            if name == b"FEN" {
                                self.set_fen(value, offset, marker);
                            } else if name == b"Variant" {
                                self.set_variant(value);
                            }
                            Self::step(Event::Tag { name, value })
                        }
                        None => Self::step(Event::Extension {
                            kind: ext::LONG_TAG,
                            payload,
                        }),
                    }
                }
                RecordRef::Noop => Self::step(Event::Noop),
                RecordRef::Escape(t) => {
                    self.lead = false;
                    Self::step(Event::Escape(t))
                }
                RecordRef::Extension { kind, payload } if !starts_movetext(kind) => {
                    self.lead &= may_lead(kind);
                    Self::step(Event::Extension { kind, payload })
                }
                _ => {
                    self.lead = false;
                    self.state = State::Movetext;
                    self.lines.clear();
                    self.lines.push(Line {
                        ply: 0,
                        has_move: false,
                    });
                    let mut step = self.movetext(offset, rec);
                    step.movetext_begins = true;
                    step
                }
            },
            State::Movetext => self.movetext(offset, rec),
        }
    }

    /// A text patch in the open game: an error unless it is the game's
    /// first and the game's records so far may lead it.
    fn patch<'a>(&mut self, offset: u64, payload: &'a [u8]) -> Step<'a> {
        let second = self.patched;
        let error = (second || !self.lead).then(|| {
            self.error(
                offset,
                Some(Marker::Extension),
                GameErrorKind::MisplacedPatch { second },
            )
        });
        self.patched = true;
        Step {
            movetext_begins: false,
            event: Event::Extension {
                kind: ext::TEXT_PATCH,
                payload,
            },
            error,
        }
    }

    fn set_variant(&mut self, value: &[u8]) {
        if !self.has_variant {
            self.variant.clear();
            self.variant.extend_from_slice(value);
            self.has_variant = true;
        }
    }

    fn set_fen(&mut self, value: &[u8], offset: u64, marker: Marker) {
        self.fen.clear();
        self.fen.extend_from_slice(value);
        self.fen_at = Some((offset, marker));
    }

    fn movetext<'a>(&mut self, offset: u64, rec: RecordRef<'a>) -> Step<'a> {
        let fail = |p: &GameParser, kind, event| p.failed(offset, rec, kind, event);
        // Tags are wrong anywhere in the movetext, and 0x06 ends the game
        // whether or not a RAV is being skipped.
        match rec {
            RecordRef::TagPair { name, .. } => {
                let name = String::from_utf8_lossy(name).into_owned();
                return fail(
                    self,
                    GameErrorKind::TagAfterMovetext { name },
                    Event::Dropped,
                );
            }
            RecordRef::Extension {
                kind: ext::LONG_TAG,
                payload,
            } => {
                let name = long_tag(payload).map_or_else(String::new, |(n, _)| {
                    String::from_utf8_lossy(n).into_owned()
                });
                return fail(
                    self,
                    GameErrorKind::TagAfterMovetext { name },
                    Event::Dropped,
                );
            }
            RecordRef::GameEnd => {
                let open = self.lines.len().saturating_sub(1) as u64 + self.skip;
                let step = if open > 0 {
                    fail(self, GameErrorKind::EndInsideRav { open }, Event::End)
                } else {
                    Self::step(Event::End)
                };
                self.close();
                return step;
            }
            _ => {}
        }
        if self.skip > 0 {
            match rec {
                RecordRef::RavBegin => self.skip += 1,
                RecordRef::RavEnd => self.skip -= 1,
                _ => {}
            }
            return Self::step(Event::Skipped);
        }
        if self.quiet_from > 0 {
            // In a RAV the reader skips: checked as in an entered one.
            let mut step = self.in_line(offset, rec);
            if self.lines.len() < self.quiet_from {
                // Its 0x09.
                self.quiet_from = 0;
            }
            step.event = Event::Skipped;
            return step;
        }
        self.in_line(offset, rec)
    }

    /// A movetext record other than a tag or 0x06, outside a RAV skipped
    /// for its depth: the line it stands in follows it.
    fn in_line<'a>(&mut self, offset: u64, rec: RecordRef<'a>) -> Step<'a> {
        let marker = rec.marker();
        let fail = |p: &GameParser, kind, event| p.failed(offset, rec, kind, event);
        let depth = self.lines.len().saturating_sub(1);
        let Some(line) = self.lines.last_mut() else {
            // The movetext always has its main line.
            return Self::step(Event::Dropped);
        };
        match rec {
            RecordRef::ShortMoves(m) | RecordRef::LongMoves(m) => {
                line.ply = line.ply.saturating_add(m.len() as u32);
                line.has_move |= !m.is_empty();
                let head = if marker == Marker::ShortMoves { 2 } else { 3 };
                Self::step(Event::Moves {
                    ordinals: m,
                    first: offset + head,
                })
            }
            RecordRef::Extension {
                kind: ext::NULL_MOVE,
                payload,
            } => {
                line.ply = line.ply.saturating_add(1);
                line.has_move = true;
                Self::step(Event::NullMove(payload))
            }
            RecordRef::Extension {
                kind: ext::WIDE_MOVE,
                payload,
            } => {
                line.ply = line.ply.saturating_add(1);
                line.has_move = true;
                Self::step(Event::WideMove(payload))
            }
            RecordRef::Extension {
                kind: ext::TEXT_PATCH,
                payload,
            } => self.patch(offset, payload),
            RecordRef::Extension { kind, payload } => {
                Self::step(Event::Extension { kind, payload })
            }
            RecordRef::Nag(n) => Self::step(Event::Nag(n)),
            RecordRef::Escape(t) => Self::step(Event::Escape(t)),
            RecordRef::Noop => Self::step(Event::Noop),
            RecordRef::RavBegin => {
                let (ply, has_move) = (line.ply, line.has_move);
                if depth as u64 >= u64::from(self.limits.max_rav_depth) {
                    let limit = self.limits.max_rav_depth;
                    self.skip = 1;
                    return fail(self, GameErrorKind::RavTooDeep { limit }, Event::Skipped);
                }
                let error = (!has_move)
                    .then(|| self.error(offset, Some(marker), GameErrorKind::RavWithoutMove));
                self.lines.push(Line {
                    ply: if has_move { ply.saturating_sub(1) } else { 0 },
                    has_move: false,
                });
                Step {
                    movetext_begins: false,
                    event: Event::RavBegin,
                    error,
                }
            }
            RecordRef::RavEnd => {
                if depth == 0 {
                    return fail(self, GameErrorKind::UnmatchedRavEnd, Event::Dropped);
                }
                self.lines.pop();
                Self::step(Event::RavEnd)
            }
            // Handled above.
            RecordRef::TagPair { .. }
            | RecordRef::GameEnd
            | RecordRef::GameBegin
            | RecordRef::ReducedGame { .. } => Self::step(Event::Dropped),
        }
    }
}

/// A [`ext::LONG_TAG`] payload's name and value, if it has that shape
/// (the verifier reports the payload when it has not).
fn long_tag(payload: &[u8]) -> Option<(&[u8], &[u8])> {
    ext::simple::long_tag(payload).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::frame;

    /// Feeds every record of `bytes`, then the end of the input: the
    /// events (as short names) and the errors (offset, game, ply, marker,
    /// kind).
    #[allow(clippy::type_complexity)]
    fn run(
        bytes: &[u8],
        limits: Limits,
    ) -> (
        Vec<String>,
        Vec<(u64, Option<u64>, Option<u32>, Option<Marker>, GameErrorKind)>,
    ) {
        let mut p = GameParser::new(limits);
        let (mut at, mut events, mut errors) = (0, vec![], vec![]);
        let push_err = |e: GameError, errors: &mut Vec<_>| {
            errors.push((e.offset, e.game, e.ply, e.marker, e.kind));
        };
        while at < bytes.len() {
            let (rec, len) = frame(&bytes[at..], &limits).unwrap();
            let step = p.feed(at as u64, rec);
            let mut name = match step.event {
                Event::Outside => "out".to_string(),
                Event::Reduced { info, .. } => format!("R{}", info.index),
                Event::Begin(info) => format!("B{}", info.index),
                Event::Tag { name, .. } => format!("T{}", String::from_utf8_lossy(name)),
                Event::Moves { ordinals, first } => format!("M{}@{first}", ordinals.len()),
                Event::NullMove(_) => "Z".into(),
                Event::WideMove(_) => "W".into(),
                Event::Nag(n) => format!("${n}"),
                Event::RavBegin => "(".into(),
                Event::RavEnd => ")".into(),
                Event::Escape(_) => "%".into(),
                Event::Extension { kind, .. } => format!("x{kind}"),
                Event::Noop => "noop".into(),
                Event::End => "E".into(),
                Event::Skipped => "skip".into(),
                Event::Dropped => "drop".into(),
            };
            if step.movetext_begins {
                name.insert(0, '|');
            }
            events.push(name);
            if let Some(e) = step.error {
                push_err(e, &mut errors);
            }
            at += len;
        }
        if let Some(e) = p.finish(bytes.len() as u64) {
            push_err(e, &mut errors);
        }
        (events, errors)
    }

    fn ok(bytes: &[u8]) -> String {
        let (events, errors) = run(bytes, Limits::default());
        assert_eq!(errors, [], "{events:?}");
        events.join(" ")
    }

    const NULL: [u8; 3] = [0x80, ext::NULL_MOVE, 0];

    #[test]
    fn a_general_game_tags_then_movetext() {
        // Tags, a noop, an escape, a layout record stay in the tag section;
        // the first move begins the movetext.
        let mut b = vec![0x05, 0x02, 1, b'A', 1, b'B', 0x00, 0x0a, 1, 0, b'x'];
        b.extend([0x80, ext::LAYOUT, 0, 0x03, 2, 13, 12, 0x07, 1]);
        b.extend([0x08, 0x04, 1, 0, 11, 0x09, 0x06]);
        assert_eq!(ok(&b), "B0 TA noop % x7 |M2@16 $1 ( M1@24 ) E");
    }

    #[test]
    fn movetext_begins_with_the_first_movetext_record() {
        // A comment, a NAG, a RAV (an error: no move), a 0x06: each begins
        // the movetext of an otherwise empty game.
        assert_eq!(ok(&[0x05, 0x80, ext::COMMENT, 0, 0x06]), "B0 |x1 E");
        assert_eq!(ok(&[0x05, 0x07, 3, 0x06]), "B0 |$3 E");
        assert_eq!(ok(&[0x05, 0x06]), "B0 |E");
        assert_eq!(ok(&[0x05, 0x80, ext::JUNK, 0, 0x06]), "B0 x9 |E");
        let (ev, errors) = run(&[0x05, 0x08, 0x09, 0x06], Limits::default());
        assert_eq!(ev.join(" "), "B0 |( ) E");
        assert_eq!(
            errors,
            [(
                1,
                Some(0),
                Some(0),
                Some(Marker::RavBegin),
                GameErrorKind::RavWithoutMove
            )]
        );
    }

    #[test]
    fn the_fen_tag_is_kept_for_the_movetext() {
        let mut p = GameParser::new(Limits::default());
        p.feed(0, RecordRef::GameBegin);
        p.feed(
            1,
            RecordRef::TagPair {
                name: b"FEN",
                value: b"x",
            },
        );
        let payload = [3, b'F', b'E', b'N', b'y', b'z'];
        p.feed(
            7,
            RecordRef::Extension {
                kind: ext::LONG_TAG,
                payload: &payload,
            },
        );
        assert_eq!(p.fen(), Some((&b"yz"[..], 7, Marker::Extension)));
        let s = p.feed(15, RecordRef::ShortMoves(&[1]));
        assert!(s.movetext_begins);
        assert_eq!(p.fen(), Some((&b"yz"[..], 7, Marker::Extension)));
        p.feed(18, RecordRef::GameEnd);
        assert_eq!(p.fen(), None);
    }

    #[test]
    fn reduced_games_and_their_ordinal_offset() {
        let mut b = vec![0x01];
        for s in [&b"Ev"[..], b"", b"", b"", b"", b"", b"*"] {
            b.push(s.len() as u8);
            b.extend(s);
        }
        // marker 1 + strings 3+1*5+2 = 10, count 2: ordinals from 13.
        b.extend([2, 0, 13, 12]);
        assert_eq!(ok(&b), "R0");
        let mut p = GameParser::new(Limits::default());
        let (rec, _) = frame(&b, &Limits::default()).unwrap();
        match p.feed(0, rec).event {
            Event::Reduced { first, moves, .. } => assert_eq!((first, moves), (13, &[13, 12][..])),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn records_outside_games() {
        // Noops, escapes and extension records may stand outside; moves,
        // tags, NAGs, RAVs, 0x06 and the in-game extension kinds may not.
        assert_eq!(
            ok(&[0x00, 0x0a, 0, 0, 0x80, ext::COMMENT, 0]),
            "out out out"
        );
        let b = [
            0x03,
            1,
            13,
            0x02,
            0,
            0,
            0x07,
            1,
            0x08,
            0x09,
            0x06,
            0x80,
            ext::NULL_MOVE,
            0,
            0x80,
            ext::LONG_NAG,
            1,
            200,
            0x80,
            ext::LONG_TAG,
            1,
            0,
        ];
        let (ev, errors) = run(&b, Limits::default());
        assert!(ev.iter().all(|e| e == "drop"), "{ev:?}");
        let at: Vec<(u64, Option<Marker>)> = errors.iter().map(|e| (e.0, e.3)).collect();
        assert_eq!(
            at,
            [
                (0, Some(Marker::ShortMoves)),
                (3, Some(Marker::TagPair)),
                (6, Some(Marker::Nag)),
                (8, Some(Marker::RavBegin)),
                (9, Some(Marker::RavEnd)),
                (10, Some(Marker::GameEnd)),
                (11, Some(Marker::Extension)),
                (14, Some(Marker::Extension)),
                (18, Some(Marker::Extension)),
            ]
        );
        assert!(
            errors
                .iter()
                .all(|e| e.1.is_none() && e.4 == GameErrorKind::OutsideGame)
        );
    }

    #[test]
    fn tags_after_the_movetext_are_dropped() {
        let b = [
            0x05,
            0x03,
            1,
            13,
            0x02,
            1,
            b'X',
            0,
            0x80,
            ext::LONG_TAG,
            2,
            1,
            b'Y',
            0x06,
        ];
        let (ev, errors) = run(&b, Limits::default());
        assert_eq!(ev.join(" "), "B0 |M1@3 drop drop E");
        assert_eq!(
            errors,
            [
                (
                    4,
                    Some(0),
                    Some(1),
                    Some(Marker::TagPair),
                    GameErrorKind::TagAfterMovetext { name: "X".into() }
                ),
                (
                    8,
                    Some(0),
                    Some(1),
                    Some(Marker::Extension),
                    GameErrorKind::TagAfterMovetext { name: "Y".into() }
                ),
            ]
        );
    }

    #[test]
    fn ravs_replace_a_move_and_balance() {
        // 1. e4 (1. d4 d5 (1... Nf6)) e5, a null move then a RAV after it.
        let mut b = vec![0x05, 0x03, 1, 13, 0x08, 0x03, 2, 11, 10, 0x08, 0x03, 1, 5];
        b.extend([0x09, 0x09, 0x03, 1, 12]);
        b.extend(NULL);
        b.extend([0x08, 0x09, 0x06]);
        assert_eq!(ok(&b), "B0 |M1@3 ( M2@7 ( M1@12 ) ) M1@17 Z ( ) E");
        // The ply of each line: a RAV's first move has the ply of the move it
        // replaces.
        let mut p = GameParser::new(Limits::default());
        let mut plies = vec![];
        let mut at = 0;
        while at < b.len() {
            let (rec, len) = frame(&b[at..], &Limits::default()).unwrap();
            p.feed(at as u64, rec);
            plies.push(p.ply());
            at += len;
        }
        let plies: Vec<u32> = plies.into_iter().flatten().collect();
        assert_eq!(plies, [1, 0, 2, 1, 2, 2, 1, 2, 3, 2, 3]);
    }

    #[test]
    fn unbalanced_ravs_are_positioned() {
        // An extra 0x09 at 4, a 0x06 inside one open RAV at 10.
        let b = [0x05, 0x03, 1, 13, 0x09, 0x08, 0x03, 1, 11, 0x08, 0x06];
        let (ev, errors) = run(&b, Limits::default());
        assert_eq!(ev.join(" "), "B0 |M1@3 drop ( M1@8 ( E");
        assert_eq!(
            errors,
            [
                (
                    4,
                    Some(0),
                    Some(1),
                    Some(Marker::RavEnd),
                    GameErrorKind::UnmatchedRavEnd
                ),
                (
                    10,
                    Some(0),
                    Some(0),
                    Some(Marker::GameEnd),
                    GameErrorKind::EndInsideRav { open: 2 }
                ),
            ]
        );
    }

    #[test]
    fn deep_ravs_are_an_error_once_then_skipped() {
        let mut b = vec![0x05, 0x03, 1, 13];
        for _ in 0..5 {
            b.extend([0x08, 0x03, 1, 15]);
        }
        b.extend([0x09; 5]);
        b.extend([0x03, 1, 12, 0x06]);
        let limits = Limits {
            max_rav_depth: 2,
            ..Limits::default()
        };
        let (ev, errors) = run(&b, limits);
        assert_eq!(
            ev.join(" "),
            "B0 |M1@3 ( M1@7 ( M1@11 skip skip skip skip skip skip skip skip skip ) ) M1@31 E"
        );
        assert_eq!(
            errors,
            [(
                12,
                Some(0),
                Some(1),
                Some(Marker::RavBegin),
                GameErrorKind::RavTooDeep { limit: 2 }
            )]
        );
    }

    #[test]
    fn a_skipped_rav_comes_as_skipped_records() {
        let b = [
            0x05, 0x03, 1, 13, 0x08, 0x03, 1, 11, 0x08, 0x09, 0x07, 1, 0x09, 0x03, 1, 12, 0x06,
        ];
        let mut p = GameParser::new(Limits::default());
        let mut ev = vec![];
        let mut at = 0;
        while at < b.len() {
            let (rec, len) = frame(&b[at..], &Limits::default()).unwrap();
            let s = p.feed(at as u64, rec);
            assert_eq!(s.error, None);
            if s.event == Event::RavBegin {
                p.skip_rav();
            }
            ev.push(s.event);
            at += len;
        }
        assert_eq!(
            ev[2..7],
            [
                Event::RavBegin,
                Event::Skipped,
                Event::Skipped,
                Event::Skipped,
                Event::Skipped
            ]
        );
        assert_eq!(ev[7], Event::Skipped);
        assert!(matches!(ev[8], Event::Moves { .. }));
        assert_eq!(ev[9], Event::End);
    }

    /// The errors of feeding `bytes`, the reader skipping every RAV it is
    /// offered (`skip`) or entering it.
    fn errors_when(bytes: &[u8], limits: Limits, skip: bool) -> Vec<(u64, GameErrorKind)> {
        let mut p = GameParser::new(limits);
        let mut errors = vec![];
        let mut at = 0;
        while at < bytes.len() {
            let (rec, len) = frame(&bytes[at..], &limits).unwrap();
            let s = p.feed(at as u64, rec);
            if skip && s.event == Event::RavBegin {
                p.skip_rav();
            }
            errors.extend(s.error.map(|e| (e.offset, e.kind)));
            at += len;
        }
        errors.extend(p.finish(at as u64).map(|e| (e.offset, e.kind)));
        errors
    }

    #[test]
    fn a_skipped_rav_is_checked_as_an_entered_one() {
        let limits = Limits {
            max_rav_depth: 3,
            ..Limits::default()
        };
        // 1. e4 (1. d4 ( ( 1. Nf3 ... ) ) ): a RAV with no move before it
        // inside the skipped one, then RAVs nested too deep.
        let mut b = vec![0x05, 0x03, 1, 13, 0x08, 0x03, 1, 11, 0x08, 0x08, 0x09, 0x09];
        for _ in 0..4 {
            b.extend([0x08, 0x03, 1, 2]);
        }
        b.extend([0x09; 4]);
        b.extend([0x09, 0x03, 1, 12, 0x06]);
        let entered = errors_when(&b, limits, false);
        assert_eq!(
            entered,
            [
                (9, GameErrorKind::RavWithoutMove),
                (20, GameErrorKind::RavTooDeep { limit: 3 })
            ]
        );
        assert_eq!(errors_when(&b, limits, true), entered);
        // A game ending inside the skipped RAV.
        let open = [0x05, 0x03, 1, 13, 0x08, 0x03, 1, 11, 0x08, 0x03, 1, 2, 0x06];
        assert_eq!(
            errors_when(&open, limits, true),
            [(12, GameErrorKind::EndInsideRav { open: 2 })]
        );
    }

    #[test]
    fn games_inside_games() {
        // A 0x05 inside game 0 drops it and begins game 1; a 0x01 inside
        // game 1 is game 2, and game 1 goes on around it.
        let mut b = vec![0x05, 0x03, 1, 13, 0x05, 0x03, 1, 13, 0x01];
        b.extend([0; 7]);
        b.extend([0, 0, 0x03, 1, 12, 0x06]);
        let (ev, errors) = run(&b, Limits::default());
        assert_eq!(ev.join(" "), "B0 |M1@3 B1 |M1@7 R2 M1@20 E");
        assert_eq!(
            errors,
            [
                (
                    4,
                    Some(0),
                    Some(1),
                    Some(Marker::GameBegin),
                    GameErrorKind::GameBeginInsideGame
                ),
                (
                    8,
                    Some(1),
                    Some(1),
                    Some(Marker::ReducedGame),
                    GameErrorKind::ReducedInsideGame
                ),
            ]
        );
    }

    #[test]
    fn the_end_of_the_input_inside_a_game() {
        let (_, errors) = run(&[0x05, 0x02, 0, 0], Limits::default());
        assert_eq!(
            errors,
            [(4, Some(0), None, None, GameErrorKind::EndOfInput)]
        );
        let (_, errors) = run(&[0x05, 0x03, 1, 13, 0x08], Limits::default());
        assert_eq!(
            errors,
            [(5, Some(0), Some(0), None, GameErrorKind::EndOfInput)]
        );
        // An abandoned game is no longer open.
        let mut p = GameParser::new(Limits::default());
        p.feed(0, RecordRef::GameBegin);
        p.feed(1, RecordRef::ShortMoves(&[13]));
        assert_eq!(p.abandon(), Some((0, Some(1))));
        assert_eq!(p.finish(4), None);
        assert_eq!(p.games(), 1);
    }

    #[test]
    fn edges_are_the_parsers() {
        assert_eq!(edge(false, Marker::ReducedGame), Edge::Whole);
        assert_eq!(edge(true, Marker::ReducedGame), Edge::Whole);
        assert_eq!(edge(false, Marker::GameBegin), Edge::Begin);
        assert_eq!(edge(true, Marker::GameBegin), Edge::Begin);
        assert_eq!(edge(true, Marker::GameEnd), Edge::End);
        assert_eq!(edge(false, Marker::GameEnd), Edge::None);
        assert_eq!(edge(true, Marker::ShortMoves), Edge::None);
    }

    #[test]
    fn errors_read_both_ways() {
        let e = GameError {
            offset: 8,
            game: Some(0),
            ply: Some(1),
            marker: Some(Marker::GameEnd),
            kind: GameErrorKind::EndInsideRav { open: 1 },
        };
        assert_eq!(
            e.to_string(),
            "game ends inside 1 open RAV(s) (expected 0x09 rav-end)"
        );
        assert_eq!(
            e.expected(),
            "0x09 rav-end for each of the 1 open RAV(s) first"
        );
        assert_eq!(e.found(), "0x06 game-end inside a RAV");
    }
}
