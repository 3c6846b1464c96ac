//! `--where NAME OP VALUE`: filters on a game's tags (`pgc moves`).

use pgc_core::BulkGame;
use std::cmp::Ordering;

/// A comparison operator of `--where`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// One `--where NAME OP VALUE` filter.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    /// The tag name.
    pub(crate) name: Vec<u8>,
    op: Op,
    value: Vec<u8>,
    number: Option<f64>,
}

/// Parses `NAME OP VALUE` (`WhiteElo>=2400`, `Result=1-0`).
///
/// # Errors
/// A message saying what is expected.
pub fn parse_filter(s: &str) -> std::result::Result<Filter, String> {
    let at = s.find(['=', '!', '<', '>']).ok_or_else(|| {
        format!("{s:?}: no operator (expected NAME OP VALUE with OP one of = != < <= > >=)")
    })?;
    let name = s[..at].trim();
    if name.is_empty() {
        return Err(format!("{s:?}: no tag name before the operator"));
    }
    let rest = &s[at..];
    let (op, len) = [
        ("!=", Op::Ne),
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("=", Op::Eq),
        ("<", Op::Lt),
        (">", Op::Gt),
    ]
    .into_iter()
    .find(|(t, _)| rest.starts_with(t))
    .map(|(t, op)| (op, t.len()))
    .ok_or_else(|| format!("{s:?}: unknown operator (expected = != < <= > >=)"))?;
    let value = rest[len..].trim();
    Ok(Filter {
        name: name.as_bytes().to_vec(),
        op,
        value: value.as_bytes().to_vec(),
        number: parse_number(value.as_bytes()),
    })
}

fn parse_number(b: &[u8]) -> Option<f64> {
    std::str::from_utf8(b).ok()?.trim().parse::<f64>().ok()
}

impl Filter {
    /// Whether a game's tag passes the filter (a missing tag is `""`).
    pub fn holds(&self, game: &BulkGame) -> bool {
        self.holds_value(game.tag(&self.name).unwrap_or(b""))
    }

    /// Whether a tag value (`""` for a missing tag) passes the filter.
    pub fn holds_value(&self, tag: &[u8]) -> bool {
        let ord = match (parse_number(tag), self.number) {
            (Some(a), Some(b)) => a.partial_cmp(&b),
            _ => Some(tag.cmp(&self.value[..])),
        };
        let Some(ord) = ord else { return false };
        match self.op {
            Op::Eq => ord == Ordering::Equal,
            Op::Ne => ord != Ordering::Equal,
            Op::Lt => ord == Ordering::Less,
            Op::Le => ord != Ordering::Greater,
            Op::Gt => ord == Ordering::Greater,
            Op::Ge => ord != Ordering::Less,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_parse_and_compare() {
        let f = parse_filter("WhiteElo>=2400").unwrap();
        assert_eq!((f.name.as_slice(), f.op), (&b"WhiteElo"[..], Op::Ge));
        assert_eq!(parse_filter("Result=1-0").unwrap().op, Op::Eq);
        assert_eq!(parse_filter("Result != 1-0").unwrap().value, b"1-0");
        assert!(parse_filter("WhiteElo").is_err());
        assert!(parse_filter(">=3").is_err());
    }
}
