//! `pgc split`: cuts a PGC file into N parts at game boundaries
//! (`-o PREFIX`), or prints the byte ranges of the N parts (`--ranges`), so
//! that a driver can hand each worker its own.
//!
//! - An uncompressed file is cut where games begin, as its game index says
//!   (`FILE.idx` when it is up to date, else [`GameIndex::build`]); records
//!   between games go with the game after them. Every part is PGC on its
//!   own, and the parts, concatenated, are the file.
//! - A seekable `.pgc.zst` is cut between zstd frames that start at a game
//!   boundary, as its frame index says ([`FrameIndex`], from `FILE.idx`
//!   when up to date, else built). Each part is a seekable `.pgc.zst`: the
//!   input's frames, copied as they are, and a seek table of their own. The
//!   parts, concatenated, decompress to the input's data (and read as one
//!   seekable file). A byte range covers whole frames, not the seek table:
//!   each range is a zstd stream on its own.
//!
//! The cut between part k and k+1 (of n) is the place nearest byte
//! `size × k / n`, never before the previous cut; with fewer places than
//! parts, some parts are empty.

use crate::args::SplitArgs;
use crate::batch::index_path;
use crate::error::{Error, Result, Status};
use crate::io::frame_index::FrameIndex;
use crate::io::seekable::{SeekTable, table_bytes};
use crate::io::{Input, Output};
use crate::progress::{Progress, say};
use pgc_core::GameIndex;
use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// A place to cut: a byte offset of the input and the games before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cut {
    offset: u64,
    games: u64,
}

/// The `parts + 1` cuts (the first at 0, the last at `end`) nearest equal
/// byte counts among `places` (ascending offsets).
fn choose(places: &[Cut], end: Cut, parts: u64) -> Vec<Cut> {
    let mut cuts = vec![Cut {
        offset: 0,
        games: 0,
    }];
    for k in 1..parts {
        let target = (u128::from(end.offset) * u128::from(k) / u128::from(parts)) as u64;
        let i = places.partition_point(|c| c.offset < target);
        let after = places.get(i).copied().unwrap_or(end);
        let best = match i.checked_sub(1).map(|j| places[j]) {
            Some(before) if target - before.offset <= after.offset - target => before,
            _ => after,
        };
        let prev = cuts[cuts.len() - 1];
        cuts.push(if best.offset < prev.offset {
            prev
        } else {
            best
        });
    }
    cuts.push(end);
    cuts
}

/// The name of part `k` (1-based) of `parts`.
fn part_path(prefix: &Path, k: u64, parts: u64, ext: &str) -> PathBuf {
    let width = parts.to_string().len();
    let mut name: OsString = prefix.as_os_str().to_owned();
    name.push(format!(".{k:0width$}.{ext}"));
    PathBuf::from(name)
}

/// Prints the ranges, one line per part.
fn print_ranges(cuts: &[Cut]) -> Result<()> {
    let mut out = String::new();
    for (k, w) in cuts.windows(2).enumerate() {
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\n",
            k + 1,
            w[0].offset,
            w[1].offset,
            w[0].games + 1,
            w[1].games - w[0].games
        ));
    }
    std::io::stdout()
        .write_all(out.as_bytes())
        .map_err(|e| Error::io("-", &e))
}

/// Refuses, before anything is written, parts that exist (without
/// `--force`).
fn refuse_existing(paths: &[PathBuf], force: bool) -> Result<()> {
    if let Some(p) = paths.iter().find(|p| !force && p.exists()) {
        return Err(Error::Usage(format!(
            "{} exists; use --force to overwrite",
            p.display()
        )));
    }
    Ok(())
}

/// Why stdin cannot be split.
const NO_STDIN: &str = "pgc split needs a file (stdin cannot be cut in parts)";

