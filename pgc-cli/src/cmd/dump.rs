//! `pgc dump`: one line per record, to read a PGC file by eye.
//!
//! ```text
//! 0x00000000 game-begin (game 1)
//! 0x00000001 tag-pair Event "F/S Return Match"
//! 0x0000001c short-moves 3: 13 e4 /20, 12 e5 /20, 9 Nf3 /29
//! ```
//!
//! Move ordinals are shown with their SAN and the number of legal moves of
//! their position (an ordinal must be below it). The records come from the
//! [`GameVisitor::record`] hook of a [`GameWalker`], the moves from its
//! [`GameVisitor::play`] calls, so on a broken file the records up to the
//! problem are shown, then the walker's positioned error.

use crate::args::DumpArgs;
use crate::error::{Error, Result, Status};
use crate::io::Input;
use pgc_core::Reader;
use pgc_core::ext;
use pgc_core::record::RecordRef;
use pgc_core::{GameInfo, GameVisitor, GameWalker, Ply};
use shakmaty::Position;
use std::fmt::Write as _;
use std::io::Write;
use std::ops::ControlFlow;

/// How many payload bytes a preview shows.
const PREVIEW: usize = 40;

/// Renders records into lines; `out` holds the pending line.
struct Dump<W: Write> {
    w: W,
    line: String,
    /// Moves already shown on the pending line.
    moves: usize,
    /// The last game begun (1-based).
    game: u64,
    /// Inside 0x05 … 0x06, as far as the records say.
    in_game: bool,
    error: Option<std::io::Error>,
}

/// `"text"` for printable payloads, hex bytes otherwise; cut at [`PREVIEW`].
fn preview(b: &[u8]) -> String {
    let cut = &b[..b.len().min(PREVIEW)];
    let more = if b.len() > PREVIEW { "…" } else { "" };
    let printable = cut
        .iter()
        .all(|&c| c == b' ' || c.is_ascii_graphic() || c >= 0x80 || c == b'\n' || c == b'\t');
    if printable {
        let s = String::from_utf8_lossy(cut);
        format!("{:?}{more}", s.as_ref())
    } else {
        let mut s = String::new();
        for (i, c) in cut.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            let _ = write!(s, "{c:02x}");
        }
        format!("[{s}{more}]")
    }
}

fn text(b: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(b).as_ref())
}

impl<W: Write> Dump<W> {
    fn flush_line(&mut self) {
        if self.line.is_empty() || self.error.is_some() {
            self.line.clear();
            return;
        }
        self.line.push('\n');
        if let Err(e) = self.w.write_all(self.line.as_bytes()) {
            self.error = Some(e);
        }
        self.line.clear();
    }
}

impl<W: Write> GameVisitor for Dump<W> {
    fn begin_game(&mut self, info: &GameInfo) -> ControlFlow<()> {
        self.game = info.index + 1;
        ControlFlow::Continue(())
    }

    fn play(&mut self, ply: &Ply<'_>) -> ControlFlow<()> {
        let legal = ply.before.map_or(0, |b| b.legal_moves().len());
        let sep = if self.moves == 0 { " " } else { ", " };
        let _ = write!(self.line, "{sep}{} {} /{legal}", ply.ordinal, ply.san);
        self.moves += 1;
        ControlFlow::Continue(())
    }

