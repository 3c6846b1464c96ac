//! The text patch (kind 0x0b): edits that turn the decoder's rendering of
//! a game into the game's text as it was read, byte for byte.
//!
//! ```text
//! patch   = form:int-1 body
//! form 0  = edit*          edit = copy:LEB128 delete:LEB128 insert:LEB128 bytes[insert]
//! form 1  = bytes          the whole text: the rendering is dropped
//! ```
//!
//! An edit copies `copy` bytes of the rendering, skips `delete` more and
//! writes the `insert` bytes that follow; the rendering after the last edit
//! is copied. The encoder finds the edits with [`diff`]: a forward scan
//! that, where the two texts part, takes the nearest place where they agree
//! again on [`SYNC`] bytes, so a changed line break or space costs one edit
//! of a few bytes.

use super::error::{Found, PayloadError};
use super::simple::varint32;
use crate::item::put_varint;

/// Bytes on which the two texts must agree for the scan to take them as
/// back in step.
pub const SYNC: usize = 4;

/// Where a game's text patch stands, as readers require it (for their
/// messages): one per game, among the records that lead it.
pub const PLACE: &str = "at most one text patch in a game, after its 0x05 and any layout, commands and engine-notes records, before anything with text (spec/extensions.md)";

/// How far apart (bytes of rendering skipped plus bytes of text inserted)
/// the scan looks for the two texts to agree again; beyond it the rest of
/// the text is one edit.
const REACH: usize = 96;

/// Form 0: a list of edits.
const EDITS: u8 = 0;
/// Form 1: the whole text.
const WHOLE: u8 = 1;

/// Writes the patch that turns `base` into `target` into `out` (cleared
/// first). An empty `out` means `base` is `target` already.
pub fn diff(base: &[u8], target: &[u8], out: &mut Vec<u8>) {
    out.clear();
    if base == target {
        return;
    }
    out.push(EDITS);
    let (mut i, mut j) = (0usize, 0usize);
    // Start of the rendering not yet copied or deleted.
    let mut copied = 0usize;
    loop {
        let same = common_prefix(&base[i..], &target[j..]);
        i += same;
        j += same;
        if i == base.len() && j == target.len() {
            break;
        }
        let (del, ins) = resync(&base[i..], &target[j..]);
        put_varint(out, (i - copied) as u64);
        put_varint(out, del as u64);
        put_varint(out, ins as u64);
        out.extend_from_slice(&target[j..j + ins]);
        i += del;
        j += ins;
        copied = i;
        if i == base.len() && j == target.len() {
            break;
        }
    }
    // A patch longer than the text is the text.
    if out.len() > target.len() + 1 {
        whole(target, out);
    }
}

