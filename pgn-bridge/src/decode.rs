//! PGC → PGN: a [`GameVisitor`] that feeds the export writer.

use crate::commands::render;
use crate::export::ExportWriter;
use crate::layout::Layout;
use pgc_core::ext::commands::Anchors;
use pgc_core::ext::engine::LineTrail;
use pgc_core::ext::{self, ExtError, ExtKind, Outcome, PayloadError, simple};
use pgc_core::game::STR_TAGS;
use pgc_core::record::RecordRef;
use pgc_core::variant::{VariantPosition, number_and_turn};
use pgc_core::{GameInfo, GameVisitor, Ply, Skip};
use shakmaty::Color;
use std::ops::ControlFlow;

/// Options of the decoder.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodeOptions {
    /// The standard's strict export tag order (section 8.1.1): the Seven Tag
    /// Roster first, in order, missing ones filled with their defaults, then
    /// the other tags in ASCII order. Layout records are ignored.
    pub strict_export: bool,
    /// The export format of section 8.2, whatever the text's layout was:
    /// layout records and text patches are ignored (games kept as read
    /// are still written as read). Implied by `strict_export`.
    pub export: bool,
    /// Limits for reading the PGC in [`crate::pgc_to_pgn`] (default
    /// [`pgc_core::Limits::DEFAULT`]). The [`Decoder`] reads no PGC itself:
    /// its caller's walker applies them.
    pub limits: pgc_core::Limits,
}

/// The PGC → PGN decoder: renders each walked game into [`Decoder::text`].
pub struct Decoder {
    opts: DecodeOptions,
    writer: ExportWriter,
    out: Vec<u8>,
    result_tag: Vec<u8>,
    termination: Option<Outcome>,
    /// Where the `*` of a Result tag that strict export filled in stands in
    /// `out`: the game's marker replaces it at the game's end.
    filled_result: Option<usize>,
    tags: Vec<(Vec<u8>, Vec<u8>)>,
    in_movetext: bool,
    /// The game's text patch payload, if it has one, and its record's
    /// offset.
    patch: Vec<u8>,
    has_patch: bool,
    patch_offset: u64,
    /// Where the game's text starts in `out`: the text written between
    /// games before it (escape lines, `;` comments) is part of it.
    span_start: usize,
    /// Bytes written between games since the last game or verbatim text.
    outside_bytes: usize,
    /// The rendering a patch applies to (reused).
    rendered: Vec<u8>,
    /// The game's typed embedded commands (commands record), handed out
    /// anchor by anchor.
    anchors: Anchors,
    typed_text: Vec<u8>,
    /// The engine note of an anchor, and the positions of the line its
    /// move lists start from.
    note_line: LineTrail,
    /// Where the walker is: the current record's offset, the game, the ply.
    offset: u64,
    game: u64,
    ply: u32,
    /// The start position's move number, and 1 when Black moves first
    /// (0 for White): with a ply's depth they give its move number.
    start_number: u32,
    start_black: u32,
    /// The first payload of the game that its codec refused.
    error: Option<ExtError>,
    /// Comments and other records seen, by extension kind (for `info`).
    pub extension_counts: [u64; 256],
    /// Comments rendered from typed embedded commands and engine notes
    /// (for `info`).
    pub typed_comments: u64,
    /// Of those, engine notes.
    pub engine_notes: u64,
    /// When set, every comment is parsed and its commands counted in
    /// [`Decoder::comment_stats`] (for `pgc info`; off by default).
    pub count_commands: bool,
    /// Comments and embedded commands seen, when counting.
    pub comment_stats: CommentStats,
    /// Tag values that held a newline, which a PGN tag line cannot hold,
    /// written with a space in its place.
    pub tags_with_newlines: u64,
    /// Records outside games that have no PGN text there (an extension
    /// kind other than a `;` comment, an escape or comment holding a line
    /// break), by kind (`0x07 layout`, …): not written, to be reported.
    pub outside_unwritten: std::collections::BTreeMap<String, u64>,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new(DecodeOptions::default())
    }
}

