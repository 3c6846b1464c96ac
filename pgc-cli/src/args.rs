//! The command line as clap parses it: raw flags, kept apart from the
//! validated options each command builds from them.

use clap::{Args, Parser, Subcommand};
use pgc_core::Limits;
use std::path::PathBuf;

/// Converts chess PGN to and from PGC, the binary game coding of section 20
/// of the 1994 PGN standard, and checks and inspects PGC files.
///
/// `-` or no file means stdin/stdout. Inputs compressed with zstd, gzip or
/// bzip2 are read transparently; outputs ending in `.zst` (or `.gz`, `.bz2`)
/// are compressed, `.zst` in zstd's seekable format. Exit status: 0
/// success, 1 rejected games or problems found in the data, 2 usage or I/O
/// error.
#[derive(Debug, Parser)]
#[command(name = "pgc", version, about, max_term_width = 100)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// PGN -> PGC.
    Encode(EncodeArgs),
    /// PGC -> PGN export format.
    Decode(DecodeArgs),
    /// Check PGC files (structure, legality, extension records).
    Verify(VerifyArgs),
    /// Show every record of a PGC file, one per line.
    Dump(DumpArgs),
    /// Counts and sizes of PGC files.
    Info(InfoArgs),
    /// PGC -> moves (UCI or SAN, one game per line) or positions (FEN or
    /// EPD, one per line), for engines and training pipelines.
    Moves(MovesArgs),
    /// Write FILE.idx, the game offsets of a PGC file (or the first game of
    /// every frame of a seekable .pgc.zst), for `--games`.
    Index(IndexArgs),
    /// Cut a PGC file (plain or a seekable .pgc.zst) into parts at game
    /// boundaries, or print the byte ranges of the parts.
    Split(SplitArgs),
    /// PGC or PGN -> a table of games, one row per game (Parquet, Arrow IPC
    /// file or stream), for DuckDB, polars, Spark and the like.
    Export(ExportArgs),
    /// A table of games made by `pgc export` -> PGC (its `pgc` column).
    Import(ImportArgs),
}

/// Output formats of `pgc decode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DecodeFormat {
    /// PGN export format.
    Pgn,
    /// JSON Lines, one game per line.
    Jsonl,
}

/// Where the output goes.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Output file (`-` or none: stdout). Written to a temporary file in its
    /// directory and put in place at the end; devices, pipes and
    /// `/dev/stdout` are written directly.
    #[arg(short, long, value_name = "OUTPUT")]
    pub output: Option<PathBuf>,
    /// Overwrite existing output files.
    #[arg(short, long)]
    pub force: bool,
}

/// Progress and summary on stderr.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// No progress bar and no summary on stderr. The games `encode`
    /// rejects are not listed either: exit status 1 says there were some.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Resource limits.
#[derive(Debug, Args)]
pub struct LimitArgs {
    /// Longest PGC string or extension payload accepted when reading PGC,
    /// and written by encode (default 16 MiB; a PGC written with a higher
    /// limit reads back with it).
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_string: Option<u32>,
    /// Deepest RAV nesting accepted (default 256; at least 1 for encode).
    #[arg(long, value_name = "N")]
    pub max_rav_depth: Option<u32>,
    /// Largest PGN game accepted when reading PGN, comments included
    /// (default 64 MiB); a larger game is an error naming this option.
    #[arg(long, value_name = "BYTES")]
    pub max_game_bytes: Option<usize>,
}

impl LimitArgs {
    /// The limits for reading PGC.
    pub fn pgc_limits(&self) -> Limits {
        let d = Limits::DEFAULT;
        Limits {
            max_string: self.max_string.unwrap_or(d.max_string),
            max_rav_depth: self.max_rav_depth.unwrap_or(d.max_rav_depth),
        }
    }

    /// The largest PGN game accepted, in bytes.
    pub fn max_game_bytes(&self) -> usize {
        self.max_game_bytes
            .unwrap_or(pgn_bridge::DEFAULT_MAX_GAME_BYTES)
    }
}

/// `pgc encode`.
#[derive(Debug, Args)]
pub struct EncodeArgs {
    /// PGN input files, processed in order (`-` or none: stdin). A Parquet
    /// or Arrow IPC file in the Lichess dataset's layout (a column per tag
    /// and `movetext`) is read as the PGN of its rows.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Write 1994 records only and report what could not be kept.
    #[arg(long)]
    pub strict: bool,
    /// Write games that could not be converted here, verbatim, each after a
    /// `%` line giving the reason (`-`: stdout, when -o names a file).
    #[arg(long, value_name = "FILE")]
    pub rejects: Option<PathBuf>,
    /// With --strict: write one line per game that lost something (input,
    /// game number, what was not kept) to FILE (`-`: stdout, when -o names
    /// a file).
    #[arg(long, value_name = "FILE", requires = "strict")]
    pub strict_report: Option<PathBuf>,
    /// Worker threads (default: all cores). At most 4 × the cores and at
    /// most 256: a larger N is lowered. Output is identical for every N.
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Limits.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Reporting.
    /// Choosing games: --where, --dedup. A filtered encode is not a
    /// byte-exact copy of its input.
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub report: ReportArgs,
}