/// The length of the longest common prefix of `a` and `b`: eight bytes at
/// a time as one word (no call per block), then the differing byte from
/// the words' difference.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const WORD: usize = 8;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut i = 0;
    for (x, y) in a.chunks_exact(WORD).zip(b.chunks_exact(WORD)) {
        let x = u64::from_le_bytes(x.try_into().unwrap_or_default());
        let y = u64::from_le_bytes(y.try_into().unwrap_or_default());
        if x != y {
            return i + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        i += WORD;
    }
    i + a[i..]
        .iter()
        .zip(&b[i..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// The nearest `(delete, insert)` after which `base` and `target` agree on
/// [`SYNC`] bytes (or both end): the smallest sum first, then the fewest
/// bytes deleted.
fn resync(base: &[u8], target: &[u8]) -> (usize, usize) {
    let agree = |d: usize, n: usize| {
        let (b, t) = (&base[d..], &target[n..]);
        if b.len() < SYNC || t.len() < SYNC {
            b == t
        } else {
            b[..SYNC] == t[..SYNC]
        }
    };
    for sum in 1..=REACH {
        for del in 0..=sum {
            let ins = sum - del;
            if del <= base.len() && ins <= target.len() && agree(del, ins) {
                return (del, ins);
            }
        }
    }
    (base.len(), target.len())
}

/// Writes the patch of form 1 that replaces the rendering by `target`.
pub fn whole(target: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.push(WHOLE);
    out.extend_from_slice(target);
}

/// Checks a patch's shape (its edits against a rendering are checked by
/// [`apply`]).
///
/// # Errors
/// An empty payload, an unknown form, a bad LEB128 or an insert running
/// past the payload.
pub fn check(payload: &[u8]) -> Result<(), PayloadError> {
    match payload.first() {
        Some(&WHOLE) => Ok(()),
        Some(&EDITS) => {
            let mut at = 1;
            while at < payload.len() {
                let (_, a) = varint32(payload, at)?;
                let (_, a) = varint32(payload, a)?;
                let (ins, a) = varint32(payload, a)?;
                at = a
                    .checked_add(ins as usize)
                    .filter(|&e| e <= payload.len())
                    .ok_or(PayloadError {
                        at: a,
                        expected: "as many inserted bytes as the edit says",
                        found: Found::Value(u64::from(ins)),
                    })?;
            }
            Ok(())
        }
        Some(&b) => Err(PayloadError {
            at: 0,
            expected: "a patch form 0 (edits) or 1 (whole text)",
            found: Found::Byte(b),
        }),
        None => Err(PayloadError {
            at: 0,
            expected: "a patch form 0 (edits) or 1 (whole text)",
            found: Found::End,
        }),
    }
}

/// Appends `base` patched by `payload` to `out`.
///
/// # Errors
/// As [`check`], and an edit that copies or deletes past the end of
/// `base`.
pub fn apply(base: &[u8], payload: &[u8], out: &mut Vec<u8>) -> Result<(), PayloadError> {
    check(payload)?;
    if payload[0] == WHOLE {
        out.extend_from_slice(&payload[1..]);
        return Ok(());
    }
    let (mut at, mut i) = (1usize, 0usize);
    while at < payload.len() {
        let (copy, a) = varint32(payload, at)?;
        let (del, a) = varint32(payload, a)?;
        let (ins, a) = varint32(payload, a)?;
        let past = |what| PayloadError {
            at,
            expected: what,
            found: Found::Value(base.len() as u64),
        };
        let copy_end = i
            .checked_add(copy as usize)
            .filter(|&e| e <= base.len())
            .ok_or(past("an edit that copies within the rendering's length"))?;
        out.extend_from_slice(&base[i..copy_end]);
        i = copy_end
            .checked_add(del as usize)
            .filter(|&e| e <= base.len())
            .ok_or(past("an edit that deletes within the rendering's length"))?;
        let end = a + ins as usize;
        out.extend_from_slice(&payload[a..end]);
        at = end;
    }
    out.extend_from_slice(&base[i..]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(base: &[u8], target: &[u8]) -> Vec<u8> {
        let mut p = Vec::new();
        diff(base, target, &mut p);
        let mut out = Vec::new();
        if p.is_empty() {
            out.extend_from_slice(base);
        } else {
            apply(base, &p, &mut out).unwrap();
        }
        assert_eq!(out, target, "patch {p:?}");
        p
    }

    #[test]
    fn a_changed_line_break_is_one_small_edit() {
        let base = b"1. e4 e5 2. Nf3 Nc6 3. Bb5 a6\n";
        let target = b"1. e4 e5 2. Nf3\r\nNc6 3. Bb5 a6\r\n";
        let p = round(base, target);
        // Two edits: " " to "\r\n", "\n" to "\r\n" (form byte, then 3 + 2
        // bytes and 3 + 1 bytes).
        assert!(p.len() <= 12, "{p:?}");
        assert!(round(base, base).is_empty());
    }

    #[test]
    fn any_pair_of_texts_round_trips() {
        // Texts that share little: the scan gives up and inserts the rest.
        round(b"", b"abc");
        round(b"abc", b"");
        round(
            b"[Event \"x\"]\n\n1. e4 *\n\n",
            b"\xef\xbb\xbf[Event \"x\"]\r\n\r\n1.e4  *\r\n\0\0",
        );
        let noise: Vec<u8> = (0..3000u32).map(|i| (i * 7919 % 251) as u8).collect();
        let other: Vec<u8> = (0..2000u32).map(|i| (i * 104_729 % 13) as u8).collect();
        round(&noise, &other);
        round(&other, &noise);
    }

    #[test]
    fn the_common_prefix_is_found_across_blocks() {
        let a: Vec<u8> = (0..200u8).collect();
        for cut in [0, 1, 31, 32, 33, 64, 150, 199] {
            let mut b = a.clone();
            b[cut] ^= 0xff;
            assert_eq!(common_prefix(&a, &b), cut);
        }
        assert_eq!(common_prefix(&a, &a[..77]), 77);
        assert_eq!(common_prefix(&a, &a), 200);
    }

    #[test]
    fn bad_patches_are_refused_with_their_place() {
        let base = b"abc";
        let mut out = Vec::new();
        // Copy 5 of a 3-byte rendering.
        let e = apply(base, &[0, 5, 0, 0], &mut out).unwrap_err();
        assert_eq!((e.at, e.found), (1, Found::Value(3)));
        // An insert of 9 bytes with 1 present.
        let e = check(&[0, 0, 0, 9, b'x']).unwrap_err();
        assert_eq!((e.at, e.found), (4, Found::Value(9)));
        assert_eq!(check(&[7]).unwrap_err().found, Found::Byte(7));
        assert_eq!(check(&[]).unwrap_err().found, Found::End);
        // A truncated LEB128.
        assert_eq!(check(&[0, 0x80]).unwrap_err().found, Found::End);
    }
}
