//! Embedded commands in comments (PGN supplement of 2001, section 3.2), and
//! their compact lossless PGC encoding (`spec/extensions-commands.md`).
//!
//! Two layers:
//!
//! - **Syntax** ([`syntax`]): a comment's bytes split into text and
//!   `[%name operands]` commands ([`parse_comment`]). `clk`, `emt`, `egt`,
//!   `mct` (section 4), `eval`, `cal` (arrows) and `csl` (square marks) are
//!   typed; any other command is [`Command::Other`] with its raw operands.
//!   Nothing is ever rejected: a malformed command is text.
//!   [`encode_comment`] turns a comment made only of typed commands and
//!   whitespace into a [`TypedComment`] when [`render`] gives the exact
//!   original bytes back, and `None` otherwise (the comment then stays a
//!   text comment record).
//! - **Values and the record** ([`pgc_core::ext::commands`], re-exported
//!   here): the typed values, [`GameCommands`] that collects the typed
//!   comments of one game into one extension record (kind
//!   [`pgc_core::ext::CLOCKS`]), and [`GameCommandsReader`] that reads and
//!   checks the record and hands out the comment of each anchor, in game
//!   order ([`RenderAt::render_at`] renders it to text).
//!
//! ```
//! use pgn_bridge::commands::{GameCommands, GameCommandsReader, RenderAt, encode_comment, render};
//!
//! let c = encode_comment(b" [%eval -0.5] [%clk 0:15:00] ").unwrap();
//! let mut text = Vec::new();
//! render(&c, &mut text);
//! assert_eq!(text, b" [%eval -0.5] [%clk 0:15:00] ");
//!
//! // One record per game: anchors 0 and 1 (here the first two moves) carry a typed comment.
//! let mut game = GameCommands::new();
//! assert!(game.push(0, &c));
//! assert!(game.push(1, &encode_comment(b" [%eval 0.17] [%clk 0:14:58] ").unwrap()));
//! let mut payload = Vec::new();
//! game.to_payload(&mut payload);
//!
//! let mut reader = GameCommandsReader::from_payload(&payload).unwrap();
//! let mut out = Vec::new();
//! assert!(reader.render_at(0, &mut out));
//! assert_eq!(out, b" [%eval -0.5] [%clk 0:15:00] ");
//! out.clear();
//! assert!(reader.render_at(1, &mut out));
//! assert_eq!(out, b" [%eval 0.17] [%clk 0:14:58] ");
//! assert!(!reader.render_at(2, &mut out));
//! ```

pub use pgc_core::ext::commands::syntax;

pub use pgc_core::ext::PayloadError;
pub use pgc_core::ext::commands::{
    Anchors, Arrow, Clock, ClockColumn, ClockFormat, Decimals, Eval, EvalColumn, EvalFormat,
    GameCommands, GameCommandsReader, MAX_CENTIPAWNS, MAX_CLOCK_MILLIS, MAX_TEMPLATES, MarkColour,
    Separator, SquareMark, TimeKind, TypedCommand, TypedComment, TypedPart,
};
pub use syntax::{
    Command, CommentParts, Operand, Operands, Part, encode_comment, encode_comment_into, operands,
    parse_comment, render,
};

/// Rendering a [`GameCommandsReader`]'s comments as text.
pub trait RenderAt {
    /// Renders the typed comment after anchor `anchor` (the bytes between
    /// the braces) onto `out`; false if the anchor has none. Same order
    /// rule as [`GameCommandsReader::typed_at`].
    fn render_at(&mut self, anchor: u64, out: &mut Vec<u8>) -> bool;
}

impl RenderAt for GameCommandsReader {
    fn render_at(&mut self, anchor: u64, out: &mut Vec<u8>) -> bool {
        self.with_typed_at(anchor, |c| render(c, out)).is_some()
    }
}