/// What the commands that read PGC in batches (`pgc decode`, `pgc moves`)
/// share: inputs, output, a game range, workers, limits and reporting.
#[derive(Debug, Args)]
pub struct PgcBatchArgs {
    /// PGC input files, processed in order (`-` or none: stdin).
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Only these games: `17`, `1000..2000` (1-based, both ends included),
    /// `1000..` or `..2000`. Uses FILE.idx (see `pgc index`) to seek when
    /// it is present and up to date (in a seekable .pgc.zst: to the frame
    /// holding the first game), else scans. A range past the last game gets
    /// a warning, not an error.
    #[arg(long, value_name = "RANGE", value_parser = parse_games)]
    pub games: Option<GameRange>,
    /// Worker threads (default: all cores); a seekable .pgc.zst is also
    /// decompressed on N threads. At most 4 × the cores and at most 256: a
    /// larger N is lowered. Output is identical for every N.
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Limits.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Reporting.
    #[command(flatten)]
    pub report: ReportArgs,
}

/// `pgc decode`.
#[derive(Debug, Args)]
pub struct DecodeArgs {
    /// Inputs, output, games, workers, limits, reporting.
    #[command(flatten)]
    pub batch: PgcBatchArgs,
    /// The standard's strict export format (section 8.2.1): the Seven Tag
    /// Roster first, a missing roster tag with its unknown value (`?`,
    /// `????.??.??`, `*`), then the other tags in ASCII order, and a
    /// termination marker ending every game (`*` where it has none);
    /// layout records are ignored.
    #[arg(long)]
    pub strict_export: bool,
    /// Every game in the export format's text layout (section 8.2: line
    /// width, spacing, move numbers), whatever its layout in the file it
    /// came from: layout records and text patches are ignored (by default
    /// the text comes back byte for byte). The tags stay as the game has
    /// them, and a game without a termination marker gets none: add
    /// `--strict-export` for the roster and the marker.
    #[arg(long)]
    pub export: bool,
    /// Output format: `pgn` (export format) or `jsonl` (one JSON object per
    /// game: tags, result, main-line moves with UCI, SAN, and `[%clk]`,
    /// `[%emt]`, `[%eval]` values as numbers).
    #[arg(long, value_enum, default_value_t = DecodeFormat::Pgn)]
    pub format: DecodeFormat,
    /// Choosing games: --where, --dedup.
    #[command(flatten)]
    pub select: SelectArgs,
}

/// `pgc verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// PGC files to check (`-` or none: stdin).
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// One JSON document on stdout instead of text.
    #[arg(long)]
    pub json: bool,
    /// Problems listed per file; further ones are only counted.
    #[arg(long, value_name = "N", default_value_t = pgc_core::DEFAULT_MAX_PROBLEMS)]
    pub max_problems: usize,
    /// Limits.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `pgc dump`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    /// The PGC file (`-` or none: stdin).
    #[arg(value_name = "INPUT")]
    pub input: Option<PathBuf>,
    /// Limits.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `pgc info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// PGC files (`-` or none: stdin).
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Limits.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// What `pgc moves` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MovesFormat {
    /// One game per line: UCI moves (`e2e4`, `e7e8q`; castling `e1g1` in
    /// standard chess, king takes rook in Chess960), then the result.
    Uci,
    /// One game per line: SAN moves (`Nf3`, `O-O`, `exd8=Q+`), then the result.
    San,
    /// One position per line: FEN, ply, next move (UCI, `-` at the end of
    /// a line), result, separated by tabs.
    Fen,
    /// As `fen` with EPD (no move counters) instead of FEN.
    Epd,
    /// Positions for training, as CSV with a header row: one row per
    /// position before each main-line move: game (1-based), ply, fen,
    /// move (UCI), elo and opponent_elo (of the side to move and the
    /// other), clock (the mover's `[%clk]` after its previous move, in
    /// seconds), eval (`[%eval]` after the move that reached the position:
    /// centipawns, or `#N` mate, White's view), result (1, 0.5, 0 for the
    /// side to move; empty for `*`).
    Csv,
}

