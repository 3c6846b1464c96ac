//! PGC → JSON Lines: one object per game, with clocks and evaluations as
//! numbers instead of comment text, for analysis and training pipelines.
//!
//! ```text
//! {"game":1,"offset":0,"tags":{"Event":"Rated Blitz game",…},
//!  "moves":[{"uci":"e2e4","san":"e4","clk":180,"eval":{"cp":17}},…],"result":"1-0"}
//! ```
//!
//! * `moves` is the main line; variations are not written.
//! * `clk` is the `[%clk]` time in seconds (fractions kept), `eval` is
//!   `{"cp":n}` (centipawns, White's view) or `{"mate":n}`, `emt` the
//!   `[%emt]` time in seconds; each only when the move has one.
//! * `engine` holds what an engine note (a comment stored as engine
//!   output, `spec/extensions-engine.md`) says: `eval` (`{"cp":n}` as the
//!   engine wrote it, or `{"mate":n}`), `depth`, `seldepth`, `time` in
//!   seconds, `nodes`, and `pv` as UCI moves; the note's text is in
//!   `comments` too.
//! * `comments` lists a move's comment texts that are not typed commands
//!   with a value (`[%cal]` and `[%csl]` are written as their text).
//! * Strings are the PGN's bytes; bytes that are not UTF-8 are written as
//!   `\u00XX` (Latin-1 reading), so every line is valid JSON.
//!
//! Values come from the game's typed-command record when the encoder stored
//! them as data, and from the comment text otherwise.

use crate::commands::{Command, Eval, Part, TimeKind, TypedCommand, TypedComment, parse_comment};
use pgc_core::ext::commands::Anchors;
use pgc_core::ext::engine::{LineTrail, Score};
use pgc_core::ext::{self, ExtError, ExtKind, Outcome, PayloadError, simple};
use pgc_core::record::RecordRef;
use pgc_core::{GameInfo, GameVisitor, Ply, Skip};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Move};
use std::ops::ControlFlow;

#[derive(Default, Clone, Copy)]
struct Values {
    clk: Option<u64>,
    emt: Option<u64>,
    eval: Option<Eval>,
}

/// Renders walked games as JSON Lines into [`JsonlWriter::text`].
#[derive(Default)]
pub struct JsonlWriter {
    out: Vec<u8>,
    game: u64,
    offset: u64,
    result_tag: Vec<u8>,
    termination: Option<Outcome>,
    tags: Vec<u8>,
    moves: Vec<u8>,
    /// Whether the current move object is open (values may follow).
    open_move: bool,
    /// The line's head (game, offset, tags, `"moves":[`) is in `out`: the
    /// moves go there as each is closed.
    head_written: bool,
    /// Move objects opened in the game.
    moves_count: u64,
    comments: Vec<Vec<u8>>,
    values: Values,
    /// The game's typed comments, anchor by anchor.
    anchors: Anchors,
    typed: TypedComment,
    /// The engine note of an anchor, the line positions its move lists
    /// start from, and the JSON of its values for the open move.
    note_line: LineTrail,
    note_text: Vec<u8>,
    /// The note's principal variation, played as its text was written.
    pv: Vec<Move>,
    engine_json: Vec<u8>,
    /// The current record's offset and the ply, for errors.
    record_offset: u64,
    ply: u32,
    /// The first payload of the game that its codec refused.
    error: Option<ExtError>,
    chess960: bool,
    plies: u64,
    /// Variation depth: moves inside variations are not written but still
    /// count as anchors of typed comments.
    depth: u32,
}

impl JsonlWriter {
    /// A writer.
    pub fn new() -> JsonlWriter {
        JsonlWriter::default()
    }

    /// The JSON text produced so far; the caller drains it.
    pub fn text(&mut self) -> &mut Vec<u8> {
        &mut self.out
    }

    /// The first extension payload of the last game walked that its codec
    /// refused, positioned (see [`crate::decode::Decoder::take_error`]).
    pub fn take_error(&mut self) -> Option<ExtError> {
        self.error.take()
    }

    fn fail(&mut self, kind: ExtKind, e: PayloadError) {
        if self.error.is_none() {
            let game = self.game.saturating_sub(1);
            self.error = Some(e.at_record(kind, self.record_offset, game, self.ply));
        }
    }