    fn record(&mut self, offset: u64, rec: &RecordRef<'_>) {
        self.flush_line();
        self.moves = 0;
        let l = &mut self.line;
        let _ = write!(l, "0x{offset:08x} {}", rec.marker().name());
        match *rec {
            RecordRef::GameBegin if !self.in_game => {
                self.in_game = true;
                let _ = write!(l, " (game {})", self.game + 1);
            }
            RecordRef::GameEnd => self.in_game = false,
            RecordRef::ReducedGame { roster, moves } => {
                if !self.in_game {
                    let _ = write!(l, " (game {})", self.game + 1);
                }
                for s in roster {
                    let _ = write!(l, " {}", text(s));
                }
                let _ = write!(l, " {}:", moves.len());
            }
            RecordRef::TagPair { name, value } => {
                let _ = write!(l, " {} {}", String::from_utf8_lossy(name), text(value));
            }
            RecordRef::ShortMoves(m) | RecordRef::LongMoves(m) => {
                let _ = write!(l, " {}:", m.len());
            }
            RecordRef::Nag(n) => {
                let _ = write!(l, " ${n}");
            }
            RecordRef::Escape(s) => {
                let _ = write!(l, " ({} bytes) {}", s.len(), preview(s));
            }
            RecordRef::Extension { kind, payload } => {
                let _ = write!(
                    l,
                    " 0x{kind:02x} {} ({} bytes)",
                    ext::kind_name(kind),
                    payload.len()
                );
                if !payload.is_empty() {
                    let _ = write!(l, " {}", preview(payload));
                }
            }
            RecordRef::Noop | RecordRef::GameBegin | RecordRef::RavBegin | RecordRef::RavEnd => {}
        }
    }
}

/// Runs `pgc dump`.
///
/// # Errors
/// Usage and I/O; a broken file gives [`Status::Problems`] after its records
/// and the positioned error.
pub fn run(a: &DumpArgs) -> Result<Status> {
    let input = match &a.input {
        Some(p) => Input::new(p),
        None => Input::list(&[]).remove(0),
    };
    let mut walker = GameWalker::from_reader(Reader::with_limits(
        input.open_pgc()?,
        a.limits.pgc_limits(),
    ));
    let mut d = Dump {
        w: std::io::BufWriter::new(std::io::stdout().lock()),
        line: String::new(),
        moves: 0,
        game: 0,
        in_game: false,
        error: None,
    };
    let result = loop {
        match walker.walk_game(&mut d) {
            Ok(true) => {}
            Ok(false) => break Ok(()),
            Err(e) => break Err(e),
        }
        if d.error.is_some() {
            break Ok(());
        }
    };
    d.flush_line();
    let status = match result {
        Ok(()) => Status::Ok,
        Err(e) => {
            if d.error.is_none()
                && let Err(err) = writeln!(d.w, "error: {e}")
            {
                d.error = Some(err);
            }
            Status::Problems
        }
    };
    if d.error.is_none()
        && let Err(e) = d.w.flush()
    {
        d.error = Some(e);
    }
    if let Some(e) = d.error {
        return Err(Error::io("stdout", &e));
    }
    if status == Status::Problems {
        crate::progress::say(&format!(
            "{}: the file is not valid PGC (see the last line); run `pgc verify {}` for every problem",
            input.name, input.name
        ));
    }
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dump(bytes: &[u8]) -> String {
        let mut walker = GameWalker::new(bytes);
        let mut d = Dump {
            w: Vec::new(),
            line: String::new(),
            moves: 0,
            game: 0,
            in_game: false,
            error: None,
        };
        let r = loop {
            match walker.walk_game(&mut d) {
                Ok(true) => {}
                Ok(false) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        d.flush_line();
        if let Err(e) = r {
            let _ = writeln!(d.w, "error: {e}");
        }
        String::from_utf8(d.w).unwrap()
    }

    #[test]
    fn moves_show_san_and_legal_counts() {
        let s = dump(&[
            0x05, 0x02, 1, b'A', 1, b'B', 0x03, 3, 13, 12, 9, 0x07, 1, 0x06,
        ]);
        assert_eq!(
            s,
            "0x00000000 game-begin (game 1)\n\
             0x00000001 tag-pair A \"B\"\n\
             0x00000006 short-moves 3: 13 e4 /20, 12 e5 /20, 9 Nf3 /29\n\
             0x0000000b simple-nag $1\n\
             0x0000000d game-end\n"
        );
    }

    #[test]
    fn previews() {
        assert_eq!(preview(b"hi"), "\"hi\"");
        assert_eq!(preview(&[0, 1, 0xff]), "[00 01 ff]");
    }
}
