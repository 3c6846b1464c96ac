//! Chess variants: which rules a game is played by, from its `Variant` tag.
//!
//! This is the one place that reads a `Variant` tag value; the encoder, the
//! walker, the verifier and the CLI all ask [`variant_of_tag`]. The rules
//! themselves are shakmaty's ([`VariantPosition`]): pgc plays the eight
//! games of Lichess, standard chess (with Chess960 and set-up positions)
//! and Crazyhouse, Atomic, Antichess, King of the Hill, Three-check, Horde
//! and Racing Kings.
//!
//! Names are matched without regard to case, spaces, `-` and `_`, so
//! `King of the Hill`, `kingofthehill` and `King-of-the-hill` are one name.

use shakmaty::Position;
pub use shakmaty::variant::{Variant, VariantPosition};

/// Why a `Variant` tag value names no game pgc plays.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VariantError {
    /// A name pgc does not know.
    #[error(
        "unsupported variant {name:?} (known: Standard, Chess960, From Position, Crazyhouse, \
         Atomic, Antichess, King of the Hill, Three-check, Horde, Racing Kings)"
    )]
    Unknown {
        /// The tag value as found (lossily decoded).
        name: String,
    },
    /// A known game whose rules differ from every variant pgc plays.
    #[error("unsupported variant {name:?}: {reason}")]
    OtherRules {
        /// The tag value as found (lossily decoded).
        name: String,
        /// How its rules differ.
        reason: &'static str,
    },
}

/// The rules a `Variant` tag value names.
///
/// | rules | names (any case; spaces, `-`, `_` ignored) |
/// |---|---|
/// | standard chess | empty, `Standard`, `Chess`, `Normal`, `From Position`, `Chess960`, `960`, `Fischerandom`, `Fischer Random`, `FRC`, `Freestyle` |
/// | Crazyhouse | `Crazyhouse`, `zh` |
/// | Atomic | `Atomic` |
/// | Antichess | `Antichess`, `Anti` |
/// | King of the Hill | `King of the Hill`, `KOTH` |
/// | Three-check | `Three-check`, `3check`, `3-check` |
/// | Horde | `Horde` |
/// | Racing Kings | `Racing Kings` |
///
/// Chess960 is standard chess from another start position (its FEN tag);
/// [`crate::BulkGame::castling_mode`] tells how to write its castling in UCI.
///
/// # Errors
/// [`VariantError::OtherRules`] for `Giveaway` and `Suicide`, which differ
/// from Lichess antichess (castling is allowed in giveaway; a stalemate is
/// decided by the pieces left in suicide); [`VariantError::Unknown`] for any
/// other name.
pub fn variant_of_tag(value: &[u8]) -> Result<Variant, VariantError> {
    // The longest known name, normalised, is `fischerrandom` (13 bytes).
    let mut buf = [0u8; 16];
    let mut n = 0;
    let unknown = || VariantError::Unknown {
        name: String::from_utf8_lossy(value).into_owned(),
    };
    for &b in value.trim_ascii() {
        if matches!(b, b' ' | b'-' | b'_' | b'\t') {
            continue;
        }
        let Some(slot) = buf.get_mut(n) else {
            return Err(unknown());
        };
        *slot = b.to_ascii_lowercase();
        n += 1;
    }
    Ok(match &buf[..n] {
        b"" | b"standard" | b"chess" | b"normal" | b"fromposition" | b"chess960" | b"960"
        | b"fischerandom" | b"fischerrandom" | b"frc" | b"freestyle" => Variant::Chess,
        b"crazyhouse" | b"zh" => Variant::Crazyhouse,
        b"atomic" => Variant::Atomic,
        b"antichess" | b"anti" => Variant::Antichess,
        b"kingofthehill" | b"koth" => Variant::KingOfTheHill,
        b"threecheck" | b"3check" => Variant::ThreeCheck,
        b"horde" => Variant::Horde,
        b"racingkings" => Variant::RacingKings,
        b"giveaway" | b"giveawaychess" => {
            return Err(VariantError::OtherRules {
                name: String::from_utf8_lossy(value).into_owned(),
                reason: "giveaway allows castling, Lichess antichess does not",
            });
        }
        b"suicide" | b"suicidechess" => {
            return Err(VariantError::OtherRules {
                name: String::from_utf8_lossy(value).into_owned(),
                reason: "in suicide a stalemate is decided by the pieces left, \
                         in Lichess antichess the stalemated side wins",
            });
        }
        _ => return Err(unknown()),
    })
}

