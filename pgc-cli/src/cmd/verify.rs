//! `pgc verify`: checks PGC files written by any tool with
//! [`pgn_bridge::verify()`] (pgc-core's verifier, and the decoder's
//! rendering of every text-patched game) and prints every problem with its file, byte offset,
//! game, ply, marker and what was expected against what was found, then a
//! summary (games read, games with problems, bytes skipped after framing
//! errors); `--json` prints one JSON document instead, with the first
//! problem of each game besides.

use crate::args::VerifyArgs;
use crate::error::{Damage, Error, Result, Status};
use crate::io::{Format, Input};
use pgc_core::{Problem, Report, Verifier};
use std::fmt::Write as _;
use std::io::{Read, Write};

/// One checked input.
struct Checked {
    name: String,
    /// Why the input is no PGC at all (PGN text), instead of a report.
    not_pgc: Option<String>,
    /// Why the input could not be read (the error's message, which names
    /// it), instead of a report.
    unread: Option<String>,
    /// Where its compressed data is damaged: the report covers the data
    /// before the damage.
    damaged: Option<Damaged>,
    /// What is wrong with the seek table of a file in zstd's seekable
    /// format, which `decode` and the other readers follow.
    seek_table: Option<String>,
    report: Report,
}

/// A reader whose damaged compressed data ([`Damage`], a seekable file's
/// frame that does not decompress) ends the data, kept for the report.
struct StopAtDamage<R> {
    inner: R,
    damage: Option<Damage>,
}

impl<R: Read> Read for StopAtDamage<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.damage.is_some() {
            return Ok(0);
        }
        match self.inner.read(buf) {
            Err(e) if Error::is_damage(&e) => {
                // `is_damage` saw the payload.
                self.damage = e
                    .into_inner()
                    .and_then(|inner| inner.downcast::<Damage>().ok())
                    .map(|d| *d);
                Ok(0)
            }
            r => r,
        }
    }
}

/// A compressed input's damage.
struct Damaged {
    /// Decompressed bytes read before it.
    offset: u64,
    /// What the decompressor said, and where.
    message: String,
}

impl Damaged {
    /// The damage `d`, after which nothing is checked.
    fn after(d: Damage) -> Damaged {
        Damaged {
            offset: d.decompressed,
            message: format!("{d}; the data after it is not checked"),
        }
    }
}

impl Checked {
    /// An input that could not be read, for `message`.
    fn unread(name: &str, message: String) -> Checked {
        Checked {
            name: name.to_string(),
            not_pgc: None,
            unread: Some(message),
            damaged: None,
            seek_table: None,
            report: Report::default(),
        }
    }

    /// What went wrong reading the input, without its name in front.
    fn unread_reason(&self) -> Option<&str> {
        let m = self.unread.as_deref()?;
        Some(
            m.strip_prefix(self.name.as_str())
                .and_then(|r| r.strip_prefix(": "))
                .unwrap_or(m),
        )
    }

    fn is_ok(&self) -> bool {
        self.not_pgc.is_none()
            && self.unread.is_none()
            && self.damaged.is_none()
            && self.seek_table.is_none()
            && self.report.is_ok()
    }
}

/// Runs `pgc verify`.
///
/// An input that cannot be read (missing, a directory, a read error) is
/// reported in its place, as a file that was not checked, and the others
/// are checked all the same; the run then ends with an I/O error (exit
/// status 2) naming them, after the report.
///
/// # Errors
/// Usage and I/O; problems in the data give [`Status::Problems`].
pub fn run(a: &VerifyArgs) -> Result<Status> {
    let verifier = Verifier::new()
        .limits(a.limits.pgc_limits())
        .max_problems(a.max_problems);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut all = Vec::new();
    let inputs = Input::list(&a.inputs);
    let mut unread = Vec::new();
    for input in &inputs {
        let checked = match check(input, &verifier) {
            Ok(c) => c,
            Err(Error::BrokenPipe) => return Err(Error::BrokenPipe),
            Err(e) => {
                if matches!(e, Error::Io(_) | Error::Usage(_)) {
                    unread.push(input.name.clone());
                }
                Checked::unread(&input.name, e.to_string())
            }
        };
        if !a.json {
            text(&mut out, &checked).map_err(|e| Error::io("stdout", &e))?;
        }
        all.push(checked);
    }
    if a.json {
        out.write_all(json(&all).as_bytes())
            .map_err(|e| Error::io("stdout", &e))?;
    }
    out.flush().map_err(|e| Error::io("stdout", &e))?;
    if !unread.is_empty() {
        return Err(Error::Io(format!(
            "{} of {} inputs not checked (they could not be read): {}",
            unread.len(),
            inputs.len(),
            unread.join(", ")
        )));
    }
    Ok(if all.iter().all(Checked::is_ok) {
        Status::Ok
    } else {
        Status::Problems
    })
}

