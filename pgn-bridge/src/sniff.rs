//! PGC or PGN, compressed or not? What a file holds, judged by its first
//! bytes. `.pgc` is also used by other programs, so a name alone decides
//! nothing.

/// How many bytes are looked at to recognise a format: enough for a whole
/// escape-string record (the marker, a two-byte length, up to 65,535 bytes)
/// and the marker after it.
pub const SNIFF: u64 = 3 + 0xffff + 1;

/// What an input holds, judged by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Nothing at all (a valid PGN and a valid PGC file).
    Empty,
    /// PGN text.
    Pgn,
    /// PGC records, or at least not text: binary data is read as PGC, which
    /// says where it fails.
    Pgc,
}

/// A compression format, recognised by its magic bytes ([`compression`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Zstandard (a frame, or a skippable frame first).
    Zstd,
    /// gzip.
    Gzip,
    /// bzip2.
    Bzip2,
    /// xz, which pgc does not read.
    Xz,
    /// zip, which pgc does not read.
    Zip,
}

impl Compression {
    /// The format's name, as messages give it.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Zstd => "zstd",
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Zip => "zip",
        }
    }

    /// Whether pgc decompresses it (zstd, gzip and bzip2).
    pub fn readable(self) -> bool {
        matches!(
            self,
            Compression::Zstd | Compression::Gzip | Compression::Bzip2
        )
    }

    /// What a message says of data in a format pgc does not read: its
    /// name and what to do instead.
    pub fn refusal(self) -> String {
        format!(
            "compressed with {}, which pgc does not read; decompress it first (or recompress \
             with zstd, gzip or bzip2)",
            self.name()
        )
    }
}

/// The magic of a bzip2 block (the digits of pi), and of the end of a
/// stream (of the square root of pi).
const BZIP2_BLOCK: [u8; 6] = [0x31, 0x41, 0x59, 0x26, 0x53, 0x59];
const BZIP2_END: [u8; 6] = [0x17, 0x72, 0x45, 0x38, 0x50, 0x90];

/// The compression of data starting with `head` (its first bytes, at least
/// ten of them when it has that many), if any.
///
/// A bzip2 stream is recognised by its whole header: `BZh`, a block-size
/// digit and the magic of its first block or of the stream's end. Its
/// first four bytes alone are text (`BZh9 notes` is PGN, and stays PGN).
/// The other formats start with bytes that text does not hold.
pub fn compression(head: &[u8]) -> Option<Compression> {
    match head {
        [a, b, c, d, ..]
            if matches!(
                u32::from_le_bytes([*a, *b, *c, *d]),
                0xfd2f_b528 | 0x184d_2a50..=0x184d_2a5f
            ) =>
        {
            Some(Compression::Zstd)
        }
        [0x1f, 0x8b, ..] => Some(Compression::Gzip),
        [b'B', b'Z', b'h', b'1'..=b'9', magic @ ..]
            if magic.starts_with(&BZIP2_BLOCK) || magic.starts_with(&BZIP2_END) =>
        {
            Some(Compression::Bzip2)
        }
        [0xfd, b'7', b'z', b'X', b'Z', 0, ..] => Some(Compression::Xz),
        [b'P', b'K', 3, 4, ..] => Some(Compression::Zip),
        _ => None,
    }
}

/// Whether `b` starts a PGC record.
fn is_marker(b: u8) -> bool {
    b <= 0x0a || b == 0x80
}