/// Runs `pgc split`.
///
/// # Errors
/// Usage (stdin, PGN, a compressed file that is not seekable, parts that
/// exist), I/O, a record that does not frame, a bad seek table.
pub fn run(a: &SplitArgs) -> Result<Status> {
    let input = Input::new(&a.input);
    let Some(path) = input.path().map(Path::to_path_buf) else {
        return Err(Error::Usage(NO_STDIN.into()));
    };
    if std::fs::metadata(&path).is_ok_and(|m| !m.is_file()) {
        return Err(Error::Usage(format!(
            "{}: is not a regular file; pgc split reads its input twice, give a file",
            input.name
        )));
    }
    let limits = a.limits.pgc_limits();
    let progress = Progress::new("split", a.report.quiet);
    let (cuts, what) = match input.seek_table()? {
        Some((mut file, table)) => {
            input.open_pgc()?;
            let idx = frame_index(&path, &mut file, &table, &input, limits)?;
            let places: Vec<Cut> = table
                .frames
                .iter()
                .zip(&idx.frames)
                .filter(|(_, s)| s.at_boundary)
                .map(|(f, s)| Cut {
                    offset: f.offset,
                    games: s.games_before,
                })
                .collect();
            let end = Cut {
                offset: table
                    .frames
                    .last()
                    .map_or(0, |f| f.offset + u64::from(f.compressed)),
                games: idx.games,
            };
            let cuts = choose(&places, end, a.parts);
            if let Some(prefix) = &a.prefix {
                write_frames(&input, &file, &table, &cuts, prefix, a)?;
            }
            (cuts, "frames")
        }
        None => {
            let Some(mut file) = input.open_file()? else {
                return Err(Error::Usage(NO_STDIN.into()));
            };
            let mut head = Vec::with_capacity(16);
            (&mut file)
                .take(16)
                .read_to_end(&mut head)
                .map_err(|e| Error::io(&input.name, &e))?;
            if pgn_bridge::sniff::compression(&head).is_some() {
                return Err(Error::Usage(format!(
                    "{}: is compressed as one stream, which cannot be cut without \
                     decompressing it; split the decompressed file, or a seekable .pgc.zst \
                     (as `pgc encode -o FILE.pgc.zst` writes)",
                    input.name
                )));
            }
            input.open_pgc()?;
            let cuts_of = |idx: &GameIndex| {
                let places: Vec<Cut> = idx
                    .offsets
                    .iter()
                    .enumerate()
                    .map(|(i, &offset)| Cut {
                        offset,
                        games: i as u64,
                    })
                    .collect();
                let end = Cut {
                    offset: idx.file_size,
                    games: idx.offsets.len() as u64,
                };
                choose(&places, end, a.parts)
            };
            let idx = game_index(&path, &mut file, &input, limits)?;
            let mut cuts = cuts_of(&idx);
            // A cut from FILE.idx must fall on a game start (the first cut
            // is the file's start, the last its end, and so are the cuts
            // of the empty parts when there are more parts than games);
            // else the index is damaged and built again.
            let inner = cuts
                .get(1..cuts.len().saturating_sub(1))
                .unwrap_or_default();
            let mut damaged = false;
            for c in inner.iter().filter(|c| c.offset != idx.file_size) {
                if !GameIndex::starts_game(&mut file, c.offset)
                    .map_err(|e| Error::io(&input.name, &e))?
                {
                    damaged = true;
                    break;
                }
            }
            if damaged {
                if !a.report.quiet {
                    say(&format!(
                        "{}: an entry is no game start; indexing the file instead; run \
                         `pgc index` again",
                        index_path(&path).display()
                    ));
                }
                let built =
                    GameIndex::build(&mut file, limits).map_err(|e| data_error(&input, &e))?;
                cuts = cuts_of(&built);
            }
            if let Some(prefix) = &a.prefix {
                write_plain(&input, &file, &cuts, prefix, a)?;
            }
            (cuts, "games")
        }
    };
    if a.ranges {
        print_ranges(&cuts)?;
    } else if progress.verbose() {
        let games = cuts.last().map_or(0, |c| c.games);
        say(&format!(
            "{}: {} parts of {games} games, cut between {what}",
            input.name, a.parts
        ));
    }
    Ok(Status::Ok)
}

/// The game index of an uncompressed file: FILE.idx when up to date, else
/// built.
fn game_index(
    path: &Path,
    file: &mut File,
    input: &Input,
    limits: pgc_core::Limits,
) -> Result<GameIndex> {
    if let Ok(bytes) = std::fs::read(index_path(path))
        && let Ok(idx) = GameIndex::from_bytes(&bytes)
        && idx.check(file).is_ok()
    {
        return Ok(idx);
    }
    GameIndex::build(file, limits).map_err(|e| data_error(input, &e))
}

/// The frame index of a seekable file: FILE.idx when up to date, else
/// built.
fn frame_index(
    path: &Path,
    file: &mut File,
    table: &SeekTable,
    input: &Input,
    limits: pgc_core::Limits,
) -> Result<FrameIndex> {
    if let Ok(bytes) = std::fs::read(index_path(path))
        && let Ok(idx) = FrameIndex::from_bytes(&bytes)
        && idx.check(file, table).is_ok()
    {
        return Ok(idx);
    }
    FrameIndex::build(file, table, limits, pgc_core::worker_threads(None))
        .map_err(|e| data_error(input, &e))
}