/// Checks one input.
///
/// # Errors
/// The input cannot be opened or read (I/O, a directory), or stdout is
/// gone.
fn check(input: &Input, verifier: &Verifier) -> Result<Checked> {
    // Damaged compressed data ends the data where it is damaged: what
    // came before is checked, and the damage is one more problem.
    let opened = input.open_keeping_damage()?;
    if opened.format == Format::Pgn {
        return Ok(Checked {
            name: input.name.clone(),
            not_pgc: Some(input.not_pgc()),
            unread: None,
            damaged: None,
            seek_table: None,
            report: Report::default(),
        });
    }
    // The data is read as one zstd stream; the readers that seek
    // follow the seek table, which is checked here as they check it.
    let (table, seek_table) = match input.seek_table() {
        Ok(t) => (t.map(|(_, t)| t), None),
        Err(Error::Data(m)) => (None, Some(m)),
        Err(e) => return Err(e),
    };
    // A seekable file is read frame by frame, as the seeking
    // readers read it: a damaged frame, or one of another size than
    // the table's, ends the data at its start. (The first frame is
    // read on opening, to tell PGC from PGN.)
    let framed = match table {
        Some(_) => input.open_seekable(None, 1, true, crate::batch::index_path),
        None => Ok(None),
    };
    let (report, damaged) = match framed {
        Ok(Some(s)) => {
            let mut r = StopAtDamage {
                inner: s.reader,
                damage: None,
            };
            let report =
                pgn_bridge::verify(verifier, &mut r).map_err(|e| Error::io(&input.name, &e))?;
            (report, r.damage.map(Damaged::after))
        }
        Ok(None) => {
            let report = pgn_bridge::verify(verifier, opened.reader)
                .map_err(|e| Error::io(&input.name, &e))?;
            let damage = opened.damage.and_then(|w| w.take());
            (report, damage.map(Damaged::after))
        }
        Err(Error::Data(m)) => (
            Report::default(),
            Some(Damaged {
                offset: 0,
                message: format!("{m}; the data after it is not checked"),
            }),
        ),
        Err(e) => return Err(e),
    };
    Ok(Checked {
        name: input.name.clone(),
        not_pgc: None,
        unread: None,
        damaged,
        seek_table,
        report,
    })
}

fn text(out: &mut impl Write, c: &Checked) -> std::io::Result<()> {
    if let Some(why) = &c.not_pgc {
        return writeln!(out, "{}: invalid: {why}", c.name);
    }
    if let Some(why) = c.unread_reason() {
        return writeln!(out, "{}: not checked: {why}", c.name);
    }
    let r = &c.report;
    for p in &r.problems {
        writeln!(out, "{}: {p}", c.name)?;
    }
    if r.problems_dropped > 0 {
        writeln!(
            out,
            "{}: … and {} more problems (raise --max-problems to list them)",
            c.name, r.problems_dropped
        )?;
    }
    if let Some(d) = &c.damaged {
        writeln!(out, "{}: {}", c.name, d.message)?;
    }
    if let Some(m) = &c.seek_table {
        writeln!(out, "{m}")?;
    }
    if c.is_ok() {
        writeln!(
            out,
            "{}: ok: {} games, {} plies, {} bytes",
            c.name, r.games, r.plies, r.bytes
        )
    } else {
        let problems =
            r.problem_count() + u64::from(c.damaged.is_some()) + u64::from(c.seek_table.is_some());
        writeln!(
            out,
            "{}: invalid: {} in {} bytes ({}, {} with problems, {} bytes skipped)",
            c.name,
            counted(problems, "problem", "problems"),
            r.bytes,
            counted(r.games, "game", "games"),
            counted(r.games_with_problems, "game", "games"),
            r.junk_bytes
        )
    }
}