/// Recognises PGC or PGN from the first bytes of the (decompressed) data.
///
/// A PGC file starts with a record marker: 0x00–0x0a or 0x80. PGN text
/// starts with printable text, a byte order mark or whitespace. Of the
/// markers only 0x09 (tab) and 0x0a (line feed) are also text: a PGC file
/// starting with 0x0a is an escape-string record (the marker, a
/// little-endian length, one line of text), which is checked whole, up to
/// the marker after it, and the records after it must frame too (a blank
/// line before a long line of PGN can look like one such record). Data
/// starting with another marker is PGC when its
/// records frame up to the end of `head` (the last may be cut off where
/// a full `head` of [`SNIFF`] bytes ends); a stray control byte before
/// text that does not frame is PGN. Otherwise data is PGN when it is
/// text: at most one byte in twenty a control character that text does
/// not hold, or, when it starts as text, one such byte in a short file (a
/// stray one in a comment is still PGN; random bytes are not), or it
/// starts with a tag pair's `[Name "`. NUL bytes
/// are left out of that count: old tools pad a file with them to a whole
/// block, and the PGN reader keeps them; data of NUL bytes alone, shorter
/// than [`SNIFF`] bytes, is PGN (no record, nothing lost). A `head` of
/// [`SNIFF`] NUL bytes is PGC here (no-op records); a reader that can look
/// further judges such data by what follows the run
/// ([`sniff_after_nul_run`]).
pub fn sniff(head: &[u8]) -> Format {
    match head.first() {
        None => Format::Empty,
        // A short file of NUL bytes alone (left by a crash): no record and
        // no text, kept byte for byte as PGN padding. Longer runs of NULs
        // are PGC no-op records (a PGC file may start with padding), unless
        // text follows them (`sniff_after_nul_run`).
        Some(0) if (head.len() as u64) < SNIFF && is_nul_run(head) => Format::Pgn,
        Some(0x0a) if starts_with_escape(head) && frames(head) => Format::Pgc,
        Some(&b) if b != 0x09 && b != 0x0a && is_marker(b) => {
            if !frames(head) && is_text(head, 0) {
                Format::Pgn
            } else {
                Format::Pgc
            }
        }
        Some(_) if is_text(head, 1) || starts_with_tag_pair(head) => Format::Pgn,
        Some(_) => Format::Pgc,
    }
}

/// Whether `head` starts with a tag pair's opening, `[Name "` (after a
/// byte order mark and whitespace): PGN, whatever control bytes its
/// comments hold.
fn starts_with_tag_pair(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let start = head.iter().take(256).position(|b| !b.is_ascii_whitespace());
    let Some(rest) = start.and_then(|i| head[i..].strip_prefix(b"[")) else {
        return false;
    };
    let name = rest
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    name > 0 && rest[name..].starts_with(b" \"")
}

/// The UTF-16 encoding `head` is in, if it looks like UTF-16 text: a byte
/// order mark, or (without one) mostly ASCII characters each paired with a
/// zero byte.
pub fn utf16(head: &[u8]) -> Option<&'static str> {
    match head {
        [0xff, 0xfe, ..] => return Some("UTF-16LE"),
        [0xfe, 0xff, ..] => return Some("UTF-16BE"),
        _ => {}
    }
    let text = |c: u8| matches!(c, b'\t' | b'\n' | b'\r' | 0x20..=0x7e);
    let (mut pairs, mut le, mut be) = (0, 0, 0);
    for p in head.chunks_exact(2).take(256) {
        pairs += 1;
        le += usize::from(p[1] == 0 && text(p[0]));
        be += usize::from(p[0] == 0 && text(p[1]));
    }
    if pairs < 2 {
        None
    } else if le * 4 >= pairs * 3 {
        Some("UTF-16LE")
    } else if be * 4 >= pairs * 3 {
        Some("UTF-16BE")
    } else {
        None
    }
}

/// Whether `head` is whole PGC records up to its end, the last possibly
/// cut off by the sniffing window (`head` holds [`SNIFF`] bytes). A PGC
/// file cut short is binary data, and [`sniff`] calls it PGC as such.
fn frames(head: &[u8]) -> bool {
    match framing_error(head) {
        None => true,
        Some(pgc_core::ReadError::Truncated { .. }) => head.len() as u64 >= SNIFF,
        Some(_) => false,
    }
}

/// The format of data whose first [`SNIFF`] bytes are NUL ([`is_nul_run`],
/// which [`sniff`] alone takes for PGC no-op records), judged by `after`:
/// the first bytes (up to [`SNIFF`]) that follow the whole run of NULs,
/// empty when the data is NULs alone. PGN text after the run is PGN, as
/// after a shorter run (old tools pad a file with NULs to a whole block,
/// however long, and the PGN reader keeps them, as `pgc encode` does);
/// records after it, or nothing, are PGC that starts with no-op records.
pub fn sniff_after_nul_run(after: &[u8]) -> Format {
    match sniff(after) {
        Format::Pgn => Format::Pgn,
        Format::Empty | Format::Pgc => Format::Pgc,
    }
}

/// Whether `head` is a full window of NUL bytes ([`SNIFF`] of them, or
/// more): data that [`sniff`] alone takes for PGC no-op records, and that
/// a reader judges by what follows the run ([`sniff_after_nul_run`]).
pub fn is_nul_window(head: &[u8]) -> bool {
    head.len() as u64 >= SNIFF && is_nul_run(head)
}

