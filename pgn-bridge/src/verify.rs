//! `verify` with the rendering: pgc-core's [`Verifier`], and for each game
//! with a text patch, the decoder's rendering of it with the patch applied,
//! so that what verifies also decodes.

use crate::decode::{DecodeOptions, Decoder};
use pgc_core::{GameWalker, Limits, Marker, Problem, Reader, RenderCheck, Report, Verifier};
use std::io::{self, Read};

/// The decoder as a [`RenderCheck`]: renders a text-patched game and
/// applies its patch, as `pgc decode` does.
pub struct Renderer {
    decoder: Decoder,
}

impl Default for Renderer {
    fn default() -> Self {
        Renderer {
            decoder: Decoder::new(DecodeOptions::default()),
        }
    }
}

impl RenderCheck for Renderer {
    fn check(&mut self, pgc: &[u8], limits: Limits) -> Option<Problem> {
        let mut walker = GameWalker::from_reader(Reader::with_limits(pgc, limits));
        loop {
            let walked = walker.walk_game(&mut self.decoder);
            self.decoder.text().clear();
            if let Some(e) = self.decoder.take_error() {
                return Some(Problem {
                    offset: e.offset,
                    game: None,
                    ply: Some(e.ply),
                    marker: Some(Marker::Extension),
                    expected: e.error.expectation(e.kind),
                    found: e.error.found.to_string(),
                });
            }
            match walked {
                Ok(true) => {}
                Ok(false) => return None,
                Err(e) => {
                    return Some(Problem {
                        offset: e.offset,
                        game: None,
                        ply: Some(e.ply),
                        marker: e.marker,
                        expected: "a game the decoder renders".into(),
                        found: e.kind.to_string(),
                    });
                }
            }
        }
    }
}

/// Verifies a whole PGC input with `verifier`, rendering each text-patched
/// game as the decoder does: a patch whose edits do not fit its game's
/// rendering is a problem here as it is an error for `pgc decode`.
///
/// ```
/// use pgc_core::Verifier;
/// let report = pgn_bridge::verify(&Verifier::new(), &[0x05u8, 0x06][..]).unwrap();
/// assert!(report.is_ok());
/// ```
///
/// # Errors
/// Only I/O errors of `input`; every problem of the data is in the
/// [`Report`].
pub fn verify<R: Read>(verifier: &Verifier, input: R) -> io::Result<Report> {
    verifier.verify_rendering(input, &mut Renderer::default())
}

#[cfg(test)]
mod tests {
    use super::verify;
    use crate::error::Error as ConvertError;
    use pgc_core::ext::{self, ExtKind};
    use pgc_core::game::GameErrorKind;
    use pgc_core::{Reader, RecordRef, Verifier, WalkErrorKind};

    /// A game in export format, then an escape line, then a game whose
    /// irregular spacing needs a text patch, encoded.
    const PGN: &[u8] = b"[Event \"a\"]\n\n1. e4 e5 *\n\n%x\n[Event \"b\"]\n\n1.d4  d5   *\n";

