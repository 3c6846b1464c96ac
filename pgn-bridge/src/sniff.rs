//! PGC or PGN? What a file holds, judged by its first (decompressed)
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
/// the marker after it. Otherwise data is PGN when it is text: at most one
/// byte in twenty a control character that text does not hold (a stray
/// one in a comment is still PGN; random bytes are not).
pub fn sniff(head: &[u8]) -> Format {
    match head.first() {
        None => Format::Empty,
        Some(0x0a) if starts_with_escape(head) => Format::Pgc,
        Some(&b) if b != 0x09 && b != 0x0a && is_marker(b) => Format::Pgc,
        Some(_) if !is_text(head) => Format::Pgc,
        Some(_) => Format::Pgn,
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

/// Whether `head` reads as text: control characters other than tab, line
/// feed, vertical tab, form feed, carriage return, SUB (a DOS end of file)
/// and ESC are at most one byte in twenty.
fn is_text(head: &[u8]) -> bool {
    let binary = |c: u8| c <= 0x08 || ((0x0e..=0x1f).contains(&c) && c != 0x1a && c != 0x1b);
    let n = head.iter().filter(|&&c| binary(c)).count();
    n * 20 <= head.len()
}