/// The format of `data` held whole in memory: [`sniff`] of its first
/// [`SNIFF`] bytes, or, when they are all NUL ([`is_nul_window`]),
/// [`sniff_after_nul_run`] of the bytes that follow the run. A reader of a
/// stream reads past the run itself and calls those two.
pub fn sniff_data(data: &[u8]) -> Format {
    let head = &data[..data.len().min(SNIFF as usize)];
    if !is_nul_window(head) {
        return sniff(head);
    }
    let run = data.iter().position(|&b| b != 0).unwrap_or(data.len());
    let after = &data[run..];
    sniff_after_nul_run(&after[..after.len().min(SNIFF as usize)])
}

/// Whether `head` is NUL bytes alone. [`sniff`] takes a full head of them
/// for PGC padding records; a reader asked for PGN (`pgc encode`,
/// `pgc.encode`) reads them as PGN all the same, since a PGC file does not
/// start so and the PGN reader keeps them byte for byte as padding.
pub fn is_nul_run(head: &[u8]) -> bool {
    !head.is_empty() && head.iter().all(|&b| b == 0)
}

/// The first error of reading `head` as PGC records (a record cut off at
/// its end is [`pgc_core::ReadError::Truncated`]); `None` when it is
/// whole records. A length is not checked against
/// [`pgc_core::Limits::max_string`]: a payload longer than a reader's
/// limit still frames as a record (the format is judged here, not the
/// limits a reader applies), and `head` is in memory already.
pub fn framing_error(head: &[u8]) -> Option<pgc_core::ReadError> {
    let any_length = pgc_core::Limits {
        max_string: u32::MAX,
        ..pgc_core::Limits::DEFAULT
    };
    let mut records = pgc_core::Reader::with_limits(head, any_length);
    loop {
        match records.next_record() {
            Ok(Some(_)) => {}
            Ok(None) => return None,
            Err(e) => return Some(e),
        }
    }
}

/// Whether `head` starts with a whole PGC escape-string record followed by
/// a record marker or by the end of the data (`head` holds [`SNIFF`]
/// bytes, or all the data if it is shorter).
fn starts_with_escape(head: &[u8]) -> bool {
    let [0x0a, lo, hi, rest @ ..] = head else {
        return false;
    };
    let len = usize::from(u16::from_le_bytes([*lo, *hi]));
    match rest.get(..len) {
        // The escaped data is the rest of one line.
        Some(text) if !text.contains(&b'\n') => rest.get(len).is_none_or(|&m| is_marker(m)),
        _ => false,
    }
}

/// Whether `head` reads as text: of its bytes other than NUL, control
/// characters other than tab, line feed, vertical tab, form feed,
/// carriage return, SUB (a DOS end of file) and ESC ([`control_bytes`]) are
/// at most one byte in twenty, or at most `stray` of them.
fn is_text(head: &[u8], stray: usize) -> bool {
    let (n, nul) = control_and_nul_bytes(head);
    n * 20 <= head.len() - nul || n <= stray
}

/// How many bytes of `head` are control characters that text does not hold
/// (0x01–0x08, and 0x0E–0x1F but SUB and ESC), as [`sniff`] counts them.
pub fn control_bytes(head: &[u8]) -> usize {
    control_and_nul_bytes(head).0
}