fn data_error(input: &Input, e: &std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::InvalidData {
        Error::Data(format!(
            "{}: {e}; run `pgc verify {}` for every problem",
            input.name, input.name
        ))
    } else {
        Error::io(&input.name, e)
    }
}

/// Writes the parts of an uncompressed file: its bytes between the cuts.
fn write_plain(
    input: &Input,
    file: &File,
    cuts: &[Cut],
    prefix: &Path,
    a: &SplitArgs,
) -> Result<()> {
    let paths: Vec<PathBuf> = (1..=a.parts)
        .map(|k| part_path(prefix, k, a.parts, "pgc"))
        .collect();
    refuse_existing(&paths, a.force)?;
    let mut buf = vec![0u8; 256 << 10];
    for (p, w) in paths.iter().zip(cuts.windows(2)) {
        let out = Output::create(Some(p), a.force, std::slice::from_ref(input))?;
        let mut sink = out.sink()?;
        let mut at = w[0].offset;
        while at < w[1].offset {
            let n = buf.len().min((w[1].offset - at) as usize);
            file.read_exact_at(&mut buf[..n], at)
                .map_err(|e| Error::io(&input.name, &e))?;
            sink.put(&buf[..n])?;
            at += n as u64;
        }
        sink.finish()?;
        out.commit()?;
    }
    Ok(())
}

/// Writes the parts of a seekable file: the frames between the cuts,
/// copied, and a seek table for them. An empty part is one empty frame
/// and its table.
fn write_frames(
    input: &Input,
    file: &File,
    table: &SeekTable,
    cuts: &[Cut],
    prefix: &Path,
    a: &SplitArgs,
) -> Result<()> {
    let paths: Vec<PathBuf> = (1..=a.parts)
        .map(|k| part_path(prefix, k, a.parts, "pgc.zst"))
        .collect();
    refuse_existing(&paths, a.force)?;
    let empty = zstd::bulk::compress(&[], 0).map_err(|e| Error::io(&input.name, &e))?;
    let mut buf = Vec::new();
    for (p, w) in paths.iter().zip(cuts.windows(2)) {
        let out = Output::create(Some(p), a.force, std::slice::from_ref(input))?;
        let mut sink = out.raw_sink()?;
        let mut entries = Vec::new();
        for f in table
            .frames
            .iter()
            .filter(|f| (w[0].offset..w[1].offset).contains(&f.offset))
        {
            // The seek table's sizes add up within the file.
            buf.resize(f.compressed as usize, 0);
            file.read_exact_at(&mut buf, f.offset)
                .map_err(|e| Error::io(&input.name, &e))?;
            sink.put(&buf)?;
            entries.push((f.compressed, f.decompressed));
        }
        if entries.is_empty() {
            sink.put(&empty)?;
            entries.push((empty.len() as u32, 0));
        }
        sink.put(&table_bytes(&entries))?;
        sink.finish()?;
        out.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(offset: u64, games: u64) -> Cut {
        Cut { offset, games }
    }

    #[test]
    fn cuts_are_near_equal_sizes_and_ascend() {
        let places: Vec<Cut> = (0..10).map(|i| cut(i * 100, i)).collect();
        let end = cut(1000, 10);
        assert_eq!(
            choose(&places, end, 2),
            [cut(0, 0), cut(500, 5), cut(1000, 10)]
        );
        // 1000/3 = 333: nearest is 300; 666: nearest is 700.
        assert_eq!(
            choose(&places, end, 3),
            [cut(0, 0), cut(300, 3), cut(700, 7), cut(1000, 10)]
        );
        // More parts than places: empty parts, never a cut going back.
        let few = [cut(0, 0), cut(900, 1)];
        let c = choose(&few, cut(1000, 2), 4);
        assert_eq!(c.len(), 5);
        assert!(c.windows(2).all(|w| w[0].offset <= w[1].offset));
        assert_eq!(c[4], cut(1000, 2));
        assert_eq!(choose(&[], cut(0, 0), 3), [cut(0, 0); 4]);
    }

    #[test]
    fn part_names_are_padded_to_the_count() {
        let p = Path::new("out/part");
        assert_eq!(part_path(p, 3, 4, "pgc"), Path::new("out/part.3.pgc"));
        assert_eq!(
            part_path(p, 3, 12, "pgc.zst"),
            Path::new("out/part.03.pgc.zst")
        );
    }
}