/// `pgc moves`.
#[derive(Debug, Args)]
pub struct MovesArgs {
    /// Inputs, output, games, workers, limits, reporting.
    #[command(flatten)]
    pub batch: PgcBatchArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = MovesFormat::Uci)]
    pub format: MovesFormat,
    /// Main lines only (the default).
    #[arg(long, conflicts_with = "all")]
    pub mainline: bool,
    /// Variations too: in parentheses after the move they replace (uci,
    /// san), or their positions as well (fen, epd).
    #[arg(long)]
    pub all: bool,
    /// Choosing games: --where, --dedup.
    #[command(flatten)]
    pub select: SelectArgs,
    /// Leave out the positions before ply N (the opening plies; fen, epd,
    /// csv).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub skip_plies: u32,
    /// Leave out the positions whose mover had less than SECONDS on the
    /// clock, or no known clock (csv).
    #[arg(long, value_name = "SECONDS")]
    pub min_clock: Option<f64>,
}

/// `--where`, `--dedup`, `--duplicates`: which games a command keeps.
#[derive(Debug, Args)]
pub struct SelectArgs {
    /// Keep the games the expression selects (README, "Choosing games"):
    /// comparisons on tags (`WhiteElo>=2400`, `Date>=2020.01.01`,
    /// `White="Carlsen, Magnus"`, `Event~Titled`), `and`, `or`, `not`,
    /// parentheses, and the fields Elo, EloDiff, Player, Speed, Plies, Bot,
    /// Variant. Several --where must all hold.
    #[arg(long = "where", value_name = "EXPR", value_parser = crate::select::parse_where)]
    pub filters: Vec<pgc_core::filter::Filter>,
    /// Keep the first of games with the same start position and main line
    /// (`--dedup=tags`: and the same White, Black and Date).
    #[arg(long, value_enum, value_name = "WHAT", num_args = 0..=1,
          require_equals = true, default_missing_value = "moves")]
    pub dedup: Option<crate::select::DedupMode>,
    /// Write the games --dedup drops to FILE, each naming the game it
    /// duplicates (1-based): a `DuplicateOf` tag in PGN, a
    /// `"duplicate_of"` member in JSONL, a `# duplicate of game N` line
    /// before its lines in `pgc moves` (`-`: stdout, when -o names a file).
    #[arg(long, value_name = "FILE")]
    pub duplicates: Option<PathBuf>,
}

impl SelectArgs {
    /// The selection these flags ask for.
    pub fn selection(&self) -> crate::select::Selection {
        crate::select::Selection::new(&self.filters, self.dedup)
    }
}

/// `pgc index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Uncompressed PGC files or seekable .pgc.zst files; each gets FILE.idx
    /// beside it (replaced if present).
    #[arg(value_name = "FILE", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Limits.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Reporting.
    #[command(flatten)]
    pub report: ReportArgs,
}

/// `pgc split`.
#[derive(Debug, Args)]
pub struct SplitArgs {
    /// A PGC file: uncompressed, or a seekable .pgc.zst (as pgc writes).
    #[arg(value_name = "FILE")]
    pub input: PathBuf,
    /// Number of parts (about the same size each; a part is empty when
    /// there are fewer places to cut than parts).
    #[arg(short = 'n', long = "parts", value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub parts: u64,
    /// Write the parts as PREFIX.1.pgc, PREFIX.2.pgc, … (.pgc.zst for a
    /// seekable input; numbers zero-padded to the width of N).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "PREFIX",
        required_unless_present = "ranges",
        conflicts_with = "ranges"
    )]
    pub prefix: Option<PathBuf>,
    /// Print the parts' byte ranges instead, one line per part: part
    /// number, first byte, end (exclusive), first game, games (tab
    /// separated; game numbers 1-based).
    #[arg(long)]
    pub ranges: bool,
    /// Overwrite existing parts.
    #[arg(long)]
    pub force: bool,
    /// Limits.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Reporting.
    #[command(flatten)]
    pub report: ReportArgs,
}

/// The file formats of `pgc export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TableFormat {
    /// Apache Parquet.
    Parquet,
    /// Arrow IPC file.
    Arrow,
    /// Arrow IPC stream.
    Arrows,
}

