//! The layout payload (kind 0x07): the few choices of text layout that a
//! PGN writer makes, kept so that files in export or Lichess style
//! round-trip byte for byte (`spec/extensions.md`, Layout).
//!
//! Stored per game, and only when the game differs from [`Layout::EXPORT`]
//! (so a file in the standard's export format carries none). Per game rather
//! than per file so that concatenated PGC files decode to the concatenated
//! PGN. Which layout a PGN text has is decided by the encoder (pgn-bridge).

use super::error::{Found, PayloadError};
use crate::item::put_varint;

/// How a game's text is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Lines end in CR LF instead of LF.
    pub crlf: bool,
    /// Lines end in a CR alone (classic Mac OS text) instead of LF; never
    /// set with `crlf`.
    pub cr: bool,
    /// A UTF-8 byte-order mark precedes the game (first game of a file).
    pub bom: bool,
    /// Longest movetext line, in bytes; 0 means no wrapping (all movetext on
    /// one line, as Lichess writes it). The standard's export format is 79
    /// (section 8.2.1: "less than 80").
    pub width: u32,
    /// Write `N...` before a black move that follows a comment (section
    /// 8.2.2.2). Older Lichess exports do not.
    pub number_after_comment: bool,
    /// Write NAGs 1–6 as suffix glyphs (`!`, `?`, `!!`, `??`, `!?`, `?!`)
    /// glued to the move, instead of `$1`…`$6`.
    pub glyphs: bool,
    /// A space before the first movetext token (Lichess writes ` 0-1` for a
    /// game without moves).
    pub lead_space: bool,
    /// Start a new line before every white move number after the game's
    /// first move, whatever the width (one move pair per line, as Lichess's
    /// annotated exports do).
    pub move_per_line: bool,
    /// The termination marker stays on the last line whatever the width
    /// (TWIC and ChessBase exports let it run past the width).
    pub result_nowrap: bool,
    /// Two spaces before the termination marker (ChessBase, pgnmentor).
    pub result_gap: bool,
    /// No space between a move number and its move (`1.e4`, pgnmentor).
    pub glued_numbers: bool,
    /// A white move and the black reply are one unit for line breaking
    /// (`12.O-O-O fxe5` never split; pgnmentor).
    pub pair_words: bool,
    /// Start a new line before every move, white or black, whatever the
    /// width (one ply per line, as early TCEC archives write it).
    pub ply_per_line: bool,
    /// A comment right after a move stays on the move's line whatever the
    /// width (TCEC archives keep each engine comment, hundreds of bytes,
    /// with its move).
    pub comment_glued: bool,
    /// Lines run past `width`: a word starts a new line only once the line
    /// holds `width` bytes or more (ChessBase's exports, as pgnmentor
    /// serves them, break once a line holds 72), instead of where the word
    /// would make it longer than `width`.
    pub overrun: bool,
    /// A checkmating move ends in `+`, not `#` (ChessBase's exports, as
    /// pgnmentor serves them).
    pub mate_as_check: bool,
    /// Write `N...` before a black move that follows a NAG (section
    /// 8.2.2.2: "intervening annotation"). ChessBase's exports do not.
    pub number_after_nag: bool,
    /// Spaces (0 to 3) before the line end that starts a move's line under
    /// `ply_per_line` or `move_per_line` (early TCEC archives end each such
    /// line with two).
    pub line_end_spaces: u8,
    /// Newlines after the last movetext token (2: the result line and the
    /// blank line of section 8.2.1).
    pub trailer: u8,
}

impl Layout {
    /// The export format of the 1994 standard (sections 3.2 and 8).
    pub const EXPORT: Layout = Layout {
        crlf: false,
        cr: false,
        bom: false,
        width: 79,
        number_after_comment: true,
        glyphs: false,
        lead_space: false,
        move_per_line: false,
        result_nowrap: false,
        result_gap: false,
        glued_numbers: false,
        pair_words: false,
        ply_per_line: false,
        comment_glued: false,
        overrun: false,
        mate_as_check: false,
        number_after_nag: true,
        line_end_spaces: 0,
        trailer: 2,
    };