impl Decoder {
    /// A decoder.
    pub fn new(opts: DecodeOptions) -> Decoder {
        Decoder {
            opts,
            writer: ExportWriter::new(),
            out: Vec::with_capacity(8192),
            result_tag: Vec::new(),
            termination: None,
            filled_result: None,
            tags: Vec::new(),
            in_movetext: false,
            patch: Vec::new(),
            has_patch: false,
            patch_offset: 0,
            span_start: 0,
            outside_bytes: 0,
            rendered: Vec::new(),
            anchors: Anchors::new(),
            typed_text: Vec::new(),
            note_line: LineTrail::default(),
            offset: 0,
            game: 0,
            ply: 0,
            start_number: 1,
            start_black: 0,
            error: None,
            extension_counts: [0; 256],
            typed_comments: 0,
            engine_notes: 0,
            count_commands: false,
            comment_stats: CommentStats::default(),
            tags_with_newlines: 0,
            outside_unwritten: std::collections::BTreeMap::new(),
        }
    }

    /// The PGN text produced so far; the caller drains it.
    pub fn text(&mut self) -> &mut Vec<u8> {
        &mut self.out
    }

    /// The text that may be written out before the game being walked
    /// ends, for a caller that writes a huge game in parts: all of
    /// [`Decoder::text`] once the game's movetext has begun, unless the
    /// game has a text patch (applied to its whole text at its end); `None`
    /// otherwise. The caller may write out and remove any of it.
    pub fn text_to_write(&mut self) -> Option<&mut Vec<u8>> {
        (self.in_movetext && !self.has_patch).then_some(&mut self.out)
    }

    /// The first extension payload of the last game walked that its codec
    /// refused, positioned (the record's offset relative to the walker's
    /// input, the game, the ply, the kind, what was expected). The text of
    /// such a game lacks what the payload held: the caller reports the
    /// error instead of the text.
    pub fn take_error(&mut self) -> Option<ExtError> {
        self.error.take()
    }

    /// Verbatim records written as read so far (rejected games, text
    /// between games): every one seen, except in the strict export
    /// format, which writes none.
    pub fn verbatim_written(&self) -> u64 {
        if self.opts.strict_export {
            0
        } else {
            self.extension_counts[usize::from(ext::VERBATIM)]
        }
    }

    /// Where the text of the game being walked, or walked last, starts in
    /// [`Decoder::text`] (not drained since): after the text kept as read
    /// before it (verbatim records: a rejected game, text between games),
    /// at the `%` escape lines and `;` comments written between games
    /// right before it, which are part of its text.
    pub fn game_start(&self) -> usize {
        self.span_start
    }

    fn fail(&mut self, kind: ExtKind, e: PayloadError) {
        if self.error.is_none() {
            self.error = Some(e.at_record(kind, self.offset, self.game, self.ply));
        }
    }

    /// A line of its own between games: `lead` then `text` (a `%` escape,
    /// section 6, or a `;` comment), or `false` when `text` holds a line
    /// break and cannot stand on one line.
    fn outside_line(&mut self, lead: u8, text: &[u8]) -> bool {
        if text.iter().any(|&b| b == b'\n' || b == b'\r') {
            return false;
        }
        self.out.push(lead);
        self.out.extend_from_slice(text);
        self.out.push(b'\n');
        true
    }

    fn unwritten(&mut self, what: String) {
        *self.outside_unwritten.entry(what).or_insert(0) += 1;
    }

    /// Whether the text's layout (layout records, text patches) is kept.
    fn keeps_layout(&self) -> bool {
        !self.opts.strict_export && !self.opts.export
    }