    /// The records of `pgc` again, each text patch's payload replaced by
    /// `patch` (or the record left out) and `extra` records put after it;
    /// with the offset of the (last) patch record.
    fn rebuild(pgc: &[u8], patch: Option<&[u8]>, extra: &[RecordRef<'_>]) -> (Vec<u8>, u64) {
        let mut r = Reader::new(pgc);
        let (mut out, mut at) = (Vec::new(), None);
        while let Some((_, rec)) = r.next_record().unwrap() {
            match rec {
                RecordRef::Extension {
                    kind: ext::TEXT_PATCH,
                    ..
                } => {
                    at = Some(out.len() as u64);
                    if let Some(payload) = patch {
                        let patched = RecordRef::Extension {
                            kind: ext::TEXT_PATCH,
                            payload,
                        };
                        patched.write_to(&mut out).unwrap();
                    }
                    for e in extra {
                        e.write_to(&mut out).unwrap();
                    }
                }
                other => other.write_to(&mut out).unwrap(),
            }
        }
        (out, at.expect("the second game has a text patch"))
    }

    fn encoded() -> Vec<u8> {
        let mut pgc = Vec::new();
        crate::pgn_to_pgc(PGN, &mut pgc, None, &Default::default()).unwrap();
        pgc
    }

    /// A game in export format (no patch), an escape record between games,
    /// then a game with a text patch.
    fn file() -> Vec<u8> {
        let mut pgc = Vec::new();
        let plain = b"[Event \"a\"]\n\n1. e4 e5 *\n\n";
        crate::pgn_to_pgc(&plain[..], &mut pgc, None, &Default::default()).unwrap();
        RecordRef::Escape(b"x").write_to(&mut pgc).unwrap();
        let patched = b"[Event \"b\"]\n\n1.d4  d5   *\n";
        crate::pgn_to_pgc(&patched[..], &mut pgc, None, &Default::default()).unwrap();
        pgc
    }

    fn decode_error(pgc: &[u8]) -> pgc_core::ext::ExtError {
        match crate::pgc_to_pgn(pgc, &mut Vec::new(), &Default::default()) {
            Err(ConvertError::Payload(e)) => e,
            other => panic!("decode gave {other:?}"),
        }
    }

    #[test]
    fn the_encoded_file_verifies_and_decodes_byte_for_byte() {
        let pgc = encoded();
        let mut back = Vec::new();
        crate::pgc_to_pgn(&pgc[..], &mut back, &Default::default()).unwrap();
        assert_eq!(String::from_utf8_lossy(&back), String::from_utf8_lossy(PGN));
        let report = verify(&Verifier::new(), &pgc[..]).unwrap();
        assert!(report.is_ok(), "{:?}", report.problems);
        assert_eq!(report.games, 2);
    }

    #[test]
    fn a_patch_copying_past_its_rendering_is_a_problem_where_decode_fails() {
        // Form 0, one edit: copy 10,000 bytes (LEB128 90 4e), skip none,
        // insert none; the game renders to far fewer bytes.
        let (pgc, at) = rebuild(&file(), Some(&[0, 0x90, 0x4e, 0, 0]), &[]);
        let e = decode_error(&pgc);
        assert_eq!((e.offset, e.game, e.kind), (at, 1, ExtKind::TEXT_PATCH));
        // pgc-core alone cannot render the game: it finds nothing.
        assert!(Verifier::new().verify(&pgc[..]).unwrap().is_ok());
        let report = verify(&Verifier::new(), &pgc[..]).unwrap();
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        let p = &report.problems[0];
        assert_eq!((p.offset, p.game), (at, Some(1)));
        assert_eq!(p.found, e.error.found.to_string());
        assert!(p.expected.contains("text-patch"), "{}", p.expected);
    }

    #[test]
    fn a_second_or_late_text_patch_is_refused_by_verify_and_decode() {
        let pgc = file();
        let mut payload = None;
        let mut r = Reader::new(&pgc[..]);
        while let Some((_, rec)) = r.next_record().unwrap() {
            if let RecordRef::Extension {
                kind: ext::TEXT_PATCH,
                payload: p,
            } = rec
            {
                payload = Some(p.to_vec());
            }
        }
        let payload = payload.unwrap();
        let second = RecordRef::Extension {
            kind: ext::TEXT_PATCH,
            payload: &payload,
        };
        let (twice, at) = rebuild(&pgc, Some(&payload), &[second]);
        let second_at = at + (twice.len() - pgc.len()) as u64;
        // The game's only patch after its first tag.
        let tag = RecordRef::TagPair {
            name: b"Round",
            value: b"1",
        };
        let mut tag_bytes = Vec::new();
        tag.write_to(&mut tag_bytes).unwrap();
        let (late, at) = rebuild(&pgc, None, &[tag, second]);
        let late_at = at + tag_bytes.len() as u64;
        for (pgc, at, second, what) in [
            (&twice, second_at, true, "a second text patch in game 2"),
            (
                &late,
                late_at,
                false,
                "a text patch after game 2's tags or movetext began",
            ),
        ] {
            let e = match crate::pgc_to_pgn(&pgc[..], &mut Vec::new(), &Default::default()) {
                Err(ConvertError::Walk(e)) => e,
                other => panic!("decode gave {other:?}"),
            };
            let WalkErrorKind::Structure(g) = &e.kind else {
                panic!("{e}")
            };
            assert_eq!((e.offset, e.game), (at, 1));
            assert_eq!(g.kind, GameErrorKind::MisplacedPatch { second });
            for report in [
                Verifier::new().verify(&pgc[..]).unwrap(),
                verify(&Verifier::new(), &pgc[..]).unwrap(),
            ] {
                assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
                assert_eq!(report.problems[0].offset, at);
                assert_eq!(report.problems[0].found, what);
            }
        }
    }
}