    /// The newline bytes.
    pub const fn newline(&self) -> &'static [u8] {
        match (self.crlf, self.cr) {
            (true, _) => b"\r\n",
            (false, true) => b"\r",
            (false, false) => b"\n",
        }
    }

    /// The payload of a LAYOUT extension record: flags, width (LEB128), trailer.
    pub fn to_payload(&self, out: &mut Vec<u8>) {
        let flags = u8::from(self.crlf)
            | u8::from(self.bom) << 1
            | u8::from(!self.number_after_comment) << 2
            | u8::from(self.glyphs) << 3
            | u8::from(self.lead_space) << 4
            | u8::from(self.move_per_line) << 5
            | u8::from(self.result_nowrap) << 6
            | u8::from(self.result_gap) << 7;
        out.push(flags);
        put_varint(out, self.width);
        out.push(self.trailer);
        // A second flags byte, only when one of its flags or of the third
        // byte's is set; the third only when one of its flags is.
        let flags3 = u8::from(self.mate_as_check) | u8::from(!self.number_after_nag) << 1;
        let flags2 = u8::from(self.glued_numbers)
            | u8::from(self.pair_words) << 1
            | u8::from(self.ply_per_line) << 2
            | (self.line_end_spaces & 3) << 3
            | u8::from(self.cr && !self.crlf) << 5
            | u8::from(self.comment_glued) << 6
            | u8::from(self.overrun) << 7;
        if flags2 != 0 || flags3 != 0 {
            out.push(flags2);
        }
        if flags3 != 0 {
            out.push(flags3);
        }
    }

    /// Reads a LAYOUT payload: flags, width (LEB128 of at most 32 bits),
    /// trailer, an optional second flags byte (bit 5, a CR alone, only
    /// without bit 0 of the first, CR LF) and after it an optional third
    /// (only bits 0 and 1 used); nothing after them.
    ///
    /// # Errors
    /// A [`PayloadError`] at the first byte that does not fit.
    pub fn from_payload(payload: &[u8]) -> Result<Layout, PayloadError> {
        let byte = |at: usize, expected: &'static str| {
            payload.get(at).copied().ok_or(PayloadError {
                at,
                expected,
                found: Found::End,
            })
        };
        let flags = byte(0, "the flags byte")?;
        let (width, at) = super::simple::varint32(payload, 1)?;
        let trailer = byte(at, "the trailer byte")?;
        let flags2 = match payload.get(at + 1) {
            None => 0,
            Some(&f) if !(f & 0x20 != 0 && flags & 1 != 0) => f,
            Some(&f) => {
                return Err(PayloadError {
                    at: at + 1,
                    expected: "a second flags byte with bit 5 (CR alone) only \
                               without bit 0 of the first (CR LF)",
                    found: Found::Byte(f),
                });
            }
        };
        let flags3 = match payload.get(at + 2) {
            None => 0,
            Some(&f) if f & !3 == 0 => f,
            Some(&f) => {
                return Err(PayloadError {
                    at: at + 2,
                    expected: "a third flags byte with only bits 0 and 1 set",
                    found: Found::Byte(f),
                });
            }
        };
        if payload.len() > at + 3 {
            return Err(PayloadError {
                at: at + 3,
                expected: "the end of the payload after the flags",
                found: Found::Trailing(payload.len() - at - 3),
            });
        }
        Ok(Layout {
            crlf: flags & 1 != 0,
            cr: flags2 & 0x20 != 0,
            bom: flags & 2 != 0,
            number_after_comment: flags & 4 == 0,
            glyphs: flags & 8 != 0,
            lead_space: flags & 16 != 0,
            move_per_line: flags & 32 != 0,
            result_nowrap: flags & 64 != 0,
            result_gap: flags & 128 != 0,
            glued_numbers: flags2 & 1 != 0,
            pair_words: flags2 & 2 != 0,
            ply_per_line: flags2 & 4 != 0,
            comment_glued: flags2 & 0x40 != 0,
            overrun: flags2 & 0x80 != 0,
            mate_as_check: flags3 & 1 != 0,
            number_after_nag: flags3 & 2 == 0,
            line_end_spaces: (flags2 >> 3) & 3,
            width,
            trailer,
        })
    }
}