    fn flush_tags(&mut self) {
        if !self.opts.strict_export {
            return;
        }
        let mut tags = std::mem::take(&mut self.tags);
        for (i, name) in STR_TAGS.iter().enumerate() {
            let value = tags
                .iter()
                .position(|(n, _)| n == name)
                .map(|p| tags.remove(p).1)
                .unwrap_or_else(|| match i {
                    2 => b"????.??.??".to_vec(),
                    6 => {
                        // `[Result "*"]`, the game's marker once known.
                        self.filled_result = Some(self.out.len() + b"[Result \"".len());
                        b"*".to_vec()
                    }
                    _ => b"?".to_vec(),
                });
            if self.writer.tag(&mut self.out, name, &value) {
                self.tags_with_newlines += 1;
            }
        }
        tags.sort();
        for (n, v) in &tags {
            if self.writer.tag(&mut self.out, n, v) {
                self.tags_with_newlines += 1;
            }
        }
    }

    fn tag_value(&mut self, name: &[u8], value: &[u8]) {
        if name == b"Result" {
            self.result_tag.clear();
            self.result_tag.extend_from_slice(value);
        }
        if self.opts.strict_export {
            self.tags.push((name.to_vec(), value.to_vec()));
        } else if self.writer.tag(&mut self.out, name, value) {
            self.tags_with_newlines += 1;
        }
    }
}

impl Decoder {
    /// After a move, null move, NAG or text comment: write the typed comment
    /// attached to it, if any.
    #[inline]
    fn after_anchor(&mut self) {
        // Most games have no commands record: the anchor is only counted.
        if !self.anchors.is_loaded() {
            self.anchors.skip(1);
            return;
        }
        self.typed_after_anchor();
    }

    #[inline(never)]
    fn typed_after_anchor(&mut self) {
        let text = &mut self.typed_text;
        if self
            .anchors
            .after_anchor_with(|c| {
                text.clear();
                render(c, text);
            })
            .is_some()
        {
            self.writer.comment(&mut self.out, &self.typed_text);
            self.typed_comments += 1;
            if self.count_commands {
                self.comment_stats.add(&self.typed_text, true);
            }
        }
        if !self.anchors.has_notes() {
            return;
        }
        match self
            .anchors
            .note_text_here(&self.note_line, &mut self.typed_text)
        {
            None => {}
            Some(Ok(note)) => {
                if self.count_commands {
                    self.comment_stats.add_note(note);
                }
                self.writer.comment(&mut self.out, &self.typed_text);
                self.typed_comments += 1;
                self.engine_notes += 1;
            }
            Some(Err(e)) => self.fail(ExtKind::ENGINE_NOTES, e),
        }
    }
}

/// How many comments were stored as typed commands and how many as text,
/// and which embedded commands each held.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommentStats {
    /// Comments stored as typed commands.
    pub typed: u64,
    /// Comments stored as engine notes.
    pub notes: u64,
    /// Move lists of engine notes kept as text (they did not replay).
    pub notes_moves_as_text: u64,
    /// Comments stored as text.
    pub text: u64,
    /// Of those, comments that look like engine output
    /// ([`crate::notes::is_engine_note`]) but do not follow a move, NAG or
    /// comment directly (before the first move, after a variation, a
    /// second note on one move).
    pub engine_like_text: u64,
    /// Per command name (`clk`, `eval`, …): `(in typed comments, in text comments)`.
    pub commands: std::collections::BTreeMap<Vec<u8>, (u64, u64)>,
}

impl CommentStats {
    fn add_note(&mut self, note: &pgc_core::ext::engine::EngineNote) {
        self.notes += 1;
        self.notes_moves_as_text += note
            .parts()
            .filter(|p| matches!(p, pgc_core::ext::engine::NotePart::MovesText(_)))
            .count() as u64;
    }

    fn add(&mut self, comment: &[u8], typed: bool) {
        if typed {
            self.typed += 1;
        } else {
            self.text += 1;
            self.engine_like_text += u64::from(crate::notes::is_engine_note(comment));
        }
        for part in crate::commands::parse_comment(comment) {
            if let crate::commands::Part::Command { raw, .. } = part {
                let name: Vec<u8> = raw
                    .iter()
                    .skip(2)
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .copied()
                    .collect();
                let e = self.commands.entry(name).or_default();
                if typed {
                    e.0 += 1;
                } else {
                    e.1 += 1;
                }
            }
        }
    }