/// The move number and the side to move of `pos` (standard chess without
/// shakmaty's dynamic dispatch over the variants).
#[inline]
pub fn number_and_turn(pos: &VariantPosition) -> (u32, shakmaty::Color) {
    match pos {
        VariantPosition::Chess(c) => (c.fullmoves().get(), c.turn()),
        other => variant_number_and_turn(other),
    }
}

/// [`number_and_turn`] in a variant other than standard chess, out of the
/// callers' hot code.
#[inline(never)]
fn variant_number_and_turn(pos: &VariantPosition) -> (u32, shakmaty::Color) {
    (pos.fullmoves().get(), pos.turn())
}

/// Plays the legal move `m` in `pos`, standard chess without going through
/// shakmaty's dynamic dispatch over the variants.
#[inline]
pub fn play_unchecked(pos: &mut VariantPosition, m: shakmaty::Move) {
    match pos {
        VariantPosition::Chess(c) => c.play_unchecked(m),
        other => variant_play_unchecked(other, m),
    }
}

/// [`play_unchecked`] in a variant other than standard chess, out of the
/// callers' hot code.
#[inline(never)]
fn variant_play_unchecked(pos: &mut VariantPosition, m: shakmaty::Move) {
    pos.play_unchecked(m);
}

/// Copies `src` into `dst` (standard chess as a plain copy of the
/// position, not through the enum's generic clone).
#[inline]
pub fn copy_position(dst: &mut VariantPosition, src: &VariantPosition) {
    match (dst, src) {
        (VariantPosition::Chess(d), VariantPosition::Chess(s)) => d.clone_from(s),
        (d, s) => d.clone_from(s),
    }
}

/// The check suffix of the move that led to `pos`: `#` when the game is
/// decided (mate, or a variant's own win such as a king on the hill, a
/// third check or an exploded king), `+` for check, else nothing. This is
/// what shakmaty's and python-chess's SAN write.
#[inline]
pub fn check_suffix(pos: &VariantPosition) -> &'static [u8] {
    if let VariantPosition::Chess(c) = pos {
        return crate::ordinal::check_suffix(c);
    }
    variant_suffix(pos)
}

/// [`check_suffix`] in a variant other than standard chess.
#[inline(never)]
fn variant_suffix(pos: &VariantPosition) -> &'static [u8] {
    match shakmaty::san::Suffix::from_position(pos) {
        Some(shakmaty::san::Suffix::Checkmate) => b"#",
        Some(shakmaty::san::Suffix::Check) => b"+",
        None => crate::ordinal::NO_SUFFIX,
    }
}

/// The name Lichess writes in the `Variant` tag for `variant` (standard
/// chess: `Standard`).
pub const fn lichess_name(variant: Variant) -> &'static str {
    match variant {
        Variant::Chess => "Standard",
        Variant::Atomic => "Atomic",
        Variant::Antichess => "Antichess",
        Variant::KingOfTheHill => "King of the Hill",
        Variant::ThreeCheck => "Three-check",
        Variant::Crazyhouse => "Crazyhouse",
        Variant::RacingKings => "Racing Kings",
        Variant::Horde => "Horde",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lichess_names_and_other_spellings() {
        for v in Variant::ALL {
            assert_eq!(variant_of_tag(lichess_name(v).as_bytes()).unwrap(), v);
            assert_eq!(variant_of_tag(v.uci().as_bytes()).unwrap(), v);
        }
        for (name, v) in [
            ("Chess960", Variant::Chess),
            ("chess 960", Variant::Chess),
            ("fischerandom", Variant::Chess),
            ("From Position", Variant::Chess),
            ("", Variant::Chess),
            ("zh", Variant::Crazyhouse),
            ("3check", Variant::ThreeCheck),
            ("three-check", Variant::ThreeCheck),
            ("kingofthehill", Variant::KingOfTheHill),
            ("RACING KINGS", Variant::RacingKings),
        ] {
            assert_eq!(variant_of_tag(name.as_bytes()).unwrap(), v, "{name}");
        }
        assert!(matches!(
            variant_of_tag(b"giveaway"),
            Err(VariantError::OtherRules { .. })
        ));
        assert!(matches!(
            variant_of_tag(b"Suicide"),
            Err(VariantError::OtherRules { .. })
        ));
        assert!(matches!(
            variant_of_tag(b"shogi"),
            Err(VariantError::Unknown { .. })
        ));
        assert!(matches!(
            variant_of_tag(b"a very long name that is no variant"),
            Err(VariantError::Unknown { .. })
        ));
    }
}