impl Default for Layout {
    fn default() -> Self {
        Layout::EXPORT
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ext::{ExtKind, check};

    #[test]
    fn payload_round_trip() {
        let l = Layout {
            crlf: true,
            cr: false,
            bom: true,
            width: 0,
            number_after_comment: false,
            glyphs: true,
            lead_space: true,
            move_per_line: true,
            result_nowrap: true,
            result_gap: true,
            glued_numbers: true,
            pair_words: true,
            ply_per_line: true,
            comment_glued: true,
            overrun: true,
            mate_as_check: true,
            number_after_nag: false,
            line_end_spaces: 2,
            trailer: 1,
        };
        let mut p = Vec::new();
        l.to_payload(&mut p);
        assert_eq!(p, [0b1111_1111, 0, 1, 0b1101_0111, 3]);
        assert_eq!(Layout::from_payload(&p), Ok(l));
        let mut p = Vec::new();
        Layout {
            glued_numbers: false,
            pair_words: false,
            ply_per_line: false,
            comment_glued: false,
            overrun: false,
            mate_as_check: false,
            number_after_nag: true,
            line_end_spaces: 0,
            ..l
        }
        .to_payload(&mut p);
        assert_eq!(p, [0b1111_1111, 0, 1]);
        assert_eq!(
            Layout::from_payload(&p),
            Ok(Layout {
                glued_numbers: false,
                pair_words: false,
                ply_per_line: false,
                comment_glued: false,
                overrun: false,
                mate_as_check: false,
                number_after_nag: true,
                line_end_spaces: 0,
                ..l
            })
        );
        // The third byte alone: a second of zero before it.
        let mate = Layout {
            mate_as_check: true,
            ..Layout::EXPORT
        };
        let mut p = Vec::new();
        mate.to_payload(&mut p);
        assert_eq!(p, [0, 79, 2, 0, 1]);
        assert_eq!(Layout::from_payload(&p), Ok(mate));
        assert_eq!(Layout::from_payload(&[1]).unwrap_err().at, 1);
        // A CR alone: bit 5 of the second byte, and a newline of one CR.
        let cr = Layout {
            cr: true,
            ..Layout::EXPORT
        };
        let mut p = Vec::new();
        cr.to_payload(&mut p);
        assert_eq!(p, [0, 79, 2, 0x20]);
        assert_eq!(Layout::from_payload(&p), Ok(cr));
        assert_eq!(cr.newline(), b"\r");
        assert_eq!(Layout::EXPORT.newline(), b"\n");
        assert_eq!(l.newline(), b"\r\n");
    }

    #[test]
    fn malformed_payloads_are_refused_where_they_go_wrong() {
        let e = |p: &[u8]| {
            let e = Layout::from_payload(p).unwrap_err();
            assert_eq!(check(ExtKind::LAYOUT, p), Err(e));
            (e.at, e.found)
        };
        assert_eq!(e(&[]), (0, Found::End));
        assert_eq!(e(&[0]), (1, Found::End));
        assert_eq!(e(&[0, 0x80]), (2, Found::End));
        assert_eq!(e(&[0, 79]), (2, Found::End));
        assert_eq!(
            Layout::from_payload(&[0, 72, 2, 0x80]).map(|l| (l.overrun, l.width)),
            Ok((true, 72))
        );
        // CR alone and CR LF at once.
        assert_eq!(e(&[1, 79, 2, 0x20]), (3, Found::Byte(0x20)));
        assert_eq!(e(&[0, 79, 2, 1, 4]), (4, Found::Byte(4)));
        assert_eq!(e(&[0, 79, 2, 1, 0, 0]), (5, Found::Trailing(1)));
        assert_eq!(
            e(&[0, 0xff, 0xff, 0xff, 0xff, 0xff, 2]),
            (5, Found::Byte(0xff))
        );
        // A width over 32 bits.
        assert_eq!(e(&[0, 0xff, 0xff, 0xff, 0xff, 0x7f, 2]).0, 1);
        assert_eq!(
            Layout::from_payload(&[0, 0xc8, 0x01, 2]).map(|l| l.width),
            Ok(200)
        );
    }
}