/// `n` and the noun for it: `1 problem`, `2 problems`.
fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A JSON string literal.
fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "null".to_string(), |v| v.to_string())
}

/// One problem as a JSON object (`game` is 1-based as in the text output).
fn problem(o: &mut String, p: &Problem) {
    let _ = write!(
        o,
        "{{\"offset\":{},\"game\":{},\"ply\":{},\"marker\":{},\"marker_byte\":{},\"expected\":{},\"found\":{},\"message\":{}}}",
        p.offset,
        opt(p.game.map(|g| g.saturating_add(1))),
        opt(p.ply),
        p.marker.map_or("null".to_string(), |m| json_str(m.name())),
        opt(p.marker.map(|m| m as u8)),
        json_str(&p.expected),
        json_str(&p.found),
        json_str(&p.to_string())
    );
}

/// The JSON document: `{"valid": bool, "files": [...]}`, one object per
/// input with its problems (`game` is 1-based as in the text output), the
/// count of games with problems, the bytes skipped after framing errors,
/// and the first problem of each game with any (`game_problems`).
fn json(all: &[Checked]) -> String {
    let mut o = String::new();
    let valid = all.iter().all(Checked::is_ok);
    let _ = write!(o, "{{\"valid\":{valid},\"files\":[");
    for (i, c) in all.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        let r = &c.report;
        let _ = write!(
            o,
            "{{\"file\":{},\"valid\":{},\"pgc\":{},{}\"games\":{},\"plies\":{},\"bytes\":{},\"problems_dropped\":{},\"problems\":[",
            json_str(&c.name),
            c.is_ok(),
            // Not known of a file that could not be read.
            if c.unread.is_some() {
                "null"
            } else if c.not_pgc.is_none() {
                "true"
            } else {
                "false"
            },
            c.unread
                .as_deref()
                .map_or_else(String::new, |m| format!("\"error\":{},", json_str(m))),
            r.games,
            r.plies,
            r.bytes,
            r.problems_dropped
        );
        if let Some(why) = &c.not_pgc {
            let _ = write!(
                o,
                "{{\"offset\":0,\"game\":null,\"ply\":null,\"marker\":null,\"marker_byte\":null,\"expected\":\"PGC records\",\"found\":{},\"message\":{}}}",
                json_str("PGN text"),
                json_str(why)
            );
        }
        if let (Some(m), Some(why)) = (&c.unread, c.unread_reason()) {
            let _ = write!(
                o,
                "{{\"offset\":null,\"game\":null,\"ply\":null,\"marker\":null,\"marker_byte\":null,\"expected\":\"a file to read\",\"found\":{},\"message\":{}}}",
                json_str(why),
                json_str(m)
            );
        }
        for (j, p) in r.problems.iter().enumerate() {
            if j > 0 {
                o.push(',');
            }
            problem(&mut o, p);
        }
        if let Some(d) = &c.damaged {
            if !r.problems.is_empty() {
                o.push(',');
            }
            let _ = write!(
                o,
                "{{\"offset\":{},\"game\":null,\"ply\":null,\"marker\":null,\"marker_byte\":null,\"expected\":\"intact compressed data\",\"found\":\"damaged compressed data\",\"message\":{}}}",
                d.offset,
                json_str(&d.message)
            );
        }
        if let Some(m) = &c.seek_table {
            if !r.problems.is_empty() || c.damaged.is_some() {
                o.push(',');
            }
            let _ = write!(
                o,
                "{{\"offset\":null,\"game\":null,\"ply\":null,\"marker\":null,\"marker_byte\":null,\"expected\":\"a seek table that matches the frames\",\"found\":\"a bad seek table\",\"message\":{}}}",
                json_str(m)
            );
        }
        let _ = write!(
            o,
            "],\"games_with_problems\":{},\"bytes_skipped\":{},\"game_problems\":[",
            r.games_with_problems, r.junk_bytes
        );
        for (j, p) in r.game_problems.iter().enumerate() {
            if j > 0 {
                o.push(',');
            }
            problem(&mut o, p);
        }
        o.push_str("]}");
    }
    o.push_str("]}\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_singular_for_one() {
        assert_eq!(counted(1, "problem", "problems"), "1 problem");
        assert_eq!(counted(0, "game", "games"), "0 games");
        assert_eq!(counted(2, "game", "games"), "2 games");
    }

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_str("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
    }
}
