//! The small payloads: termination (0x03), long tag (0x05), long NAG (0x06),
//! move spelling (0x08) and wide move (0x13).

use super::error::{Found, PayloadError};
use super::kind::Outcome;
use crate::item::put_varint;

/// Reads an unsigned LEB128 of at most five bytes (a `u32`) at `at`.
pub(super) fn varint32(payload: &[u8], at: usize) -> Result<(u32, usize), PayloadError> {
    let mut v = 0u64;
    for i in 0..5 {
        let Some(&b) = payload.get(at + i) else {
            return Err(PayloadError {
                at: at + i,
                expected: "a LEB128 byte",
                found: Found::End,
            });
        };
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return u32::try_from(v)
                .map(|v| (v, at + i + 1))
                .map_err(|_| PayloadError {
                    at,
                    expected: "a LEB128 value of at most 32 bits",
                    found: Found::Value(v),
                });
        }
    }
    Err(PayloadError {
        at: at + 4,
        expected: "the last byte of a LEB128 of at most five bytes",
        found: Found::Byte(payload[at + 4]),
    })
}

fn end(payload: &[u8], at: usize, what: &'static str) -> Result<(), PayloadError> {
    if at == payload.len() {
        Ok(())
    } else {
        Err(PayloadError {
            at,
            expected: what,
            found: Found::Trailing(payload.len() - at),
        })
    }
}

/// A termination payload: one outcome code, 0 to 4.
///
/// # Errors
/// An empty payload, an unknown code, or bytes after the code.
pub fn termination(payload: &[u8]) -> Result<Outcome, PayloadError> {
    let Some(&c) = payload.first() else {
        return Err(PayloadError {
            at: 0,
            expected: "an outcome code 0..=4",
            found: Found::End,
        });
    };
    let o = Outcome::from_code(c).ok_or(PayloadError {
        at: 0,
        expected: "an outcome code 0..=4",
        found: Found::Byte(c),
    })?;
    end(payload, 1, "the end of the payload after the outcome code")?;
    Ok(o)
}

/// A wide-move payload: an ordinal of 256 or more, two bytes big-endian.
///
/// # Errors
/// Fewer or more than two bytes, or an ordinal below 256 (which a move-run
/// byte holds).
pub fn wide_move(payload: &[u8]) -> Result<u16, PayloadError> {
    let [hi, lo] = *payload else {
        return Err(PayloadError {
            at: payload.len().min(2),
            expected: "a two-byte ordinal",
            found: if payload.len() < 2 {
                Found::End
            } else {
                Found::Trailing(payload.len() - 2)
            },
        });
    };
    let ordinal = u16::from_be_bytes([hi, lo]);
    if ordinal < 256 {
        return Err(PayloadError {
            at: 0,
            expected: "an ordinal of 256 or more (a smaller one is a move-run byte)",
            found: Found::Value(ordinal.into()),
        });
    }
    Ok(ordinal)
}

/// The payload of a termination record.
pub const fn termination_payload(o: Outcome) -> [u8; 1] {
    [o as u8]
}

/// A long tag payload: LEB128 name length *n*, the name, the value. Returns
/// `(name, value)`.
///
/// # Errors
/// A bad LEB128, or a name length beyond the payload.
pub fn long_tag(payload: &[u8]) -> Result<(&[u8], &[u8]), PayloadError> {
    let (n, at) = varint32(payload, 0)?;
    let rest = &payload[at..];
    if n as usize > rest.len() {
        return Err(PayloadError {
            at: 0,
            expected: "a name length within the payload",
            found: Found::Value(u64::from(n)),
        });
    }
    Ok(rest.split_at(n as usize))
}

/// Appends a long tag payload.
pub fn long_tag_payload(name: &[u8], value: &[u8], out: &mut Vec<u8>) {
    put_varint(out, name.len() as u64);
    out.extend_from_slice(name);
    out.extend_from_slice(value);
}

/// A long NAG payload: one LEB128 value of 256 or more (smaller NAGs are
/// 0x07 records).
///
/// # Errors
/// A bad LEB128, a value below 256, or bytes after the value.
pub fn long_nag(payload: &[u8]) -> Result<u32, PayloadError> {
    let (n, at) = varint32(payload, 0)?;
    if n < 256 {
        return Err(PayloadError {
            at: 0,
            expected: "a NAG of 256 or more",
            found: Found::Value(u64::from(n)),
        });
    }
    end(payload, at, "the end of the payload after the NAG")?;
    Ok(n)
}