/// [`control_bytes`] and the NUL bytes of `head`, counted in one pass.
fn control_and_nul_bytes(head: &[u8]) -> (usize, usize) {
    let binary = |c: u8| {
        (0x01..=0x08).contains(&c) || ((0x0e..=0x1f).contains(&c) && c != 0x1a && c != 0x1b)
    };
    head.iter().fold((0, 0), |(n, nul), &c| {
        (n + usize::from(binary(c)), nul + usize::from(c == 0))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_utf16() {
        let le: Vec<u8> = "[Event \"x\"]\n".bytes().flat_map(|b| [b, 0]).collect();
        let be: Vec<u8> = "[Event \"x\"]\n".bytes().flat_map(|b| [0, b]).collect();
        assert_eq!(utf16(&le), Some("UTF-16LE"));
        assert_eq!(utf16(&be), Some("UTF-16BE"));
        assert_eq!(utf16(&[&[0xff, 0xfe][..], &le].concat()), Some("UTF-16LE"));
        assert_eq!(utf16(&[&[0xfe, 0xff][..], &be].concat()), Some("UTF-16BE"));
        assert_eq!(utf16(b"[Event \"x\"]\n"), None);
        assert_eq!(utf16(&[0x05, 0x02, 0x05, 0x00, 0x00, 0x00]), None);
        assert_eq!(utf16(&[0, 0, 0, 0, 0, 0]), None);
        assert_eq!(utf16(b"\x0a\x05\x00hello\x05\x06"), None);
    }

    #[test]
    fn compressed_data_is_recognised_by_its_magic() {
        // An empty bzip2 stream, as `bzip2` writes it: header, end magic, CRC.
        let empty_bz2 = b"BZh9\x17\x72\x45\x38\x50\x90\0\0\0\0";
        assert_eq!(compression(empty_bz2), Some(Compression::Bzip2));
        let block_bz2 = b"BZh1\x31\x41\x59\x26\x53\x59\x12\x34";
        assert_eq!(compression(block_bz2), Some(Compression::Bzip2));
        assert_eq!(
            compression(&[0x28, 0xb5, 0x2f, 0xfd, 0x24]),
            Some(Compression::Zstd)
        );
        // A skippable frame first (as a seek table may be).
        assert_eq!(
            compression(&[0x5e, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]),
            Some(Compression::Zstd)
        );
        assert_eq!(compression(&[0x1f, 0x8b, 8, 0]), Some(Compression::Gzip));
        let xz = compression(b"\xfd7zXZ\0\0\x04");
        assert_eq!(xz, Some(Compression::Xz));
        assert!(!Compression::Xz.readable() && Compression::Bzip2.readable());
        assert_eq!(compression(b"PK\x03\x04"), Some(Compression::Zip));
    }

    #[test]
    fn text_that_starts_like_a_bzip2_header_is_not_compressed() {
        for text in [
            &b"BZh9"[..],
            b"BZh9 is how my notes start\n[Event \"x\"]\n",
            b"BZh1\x31\x41",
            b"[Event \"x\"]",
            b"",
        ] {
            assert_eq!(
                compression(text),
                None,
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn a_stray_control_byte_before_text_is_pgn() {
        // A record marker first, then text that does not frame as records
        // (0x01 is a reduced game of 93 bytes; the data is shorter).
        assert_eq!(sniff(b"\x01[Event \"?\"]\n\n1. e4 *\n"), Format::Pgn);
        for b in [0x00, 0x04, 0x05, 0x06, 0x08] {
            let mut text = vec![b, b'\n'];
            text.extend_from_slice(b"[Event \"?\"]\n\n1. e4 *\n");
            assert_eq!(sniff(&text), Format::Pgn, "first byte {b:#04x}");
        }
        // One control byte in a short file.
        assert_eq!(sniff(b"[Event \"?\"\x18\n"), Format::Pgn);
        assert_eq!(sniff(b"[E\x18\x18\n"), Format::Pgc, "two in five bytes");
        // A tag pair first: PGN, whatever its comments hold.
        let pgn = b"[Event \"x\"]\n\n1. e4 {a\x01b\x02c} e5 1-0\n";
        assert_eq!(sniff(pgn), Format::Pgn);
        assert_eq!(sniff(b"\xef\xbb\xbf\r\n[Event \"\x01\x02"), Format::Pgn);
        assert_eq!(sniff(b"[Event\x01\x02\x03\""), Format::Pgc);
    }

    #[test]
    fn records_that_frame_are_pgc() {
        let pgn = b"[Event \"?\"]\n[Site \"?\"]\n\n1. e4 {a comment} e5 2. Nf3 *\n";
        let mut pgc = Vec::new();
        crate::pgn_to_pgc(&pgn[..], &mut pgc, None, &crate::EncodeOptions::default())
            .expect("encode");
        assert_ne!(
            pgc[0], b'\n',
            "the test wants a marker other than 0x0a first"
        );
        assert_eq!(sniff(&pgc), Format::Pgc);
        // Cut short anywhere: binary data, which `pgc decode` reads as
        // PGC (and says where it ends).
        for cut in 1..pgc.len() {
            assert_eq!(sniff(&pgc[..cut]), Format::Pgc, "cut at {cut}");
        }
        // A game start marker, then text: no record frames after it.
        let mut text = vec![0x05];
        text.extend_from_slice(&pgn[..]);
        assert_eq!(sniff(&text), Format::Pgn);
    }

    #[test]
    fn a_payload_over_the_default_limit_is_pgc() {
        // A comment of 16 MiB + 1 bytes, of text, from its record on: the
        // records frame up to the end of the window (a reader with a
        // raised `max_string` reads it), so the data is PGC.
        let mut pgc = vec![0x05, 0x02, 5];
        pgc.extend_from_slice(b"Event");
        pgc.extend_from_slice(&[1, b'x', 0x80, pgc_core::ext::COMMENT]);
        let len = (16u64 << 20) + 1;
        let mut v = len;
        while v >= 0x80 {
            pgc.push((v as u8 & 0x7f) | 0x80);
            v >>= 7;
        }
        pgc.push(v as u8);
        pgc.resize(SNIFF as usize, b'x');
        // A reader with the default limits refuses the comment's record.
        let mut reader = pgc_core::Reader::new(&pgc[..]);
        assert!(reader.next_record().is_ok_and(|r| r.is_some()));
        assert!(reader.next_record().is_ok_and(|r| r.is_some()));
        assert!(matches!(
            reader.next_record(),
            Err(pgc_core::ReadError::OverLimit { .. })
        ));
        assert_eq!(sniff(&pgc), Format::Pgc);
    }

    #[test]
    fn pgn_padded_with_nul_bytes_is_pgn() {
        // A short file padded to a 4 KiB block, and PGN after a padded one.
        let mut text = b"[Event \"?\"]\n\n1. e4 *\n".to_vec();
        text.resize(4096, 0);
        assert_eq!(sniff(&text), Format::Pgn);
        text.extend_from_slice(b"[Event \"?\"]\n\n1. d4 *\n");
        assert_eq!(sniff(&text), Format::Pgn);
        // NUL bytes do not hide other control bytes.
        let mut binary = b"[E".to_vec();
        binary.extend_from_slice(&[0x01, 0x02, 0x03]);
        binary.resize(4096, 0);
        assert_eq!(sniff(&binary), Format::Pgc);
        // NUL bytes alone, and NUL bytes before a record.
        assert_eq!(sniff(&[0]), Format::Pgn);
        assert_eq!(sniff(&[0; 4096]), Format::Pgn);
        assert_eq!(sniff(&vec![0; SNIFF as usize]), Format::Pgc);
        assert!(is_nul_run(&vec![0; SNIFF as usize]));
        assert!(!is_nul_run(&[]) && !is_nul_run(&[0, 0, 0x05]));
        assert_eq!(sniff(&[0, 0, 0x05, 0x00, 0x06]), Format::Pgc);
        // After a run that fills the window: what follows it decides.
        assert_eq!(sniff_after_nul_run(b"[Event \"?\"]\n"), Format::Pgn);
        assert_eq!(sniff_after_nul_run(b"1. e4 *\n"), Format::Pgn);
        assert_eq!(sniff_after_nul_run(&[0x05, 0x00, 0x06]), Format::Pgc);
        assert_eq!(sniff_after_nul_run(b""), Format::Pgc);
    }

    #[test]
    fn data_in_memory_is_judged_past_a_window_of_nul_bytes() {
        let game = b"[Event \"?\"]\n\n1. e4 *\n";
        let window = SNIFF as usize;
        for n in [1, 4096, window - 1, window, window + 1, 200_000] {
            let mut text = vec![0; n];
            text.extend_from_slice(game);
            assert_eq!(sniff_data(&text), Format::Pgn, "{n} NULs before a game");
            let mut pgc = vec![0; n];
            pgc.extend_from_slice(&[0x05, 0x00, 0x06]);
            assert_eq!(sniff_data(&pgc), Format::Pgc, "{n} NULs before records");
        }
        assert!(!is_nul_window(&vec![0; window - 1]) && is_nul_window(&vec![0; window]));
        assert_eq!(
            sniff_data(&vec![0; window - 1]),
            Format::Pgn,
            "short padding"
        );
        assert_eq!(sniff_data(&vec![0; 200_000]), Format::Pgc, "no-op records");
        assert_eq!(sniff_data(b""), Format::Empty);
        assert_eq!(sniff_data(game), Format::Pgn);
    }

    #[test]
    fn a_blank_line_before_a_long_line_is_pgn() {
        // 0x0a, then `[E` read as a length of 17,755 bytes that runs up to
        // the last line feed: an escape-string record followed by a
        // marker, but nothing frames after that.
        let head = b"[Event \"x\"] 1. e4 e5 {";
        let mut text = vec![b'\n'];
        text.extend_from_slice(head);
        text.resize(3 + 0x455b - 3, b'a');
        text.extend_from_slice(b"} *\n");
        assert!(starts_with_escape(&text));
        assert_eq!(usize::from(u16::from_le_bytes([text[1], text[2]])), 0x455b);
        assert_eq!(sniff(&text), Format::Pgn);
    }
}