/// `pgc export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// PGC or PGN input files, processed in order (`-` or none: stdin). PGN
    /// is encoded first, as `pgc encode` does.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Table format (default: from the output's name: `.parquet`, `.arrow`,
    /// `.arrows`; Parquet on stdout).
    #[arg(long, value_enum)]
    pub format: Option<TableFormat>,
    /// Only these columns, comma-separated (`--columns White,Black,Result,pgc`);
    /// default: all but `uci` and `san`. A table of tag columns, `plies` and
    /// `pgc` only is made without replaying the moves (their ordinals are
    /// then not checked: `pgc verify` checks them)
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub columns: Vec<String>,
    /// Add the `uci` column: the main line's moves in UCI.
    #[arg(long)]
    pub uci: bool,
    /// Add the `san` column: the main line's moves in SAN.
    #[arg(long)]
    pub san: bool,
    /// Add the `engine_` columns: evaluation, mate, depth, time, nodes and
    /// principal variation (UCI) of each main-line ply's engine note
    /// (TCEC, cutechess-cli comments; spec/extensions-engine.md).
    #[arg(long)]
    pub engine: bool,
    /// Only these games of each input: `17`, `1000..2000` (1-based, both
    /// ends included), `1000..` or `..2000`. A PGC file seeks with its
    /// index (see `pgc index`) as `pgc decode` does; PGN is read up to the
    /// first wanted game without encoding the games before it.
    #[arg(long, value_name = "RANGE", value_parser = parse_games)]
    pub games: Option<GameRange>,
    /// Rows per Parquet row group (at least 1).
    #[arg(long, value_name = "ROWS", default_value_t = 65_536,
          value_parser = clap::value_parser!(u64).range(1..=u64::from(u32::MAX)))]
    pub row_group_size: u64,
    /// Parquet compression level (zstd, 1 to 22); 0 writes the Parquet
    /// uncompressed.
    #[arg(long, value_name = "LEVEL", default_value_t = 3)]
    pub zstd_level: i32,
    /// Worker threads (default: all cores). At most 4 × the cores and at
    /// most 256: a larger N is lowered. Output is identical for every N.
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Limits.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// A table of positions for training instead of games: one row per
    /// position before each main-line move (game, ply, fen, move, elo,
    /// opponent_elo, clock, eval, mate, result), as `pgc moves --format
    /// csv` writes them.
    #[arg(long)]
    pub positions: bool,
    /// With --positions: leave out the positions before ply N.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "positions")]
    pub skip_plies: u32,
    /// With --positions: leave out the positions whose mover had less than
    /// SECONDS on the clock, or no known clock.
    #[arg(long, value_name = "SECONDS", requires = "positions")]
    pub min_clock: Option<f64>,
    /// Choosing games: --where, --dedup.
    #[command(flatten)]
    pub select: SelectArgs,
    /// Reporting.
    #[command(flatten)]
    pub report: ReportArgs,
}

/// `pgc import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Tables made by `pgc export` (Parquet, Arrow IPC file or stream),
    /// processed in order. `-` or a pipe: an Arrow IPC stream, read as it
    /// comes (Parquet and Arrow IPC files are read by seeking: give their
    /// names).
    #[arg(value_name = "INPUT", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Reporting.
    #[command(flatten)]
    pub report: ReportArgs,
}

/// A range of games: 0-based, both ends included (`last: None` is the end
/// of the input). Written 1-based on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameRange {
    /// First game kept, 0-based.
    pub first: u64,
    /// Last game kept, 0-based, if bounded.
    pub last: Option<u64>,
}

/// Parses `--games`: `17`, `1000..2000` (1-based, both ends included),
/// `1000..`, `..2000`. `..=` is accepted for `..`.
///
/// # Errors
/// A message saying what is expected.
pub fn parse_games(s: &str) -> std::result::Result<GameRange, String> {
    let num = |t: &str| -> std::result::Result<u64, String> {
        let n: u64 = t
            .trim()
            .parse()
            .map_err(|_| format!("{t:?} is not a game number (expected 1, 2, …)"))?;
        if n == 0 {
            return Err("game numbers start at 1".into());
        }
        Ok(n - 1)
    };
    let Some((a, b)) = s.split_once("..") else {
        let n = num(s)?;
        return Ok(GameRange {
            first: n,
            last: Some(n),
        });
    };
    let b = b.strip_prefix('=').unwrap_or(b);
    let first = if a.trim().is_empty() { 0 } else { num(a)? };
    let last = if b.trim().is_empty() {
        None
    } else {
        Some(num(b)?)
    };
    if last.is_some_and(|l| l < first) {
        return Err(format!(
            "{s}: the range ends before it starts (expected FIRST..LAST with FIRST <= LAST)"
        ));
    }
    Ok(GameRange { first, last })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_ranges() {
        let r = |first, last| GameRange { first, last };
        assert_eq!(parse_games("17"), Ok(r(16, Some(16))));
        assert_eq!(parse_games("1000..2000"), Ok(r(999, Some(1999))));
        assert_eq!(parse_games("1..=3"), Ok(r(0, Some(2))));
        assert_eq!(parse_games("5.."), Ok(r(4, None)));
        assert_eq!(parse_games("..5"), Ok(r(0, Some(4))));
        assert!(parse_games("0").is_err());
        assert!(parse_games("3..2").is_err());
        assert!(parse_games("x").is_err());
    }
}