    /// Closes the previous move object and starts the separator of a new
    /// one, marking it open; `false` (counting the anchor) inside a
    /// variation, which this format leaves out.
    fn open_new_move(&mut self) -> bool {
        if self.depth > 0 {
            self.anchors.skip(1);
            return false;
        }
        self.close_move();
        if self.moves_count > 0 {
            self.moves.push(b',');
        }
        self.moves_count += 1;
        self.open_move = true;
        true
    }

    /// Writes the line's head to `out`: from here on, the text made so far
    /// may be written out before the game ends ([`JsonlWriter::text_to_write`]).
    fn write_head(&mut self) {
        if self.head_written {
            return;
        }
        self.out.extend_from_slice(
            format!(
                "{{\"game\":{},\"offset\":{},\"tags\":{{",
                self.game, self.offset
            )
            .as_bytes(),
        );
        self.out.extend_from_slice(&self.tags);
        self.out.extend_from_slice(b"},\"moves\":[");
        self.out.extend_from_slice(&self.moves);
        self.moves.clear();
        self.head_written = true;
    }

    /// The text that may be written out before the game being walked ends,
    /// for a caller that writes a huge game in parts: all of
    /// [`JsonlWriter::text`] once the game's moves have begun (the result
    /// comes after them); `None` before. The caller may write out and
    /// remove any of it.
    pub fn text_to_write(&mut self) -> Option<&mut Vec<u8>> {
        self.head_written.then_some(&mut self.out)
    }

    fn close_move(&mut self) {
        if !self.open_move {
            return;
        }
        let v = self.values;
        if let Some(ms) = v.clk {
            self.moves.extend_from_slice(b",\"clk\":");
            push_seconds(&mut self.moves, ms);
        }
        if let Some(ms) = v.emt {
            self.moves.extend_from_slice(b",\"emt\":");
            push_seconds(&mut self.moves, ms);
        }
        match v.eval {
            Some(Eval::Centipawns(cp)) => self
                .moves
                .extend_from_slice(format!(",\"eval\":{{\"cp\":{cp}}}").as_bytes()),
            Some(Eval::Mate(n)) => self
                .moves
                .extend_from_slice(format!(",\"eval\":{{\"mate\":{n}}}").as_bytes()),
            None => {}
        }
        if !self.engine_json.is_empty() {
            self.moves.extend_from_slice(b",\"engine\":{");
            self.moves.extend_from_slice(&self.engine_json);
            self.moves.push(b'}');
            self.engine_json.clear();
        }
        if !self.comments.is_empty() {
            self.moves.extend_from_slice(b",\"comments\":[");
            for (i, c) in self.comments.iter().enumerate() {
                if i > 0 {
                    self.moves.push(b',');
                }
                json_string(&mut self.moves, c);
            }
            self.moves.push(b']');
        }
        self.moves.push(b'}');
        if self.head_written {
            self.out.extend_from_slice(&self.moves);
            self.moves.clear();
        }
        self.open_move = false;
        self.values = Values::default();
        self.comments.clear();
    }

    fn typed_values(&mut self) {
        if self.anchors.after_anchor(&mut self.typed) {
            if let Some(c) = self.typed.clk() {
                self.values.clk.get_or_insert(c.millis);
            }
            if let Some(c) = self.typed.emt() {
                self.values.emt.get_or_insert(c.millis);
            }
            if let Some(e) = self.typed.eval() {
                self.values.eval.get_or_insert(e);
            }
            if self.typed.has_marks() && self.open_move {
                // Arrows and squares have no value of their own: the
                // comment's text, as a text comment holding them is.
                let mut text = Vec::new();
                crate::commands::render(&self.typed, &mut text);
                let start = text.len() - text.trim_ascii_start().len();
                text.truncate(text.trim_ascii_end().len());
                text.drain(..start.min(text.len()));
                self.comments.push(text);
            }
        }
        if self.anchors.has_notes() {
            self.note_values();
        }
    }