/// A move spelling payload: the move as written, not empty.
///
/// # Errors
/// An empty payload.
pub fn move_spelling(payload: &[u8]) -> Result<(), PayloadError> {
    if payload.is_empty() {
        return Err(PayloadError {
            at: 0,
            expected: "the move as written",
            found: Found::End,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ext::{ExtKind, check};

    #[test]
    fn termination_round_trip_and_refusals() {
        for o in [
            Outcome::Missing,
            Outcome::WhiteWins,
            Outcome::BlackWins,
            Outcome::Draw,
            Outcome::Unknown,
        ] {
            assert_eq!(termination(&termination_payload(o)), Ok(o));
        }
        let e = termination(&[5]).unwrap_err();
        assert_eq!((e.at, e.found), (0, Found::Byte(5)));
        assert_eq!(termination(&[]).unwrap_err().found, Found::End);
        let e = termination(&[1, 0]).unwrap_err();
        assert_eq!((e.at, e.found), (1, Found::Trailing(1)));
        assert_eq!(check(ExtKind::TERMINATION, &[1, 0]), Err(e));
    }

    #[test]
    fn long_tag_round_trip_and_refusals() {
        let name = [b'N'; 300];
        let mut p = Vec::new();
        long_tag_payload(&name, b"value", &mut p);
        assert_eq!(long_tag(&p), Ok((&name[..], &b"value"[..])));
        let mut p = Vec::new();
        long_tag_payload(b"", b"", &mut p);
        assert_eq!(long_tag(&p), Ok((&b""[..], &b""[..])));
        // A name length beyond the payload.
        let e = long_tag(&[4, b'a', b'b']).unwrap_err();
        assert_eq!((e.at, e.found), (0, Found::Value(4)));
        // A LEB128 that runs off the end.
        let e = long_tag(&[0x80, 0x80]).unwrap_err();
        assert_eq!((e.at, e.found), (2, Found::End));
        // Five bytes and still a continuation bit.
        let e = long_tag(&[0xff; 6]).unwrap_err();
        assert_eq!((e.at, e.found), (4, Found::Byte(0xff)));
        // More than 32 bits.
        let e = long_tag(&[0xff, 0xff, 0xff, 0xff, 0x7f]).unwrap_err();
        assert_eq!(e.at, 0);
        assert_eq!(check(ExtKind::LONG_TAG, &[4, b'a']).unwrap_err().at, 0);
    }

    #[test]
    fn long_nag_round_trip_and_refusals() {
        for n in [256u32, 300, 65_535, u32::MAX] {
            let mut p = Vec::new();
            put_varint(&mut p, n);
            assert_eq!(long_nag(&p), Ok(n));
        }
        let e = long_nag(&[7]).unwrap_err();
        assert_eq!((e.at, e.found), (0, Found::Value(7)));
        let e = long_nag(&[0xac, 0x02, 0]).unwrap_err();
        assert_eq!((e.at, e.found), (2, Found::Trailing(1)));
        let e = long_nag(&[0xac]).unwrap_err();
        assert_eq!((e.at, e.found), (1, Found::End));
        assert_eq!(check(ExtKind::LONG_NAG, &[7]).unwrap_err().at, 0);
    }

    #[test]
    fn wide_moves_hold_two_bytes_of_256_or_more() {
        assert_eq!(wide_move(&[0x01, 0x29]), Ok(297));
        assert_eq!(wide_move(&[0xff, 0xff]), Ok(65535));
        let e = wide_move(&[0x00, 0xff]).unwrap_err();
        assert_eq!((e.at, e.found), (0, Found::Value(255)));
        assert_eq!(wide_move(&[0x01]).unwrap_err().found, Found::End);
        assert_eq!(wide_move(&[]).unwrap_err().found, Found::End);
        let e = wide_move(&[1, 2, 3]).unwrap_err();
        assert_eq!((e.at, e.found), (2, Found::Trailing(1)));
        assert!(check(ExtKind::WIDE_MOVE, &[0, 1]).is_err());
        assert_eq!(ExtKind::WIDE_MOVE.to_string(), "0x13 wide-move");
        assert!(ExtKind::WIDE_MOVE.is_known() && ExtKind::WIDE_MOVE.is_anchor());
    }

    #[test]
    fn move_spelling_and_free_kinds() {
        assert!(move_spelling(b"0-0").is_ok());
        assert_eq!(move_spelling(b"").unwrap_err().found, Found::End);
        assert_eq!(check(ExtKind::MOVE_SPELLING, b"").unwrap_err().at, 0);
        for k in [
            ExtKind::COMMENT,
            ExtKind::LINE_COMMENT,
            ExtKind::NULL_MOVE,
            ExtKind::JUNK,
            ExtKind::EVALS,
            ExtKind::COMMAND_COMMENT,
            ExtKind(0x7f),
        ] {
            assert!(check(k, b"").is_ok() && check(k, &[0xff, 0]).is_ok(), "{k}");
        }
        assert!(!ExtKind(0x7f).is_known());
        assert!(ExtKind::COMMANDS.is_known() && ExtKind::JUNK.is_known());
        assert_eq!(ExtKind::from_byte(0x10), ExtKind::COMMANDS);
        assert_eq!(ExtKind::COMMANDS.as_byte(), 0x10);
        assert_eq!(ExtKind::COMMANDS.to_string(), "0x10 commands");
    }
}