    /// Adds another count.
    pub fn merge(&mut self, o: &CommentStats) {
        self.typed += o.typed;
        self.notes += o.notes;
        self.notes_moves_as_text += o.notes_moves_as_text;
        self.text += o.text;
        self.engine_like_text += o.engine_like_text;
        for (k, (a, b)) in &o.commands {
            let e = self.commands.entry(k.clone()).or_default();
            e.0 += a;
            e.1 += b;
        }
    }
}

fn side(pos: &VariantPosition) -> (u32, bool) {
    let (n, turn) = number_and_turn(pos);
    (n, turn == Color::White)
}

impl GameVisitor for Decoder {
    fn begin_game(&mut self, info: &GameInfo) -> ControlFlow<()> {
        self.span_start = self.out.len().saturating_sub(self.outside_bytes);
        self.outside_bytes = 0;
        self.has_patch = false;
        self.writer.begin_game(&mut self.out, Layout::EXPORT);
        self.result_tag.clear();
        self.termination = None;
        self.filled_result = None;
        self.tags.clear();
        self.in_movetext = false;
        self.anchors.begin_game();
        self.note_line.resume();
        self.game = info.index;
        self.ply = 0;
        ControlFlow::Continue(())
    }

    fn record(&mut self, offset: u64, _record: &RecordRef<'_>) {
        self.offset = offset;
    }