    /// The engine note just read: its text among the comments, its values
    /// as `engine`.
    #[inline(never)]
    fn note_values(&mut self) {
        let line = self.note_line.positions();
        self.pv.clear();
        let pv = &mut self.pv;
        let text = &mut self.note_text;
        let s = match self
            .anchors
            .note_text_and_pv_here(&self.note_line, text, |m| pv.push(m))
        {
            None => return,
            Some(Ok(s)) => s,
            Some(Err(e)) => return self.fail(ExtKind::ENGINE_NOTES, e),
        };
        if !self.open_move {
            return;
        }
        self.comments.push(self.note_text.trim_ascii().to_vec());
        let j = &mut self.engine_json;
        j.clear();
        let field = |j: &mut Vec<u8>, name: &str, v: Option<String>| {
            if let Some(v) = v {
                if !j.is_empty() {
                    j.push(b',');
                }
                j.extend_from_slice(format!("\"{name}\":{v}").as_bytes());
            }
        };
        field(
            j,
            "eval",
            s.figures.eval.map(|e| match e {
                Score::Centipawns(cp) => format!("{{\"cp\":{cp}}}"),
                Score::Mate(n) => format!("{{\"mate\":{n}}}"),
            }),
        );
        field(j, "depth", s.figures.depth.map(|d| d.to_string()));
        field(j, "seldepth", s.figures.seldepth.map(|d| d.to_string()));
        field(
            j,
            "time",
            s.figures.time_ms.map(|ms| {
                let mut t = Vec::new();
                push_seconds(&mut t, ms);
                String::from_utf8_lossy(&t).into_owned()
            }),
        );
        field(j, "nodes", s.figures.nodes.map(|n| n.to_string()));
        if let Some((from, _)) = s.pv
            && from.position(&line).is_some()
        {
            if !j.is_empty() {
                j.push(b',');
            }
            j.extend_from_slice(b"\"pv\":[");
            let mode = if self.chess960 {
                CastlingMode::Chess960
            } else {
                CastlingMode::Standard
            };
            for (i, &m) in self.pv.iter().enumerate() {
                if i > 0 {
                    j.push(b',');
                }
                j.push(b'"');
                UciMove::from_move(m, mode).append_ascii_to(j);
                j.push(b'"');
            }
            j.push(b']');
        }
    }

    fn text_comment(&mut self, text: &[u8]) {
        let mut rest = false;
        for part in parse_comment(text) {
            match part {
                Part::Command { command, .. } => {
                    // A spelling read but not stored typed (`[%eval 1.2,20]`)
                    // gives its value and keeps the comment's text too.
                    rest |= !matches!(
                        command,
                        Command::Clk(..) | Command::Emt(..) | Command::Eval(..)
                    );
                    match command.value() {
                        Some(TypedCommand::Time(TimeKind::Clk, c, _)) => {
                            self.values.clk.get_or_insert(c.millis);
                        }
                        Some(TypedCommand::Time(TimeKind::Emt, c, _)) => {
                            self.values.emt.get_or_insert(c.millis);
                        }
                        Some(TypedCommand::Eval(e, _)) => {
                            self.values.eval.get_or_insert(e);
                        }
                        _ => {}
                    }
                }
                Part::Text(t) if t.trim_ascii().is_empty() => {}
                Part::Text(_) => rest = true,
            }
        }
        if rest && self.open_move {
            self.comments.push(text.trim_ascii().to_vec());
        }
    }
}

fn push_seconds(out: &mut Vec<u8>, millis: u64) {
    let s = millis / 1000;
    let f = millis % 1000;
    if f == 0 {
        out.extend_from_slice(s.to_string().as_bytes());
    } else {
        let frac = format!("{f:03}");
        out.extend_from_slice(format!("{s}.{}", frac.trim_end_matches('0')).as_bytes());
    }
}

/// Appends `bytes` as a JSON string; bytes that are not valid UTF-8 are read
/// as Latin-1.
pub fn json_string(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    let text: std::borrow::Cow<'_, str> = match std::str::from_utf8(bytes) {
        Ok(s) => s.into(),
        Err(_) => bytes
            .iter()
            .map(|&b| char::from(b))
            .collect::<String>()
            .into(),
    };
    for ch in text.chars() {
        match ch {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            c if (c as u32) < 0x20 => {
                out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes())
            }
            c => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
}

