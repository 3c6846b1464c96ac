//! `pgc-peer-uci`: the job of `pgc moves` done from PGN, for the comparison
//! in `benches/compare.sh`.
//!
//! ```text
//! pgc-peer-uci FILE OUT
//! ```
//!
//! Reads PGN with [`pgn_reader::Reader`], plays every mainline move with
//! [`shakmaty`] and writes the lines `pgc moves` writes: the moves in UCI,
//! each followed by a space, then the result (the termination marker, else
//! the first `Result` tag, else `*`), one game per line. The comparison
//! checks that its output is the same bytes as `pgc moves`' output of the
//! same games. `OUT` is written through a plain buffered file, neither
//! atomically nor synced: less work than `pgc`'s outputs do. A game with an
//! illegal move or a bad FEN gets no line and is counted.
//!
//! Exit status: 0 when every game was written, 1 when some games had errors,
//! 2 on usage or I/O errors.

use std::{
    fs::File,
    io::{self, BufWriter, Write},
    ops::ControlFlow,
    process::ExitCode,
};

use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::{CastlingMode, Chess, Outcome, Position, fen::Fen};

/// The visitor: writes the UCI line of each game's mainline.
#[derive(Default)]
struct Lines {
    /// Lines written and not yet flushed to the file.
    out: Vec<u8>,
    /// Where the current game's line starts in `out`.
    line: usize,
    /// The current game's first `Result` tag (reused from game to game),
    /// if `has_result`.
    result: Vec<u8>,
    has_result: bool,
    /// The current game's termination marker.
    termination: Option<Outcome>,
    /// Whether the current game broke (bad FEN, illegal move).
    broken: bool,
    games: u64,
    plies: u64,
    errors: u64,
}

impl Lines {
    /// Drops the current game's line and counts the error.
    fn broken(&mut self) -> ControlFlow<()> {
        self.broken = true;
        self.errors += 1;
        self.out.truncate(self.line);
        ControlFlow::Break(())
    }
}

impl Visitor for Lines {
    type Tags = Option<Chess>;
    type Movetext = Chess;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), Option<Chess>> {
        self.games += 1;
        self.line = self.out.len();
        self.has_result = false;
        self.termination = None;
        self.broken = false;
        ControlFlow::Continue(None)
    }

    fn tag(&mut self, tags: &mut Option<Chess>, name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        if name == b"Result" && !self.has_result {
            self.has_result = true;
            self.result.clear();
            self.result.extend_from_slice(value.as_bytes());
        }
        if name == b"FEN" {
            let pos = Fen::from_ascii(value.as_bytes())
                .ok()
                .and_then(|fen| fen.into_position(CastlingMode::Chess960).ok());
            match pos {
                Some(pos) => *tags = Some(pos),
                None => return self.broken(),
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Option<Chess>) -> ControlFlow<(), Chess> {
        ControlFlow::Continue(tags.unwrap_or_default())
    }

    fn san(&mut self, pos: &mut Chess, san_plus: SanPlus) -> ControlFlow<()> {
        let Ok(m) = san_plus.san.to_move(pos) else {
            return self.broken();
        };
        m.to_uci(CastlingMode::Standard)
            .append_ascii_to(&mut self.out);
        self.out.push(b' ');
        pos.play_unchecked(m);
        self.plies += 1;
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _pos: &mut Chess) -> ControlFlow<(), Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn outcome(&mut self, _pos: &mut Chess, outcome: Outcome) -> ControlFlow<()> {
        self.termination.get_or_insert(outcome);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, _pos: Chess) {
        if self.broken {
            return;
        }
        match self.termination {
            Some(o) => self.out.extend_from_slice(o.as_str().as_bytes()),
            None if self.has_result => self.out.extend_from_slice(&self.result),
            None => self.out.push(b'*'),
        }
        self.out.push(b'\n');
    }
}

/// Writes the lines of every game of `input` to `output`.
fn run(input: &str, output: &str) -> io::Result<Lines> {
    let mut reader = Reader::new(pgc_benches::open(input)?);
    let mut file = BufWriter::with_capacity(64 << 10, File::create(output)?);
    let mut lines = Lines::default();
    while reader.read_game(&mut lines)?.is_some() {
        // Whole lines, in chunks.
        if lines.out.len() >= 128 << 10 {
            file.write_all(&lines.out)?;
            lines.out.clear();
        }
    }
    file.write_all(&lines.out)?;
    file.flush()?;
    Ok(lines)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        eprintln!("pgc-peer-uci: bad arguments\nusage: pgc-peer-uci FILE OUT");
        return ExitCode::from(2);
    };
    match run(input, output) {
        Ok(l) => {
            println!(
                "{input}: games {} plies {} errors {}",
                l.games, l.plies, l.errors
            );
            ExitCode::from(u8::from(l.errors > 0))
        }
        Err(err) => {
            eprintln!("pgc-peer-uci: {input}: {err}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_the_moves_then_the_termination_else_the_result_tag() {
        let pgn = b"[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O 1-0\n\n\
[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# *\n\n[Result \"1/2-1/2\"]\n\n1. d4\n\n\
1. e4 Ke7 2. Kd2 Ke5 *\n";
        let mut reader = Reader::new(&pgn[..]);
        let mut lines = Lines::default();
        reader.visit_all_games(&mut lines).unwrap();
        assert_eq!(
            String::from_utf8(lines.out).unwrap(),
            "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 e1g1 1-0\n\
             f2f3 e7e5 g2g4 d8h4 *\n\
             d2d4 1/2-1/2\n"
        );
        // The fourth game's 2... Ke5 (from e7: two squares) is illegal, so
        // it has no line.
        assert_eq!((lines.games, lines.errors), (4, 1));
    }
}