    /// A record between games, written where it stands: an escape string
    /// as its `%` line (as the encoder reads it), a `;` comment as its
    /// line; every other extension's payload is checked as in a game and
    /// counted in [`Decoder::outside_unwritten`].
    fn outside(&mut self, _offset: u64, record: &RecordRef<'_>) {
        let before = self.out.len();
        match *record {
            RecordRef::Extension {
                kind: ext::VERBATIM,
                payload,
            } => {
                self.extension_counts[usize::from(ext::VERBATIM)] += 1;
                if self.opts.strict_export {
                    self.unwritten(ExtKind::VERBATIM.to_string());
                } else {
                    // Text of its own (a game kept as read): the next
                    // game's text starts after it.
                    self.out.extend_from_slice(payload);
                    self.outside_bytes = 0;
                    return;
                }
            }
            RecordRef::Escape(text) if !self.outside_line(b'%', text) => {
                self.unwritten("0x0a escape holding a line break".into());
            }
            RecordRef::Extension { kind, payload } => {
                let kind = ExtKind(kind);
                self.extension_counts[usize::from(kind.0)] += 1;
                if let Err(e) = ext::check(kind, payload) {
                    self.fail(kind, e);
                } else if kind != ExtKind::LINE_COMMENT || !self.outside_line(b';', payload) {
                    self.unwritten(kind.to_string());
                }
            }
            _ => {}
        }
        self.outside_bytes += self.out.len() - before;
    }

    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        self.tag_value(name, value);
        ControlFlow::Continue(())
    }

    fn begin_moves(&mut self, start: &VariantPosition) -> ControlFlow<()> {
        let (n, turn) = number_and_turn(start);
        self.start_number = n;
        self.start_black = u32::from(turn == Color::Black);
        self.flush_tags();
        self.writer.begin_movetext(&mut self.out);
        self.in_movetext = true;
        ControlFlow::Continue(())
    }

    /// The move number comes from the ply's depth, so the walker need not
    /// copy the position before each move.
    fn wants_before(&self) -> bool {
        // Engine notes replay their move lists from the line's positions.
        self.anchors.has_notes()
    }

    #[inline]
    fn play(&mut self, ply: &Ply<'_>) -> ControlFlow<()> {
        if let Some(before) = ply.before
            && self.anchors.has_notes()
        {
            self.note_line.played(before, ply.after);
        }
        // Plies from the first move of White's first move number; the move
        // number advances (saturating, as shakmaty's) after each Black ply.
        let k = self.start_black + ply.depth.saturating_sub(1);
        let (n, white) = (self.start_number.saturating_add(k / 2), k.is_multiple_of(2));
        self.writer.san(&mut self.out, n, white, ply.san.as_bytes());
        self.ply = ply.depth;
        self.after_anchor();
        ControlFlow::Continue(())
    }

    fn null_move(&mut self, before: &VariantPosition, spelling: &[u8]) -> ControlFlow<()> {
        let (n, white) = side(before);
        let s: &[u8] = if spelling.is_empty() { b"--" } else { spelling };
        self.writer.san(&mut self.out, n, white, s);
        self.note_line.resume();
        self.ply = self.ply.saturating_add(1);
        self.after_anchor();
        ControlFlow::Continue(())
    }

    fn nag(&mut self, nag: u8) -> ControlFlow<()> {
        self.writer.nag(&mut self.out, u32::from(nag));
        self.after_anchor();
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        self.note_line.resume();
        self.writer.begin_variation(&mut self.out);
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self) -> ControlFlow<()> {
        self.note_line.resume();
        self.writer.end_variation(&mut self.out);
        ControlFlow::Continue(())
    }

    fn escape(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.writer.escape_line(&mut self.out, text);
        ControlFlow::Continue(())
    }

    fn extension(&mut self, kind: ExtKind, payload: &[u8]) -> ControlFlow<()> {
        self.extension_counts[usize::from(kind.0)] += 1;
        match kind {
            ExtKind::COMMENT => {
                if self.count_commands {
                    self.comment_stats.add(payload, false);
                }
                self.writer.comment(&mut self.out, payload);
                self.after_anchor();
            }
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
            ExtKind::JUNK => self.writer.junk(&mut self.out, payload, self.in_movetext),
            // Where it stands is the walker's rule (the game grammar).
            ExtKind::TEXT_PATCH => match ext::patch::check(payload) {
                Err(e) => self.fail(kind, e),
                Ok(()) if !self.keeps_layout() => {}
                Ok(()) => {
                    self.patch.clear();
                    self.patch.extend_from_slice(payload);
                    self.has_patch = true;
                    self.patch_offset = self.offset;
                }
            },
            ExtKind::VERBATIM if !self.opts.strict_export => self.out.extend_from_slice(payload),
            ExtKind::LINE_COMMENT => self.writer.line_comment(&mut self.out, payload),
            ExtKind::TERMINATION => {
                // The marker is written where the record stands (something
                // may follow it, such as a `;` comment).
                let o = simple::termination(payload).unwrap_or_else(|e| {
                    self.fail(kind, e);
                    Outcome::Missing
                });
                self.writer.outcome(&mut self.out, o.as_bytes());
                self.termination = Some(o);
            }
            ExtKind::LONG_NAG => {
                match simple::long_nag(payload) {
                    Ok(n) => self.writer.nag(&mut self.out, n),
                    Err(e) => self.fail(kind, e),
                }
                self.after_anchor();
            }
            // A long tag that decodes comes as a tag pair (`tag`).
            ExtKind::LONG_TAG => match simple::long_tag(payload) {
                Ok((name, value)) => self.tag_value(name, value),
                Err(e) => self.fail(kind, e),
            },
            ExtKind::LAYOUT => match Layout::from_payload(payload) {
                Ok(l) if self.keeps_layout() => self.writer.set_layout(&mut self.out, l),
                Ok(_) => {}
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
        let mut marker: &[u8] = match self.termination {
            Some(_) => b"",
            // No termination record: the marker is the Result tag (the
            // encoder writes the record whenever they differ); a Result tag
            // that is no marker means the game had none.
            None => Outcome::from_bytes(&self.result_tag).map_or(&b""[..], |o| o.as_bytes()),
        };
        let written = matches!(self.termination, Some(o) if o != Outcome::Missing);
        if self.opts.strict_export && marker.is_empty() && !written {
            // The export format ends every game with a marker (8.2.6), as
            // the Seven Tag Roster's Result defaults to `*`.
            marker = b"*";
        }
        self.writer.outcome(&mut self.out, marker);
        if let Some(at) = self.filled_result.take() {
            // The Result tag strict export filled in agrees with the
            // marker (8.2.6).
            let o = self.termination.map_or(marker, |o| o.as_bytes());
            if !o.is_empty() && o != b"*" && self.out.get(at) == Some(&b'*') {
                self.out.splice(at..at + 1, o.iter().copied());
            }
        }
        self.writer.end_game(&mut self.out);
        if self.has_patch {
            self.has_patch = false;
            let start = self.span_start.min(self.out.len());
            self.rendered.clear();
            self.rendered.extend_from_slice(&self.out[start..]);
            self.out.truncate(start);
            if let Err(e) = ext::patch::apply(&self.rendered, &self.patch, &mut self.out) {
                self.out.truncate(start);
                self.out.extend_from_slice(&self.rendered);
                // Placed at the patch's record, not at the game's end.
                self.offset = self.patch_offset;
                self.fail(ExtKind::TEXT_PATCH, e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::error::Error as ConvertError;
    use crate::jsonl::JsonlWriter;
    use pgc_core::GameWalker;
    use pgc_core::ext::{ExtKind, Found};

    /// A game with a commands record and a termination record, encoded,
    /// and the offset of its commands record (right after 0x05).
    fn game() -> Vec<u8> {
        let pgn = b"[Result \"*\"]\n\n1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:02:59] } 1-0\n\n";
        let mut pgc = Vec::new();
        crate::pgn_to_pgc(&pgn[..], &mut pgc, None, &Default::default()).unwrap();
        assert_eq!(&pgc[..3], [0x05, 0x80, 0x10]);
        pgc
    }

    #[test]
    fn a_corrupt_commands_payload_is_an_error_not_a_lost_comment() {
        let mut pgc = game();
        let mut back = Vec::new();
        crate::pgc_to_pgn(&pgc[..], &mut back, &Default::default()).unwrap();
        assert!(back.windows(5).any(|w| w == b"[%clk"));
        // Template count 0 (payload byte 0, after 0x80, kind, length).
        pgc[4] = 0;
        let e = match crate::pgc_to_pgn(&pgc[..], &mut Vec::new(), &Default::default()) {
            Err(ConvertError::Payload(e)) => e,
            other => panic!("{other:?}"),
        };
        assert_eq!((e.offset, e.game, e.kind), (1, 0, ExtKind::COMMANDS));
        assert_eq!((e.error.at, e.error.found), (0, Found::Value(0)));
        // JSON Lines: the same error.
        let mut w = JsonlWriter::new();
        let mut walker = GameWalker::new(&pgc[..]);
        assert!(walker.walk_game(&mut w).unwrap());
        assert_eq!(w.take_error(), Some(e));
    }

    #[test]
    fn a_corrupt_termination_is_an_error_at_its_record() {
        let mut pgc = game();
        let at = pgc.len() - 5; // 0x80 0x03 0x01 code 0x06
        assert_eq!(pgc[at..at + 3], [0x80, 0x03, 0x01]);
        pgc[at + 3] = 7;
        let e = match crate::pgc_to_pgn(&pgc[..], &mut Vec::new(), &Default::default()) {
            Err(ConvertError::Payload(e)) => e,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            (e.offset, e.kind, e.ply),
            (at as u64, ExtKind::TERMINATION, 2)
        );
        assert_eq!(e.error.found, Found::Byte(7));
        assert!(e.to_string().starts_with(&format!(
            "byte {at}, game 1, ply 2, extension 0x03 termination"
        )));
    }
}