impl GameVisitor for JsonlWriter {
    fn begin_game(&mut self, info: &GameInfo) -> ControlFlow<()> {
        self.game = info.index + 1;
        self.offset = info.offset;
        self.result_tag.clear();
        self.termination = None;
        self.tags.clear();
        self.moves.clear();
        self.head_written = false;
        self.moves_count = 0;
        self.open_move = false;
        self.comments.clear();
        self.values = Values::default();
        self.anchors.begin_game();
        self.note_line.resume();
        self.engine_json.clear();
        self.ply = 0;
        self.chess960 = false;
        self.plies = 0;
        self.depth = 0;
        ControlFlow::Continue(())
    }

    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        if name == b"Result" {
            self.result_tag = value.to_vec();
        }
        if name == b"Variant" {
            let v = value.to_ascii_lowercase();
            self.chess960 = v.windows(3).any(|w| w == b"960") || v.starts_with(b"fischer");
        }
        if !self.tags.is_empty() {
            self.tags.push(b',');
        }
        json_string(&mut self.tags, name);
        self.tags.push(b':');
        json_string(&mut self.tags, value);
        ControlFlow::Continue(())
    }

    fn begin_moves(&mut self, _start: &pgc_core::VariantPosition) -> ControlFlow<()> {
        self.write_head();
        ControlFlow::Continue(())
    }

    fn wants_before(&self) -> bool {
        // Engine notes replay their move lists from the line's positions.
        self.anchors.has_notes()
    }

    fn record(&mut self, offset: u64, _record: &RecordRef<'_>) {
        self.record_offset = offset;
    }

    fn play(&mut self, ply: &Ply<'_>) -> ControlFlow<()> {
        if let Some(before) = ply.before
            && self.anchors.has_notes()
        {
            self.note_line.played(before, ply.after);
        }
        self.ply = ply.depth;
        if !self.open_new_move() {
            return ControlFlow::Continue(());
        }
        let mode = if self.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        self.moves.extend_from_slice(b"{\"uci\":\"");
        UciMove::from_move(ply.mv, mode).append_ascii_to(&mut self.moves);
        self.moves.extend_from_slice(b"\",\"san\":\"");
        self.moves.extend_from_slice(ply.san.as_bytes());
        self.moves.push(b'"');
        self.plies += 1;
        self.typed_values();
        ControlFlow::Continue(())
    }

    fn null_move(
        &mut self,
        _before: &pgc_core::VariantPosition,
        _spelling: &[u8],
    ) -> ControlFlow<()> {
        self.ply = self.ply.saturating_add(1);
        self.note_line.resume();
        if !self.open_new_move() {
            return ControlFlow::Continue(());
        }
        self.moves
            .extend_from_slice(b"{\"uci\":\"0000\",\"san\":\"--\"");
        self.typed_values();
        ControlFlow::Continue(())
    }

    fn nag(&mut self, _nag: u8) -> ControlFlow<()> {
        if self.depth > 0 {
            self.anchors.skip(1);
            return ControlFlow::Continue(());
        }
        self.typed_values();
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        // Entered, not skipped: its moves, NAGs and comments count as
        // anchors of typed comments, but nothing of it is written.
        self.note_line.resume();
        self.depth += 1;
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self) -> ControlFlow<()> {
        self.note_line.resume();
        self.depth = self.depth.saturating_sub(1);
        ControlFlow::Continue(())
    }

    fn extension(&mut self, kind: ExtKind, payload: &[u8]) -> ControlFlow<()> {
        match kind {
            ExtKind::COMMANDS => {
                if let Err(e) = self.anchors.load(payload) {
                    self.fail(kind, e);
                }
            }
            ExtKind::ENGINE_NOTES => {
                if let Err(e) = self.anchors.load_notes(payload) {
                    self.fail(kind, e);
                }
            }
            ExtKind::COMMENT if self.depth > 0 => self.anchors.skip(1),
            ExtKind::COMMENT => {
                self.text_comment(payload);
                self.typed_values();
            }
            ExtKind::LONG_NAG => {
                if let Err(e) = simple::long_nag(payload) {
                    self.fail(kind, e);
                }
                if self.depth > 0 {
                    self.anchors.skip(1);
                } else {
                    self.typed_values();
                }
            }
            ExtKind::TERMINATION => match simple::termination(payload) {
                Ok(o) => self.termination = Some(o),
                Err(e) => self.fail(kind, e),
            },
            _ => {
                if let Err(e) = ext::check(kind, payload) {
                    self.fail(kind, e);
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self) {
        self.close_move();
        let result: &[u8] = match self.termination {
            Some(o) => o.as_bytes(),
            None => Outcome::from_bytes(&self.result_tag).map_or(&b""[..], |o| o.as_bytes()),
        };
        self.write_head();
        self.out.extend_from_slice(&self.moves);
        self.moves.clear();
        self.out.extend_from_slice(b"],\"result\":");
        json_string(&mut self.out, result);
        self.out.extend_from_slice(b"}\n");
        self.head_written = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pgc_core::GameWalker;

    fn jsonl(pgn: &[u8]) -> String {
        let mut pgc = Vec::new();
        crate::pgn_to_pgc(pgn, &mut pgc, None, &Default::default()).unwrap();
        let mut w = JsonlWriter::new();
        let mut walker = GameWalker::new(&pgc[..]);
        while walker.walk_game(&mut w).unwrap() {}
        String::from_utf8(w.text().clone()).unwrap()
    }

    #[test]
    fn clocks_and_evals_become_numbers() {
        let out = jsonl(
            b"[Result \"0-1\"]\n\n1. e4 { [%eval 0.17] [%clk 0:03:00] } 1... e5 { [%clk 0:02:59.5] } \
              2. Qh5 { [%eval #-3] } { a bold queen } (2. Nf3) 0-1\n\n",
        );
        assert_eq!(
            out,
            "{\"game\":1,\"offset\":0,\"tags\":{\"Result\":\"0-1\"},\"moves\":[\
             {\"uci\":\"e2e4\",\"san\":\"e4\",\"clk\":180,\"eval\":{\"cp\":17}},\
             {\"uci\":\"e7e5\",\"san\":\"e5\",\"clk\":179.5},\
             {\"uci\":\"d1h5\",\"san\":\"Qh5\",\"eval\":{\"mate\":-3},\"comments\":[\"a bold queen\"]}],\
             \"result\":\"0-1\"}\n"
        );
    }

    /// The first value of a move's comments counts, as python-chess's
    /// `clock()` and `eval()` find the first command; a spelling they read
    /// that pgc keeps as text gives its value and stays among the comments.
    #[test]
    fn the_first_value_counts_and_loose_spellings_are_read() {
        let out = jsonl(
            b"[Result \"*\"]\n\n1. e4 { [%clk 0:01:00] [%clk 0:02:00] } { [%eval 0.3] } \
              1... e5 { [%eval 1.2,20] [%clk 0:0:5] } *\n\n",
        );
        assert_eq!(
            out,
            "{\"game\":1,\"offset\":0,\"tags\":{\"Result\":\"*\"},\"moves\":[\
             {\"uci\":\"e2e4\",\"san\":\"e4\",\"clk\":60,\"eval\":{\"cp\":30}},\
             {\"uci\":\"e7e5\",\"san\":\"e5\",\"clk\":5,\"eval\":{\"cp\":120},\
             \"comments\":[\"[%eval 1.2,20] [%clk 0:0:5]\"]}],\
             \"result\":\"*\"}\n"
        );
    }

    /// An `[%emt]` stored typed is a number; arrows and squares, which
    /// have none, stay among the comments as their text.
    #[test]
    fn move_times_are_numbers_and_marks_are_comments() {
        let out = jsonl(
            b"[Result \"1-0\"]\n\n1. e4 { [%emt 0:00:05] } e5 { [%csl Ga1] [%cal Ge2e4] } 1-0\n\n",
        );
        assert_eq!(
            out,
            "{\"game\":1,\"offset\":0,\"tags\":{\"Result\":\"1-0\"},\"moves\":[\
             {\"uci\":\"e2e4\",\"san\":\"e4\",\"emt\":5},\
             {\"uci\":\"e7e5\",\"san\":\"e5\",\"comments\":[\"[%csl Ga1] [%cal Ge2e4]\"]}],\
             \"result\":\"1-0\"}\n"
        );
    }

    #[test]
    fn strings_are_valid_json() {
        let mut out = Vec::new();
        json_string(&mut out, b"M\xfcller \"x\"\\\n");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\"M\u{fc}ller \\\"x\\\"\\\\\\n\""
        );
    }
}
