"""Times the Python package `pgc` against rust_pgn_reader_python_binding,
python-chess and `pgc encode`, on one PGN file, in one run:

- `pgc.read_arrow` of the file's PGC (UCI moves, clocks, evals) and
  `pgc.training_arrays` against `rust_pgn_reader_python_binding.parse_games`
  of the same games (one PGN string per game, in a pyarrow array), with the
  same number of threads; and the time to `read_arrow`'s first batch (the
  batches are converted while they are read) against its whole table; and
  the kernel CPU time of a `parse_games` and of a `training_arrays` call
  (the page faults of the fresh memory their arrays take);
- `pgc.read` (games as Python objects) against python-chess
  `chess.pgn.read_game` (on the first --chess-games games, per game);
- `pgc.dask.encode_shards` of the file cut into 8 shards on a 2-worker
  LocalCluster against `pgc encode -j 2`.

    python3 benches/python_compare.py INPUT.pgn [--threads 2] [--pgc target/release/pgc]

Installs rust_pgn_reader_python_binding with pip when it is missing. Prints
a Markdown table (the median of --repeat runs of each).
"""

from __future__ import annotations

import argparse
import io
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import pgc
import pgc.dask
import pyarrow as pa


def median_time(f, repeat: int) -> float:
    """The median wall time of `repeat` calls of `f`."""
    return median_times(f, repeat)[0]


def median_times(f, repeat: int) -> tuple[float, float]:
    """The median wall time of `repeat` calls of `f`, and the median of the
    process's kernel (system) CPU time in a call: mostly the page faults
    of the fresh memory its results take."""
    times, kernel = [], []
    for _ in range(repeat):
        k = resource.getrusage(resource.RUSAGE_SELF).ru_stime
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
        kernel.append(resource.getrusage(resource.RUSAGE_SELF).ru_stime - k)
    return statistics.median(times), statistics.median(kernel)


def peer():
    try:
        import rust_pgn_reader_python_binding as r
    except ImportError:
        print("installing rust_pgn_reader_python_binding (pip)", file=sys.stderr)
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "rust_pgn_reader_python_binding"],
            check=True,
        )
        import rust_pgn_reader_python_binding as r
    return r


def shards_of(text: bytes, n: int) -> list[bytes]:
    """`text` cut into about `n` pieces at game starts (a tag line after an
    empty line)."""
    starts, step = [0], len(text) // n
    at = step
    while len(starts) < n:
        i = text.find(b"\n\n[", at)
        if i < 0:
            break
        starts.append(i + 2)
        at = i + 2 + step
    return [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)], strict=True)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input", type=pathlib.Path, help="a PGN file (plain or compressed)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--chess-games", type=int, default=1000)
    ap.add_argument("--pgc", default=None, help="the pgc command (default: target/release/pgc)")
    ap.add_argument("--no-dask", action="store_true")
    a = ap.parse_args()
    root = pathlib.Path(__file__).resolve().parents[1]
    cli = a.pgc or str(root / "target" / "release" / "pgc")
    threads, repeat = a.threads, a.repeat

    data = pgc.to_pgc(a.input)
    text = pgc._pgc.decompress(a.input.read_bytes())
    games = list(pgc.read(data, threads=threads))
    plies = sum(len(g) for g in games)
    strings = pa.chunked_array([pa.array([g.pgn() for g in games], pa.large_string())])
    rows = []

    def row(what: str, seconds: float, against: float | None = None) -> None:
        ratio = "" if against is None else f"{seconds / against:.3f}"
        rows.append((what, f"{seconds:.3f}", ratio))

    r = peer()
    t_peer, k_peer = median_times(lambda: r.parse_games(strings, num_threads=threads), repeat)
    row(f"rust_pgn_reader_python_binding.parse_games, {threads} threads", t_peer)
    cols = ["clocks", "evals"]
    t_table = median_time(
        lambda: pgc.read_arrow(data, columns=cols, uci=True, threads=threads).read_all(), repeat
    )
    row("pgc.read_arrow (uci, clocks, evals) / parse_games", t_table, t_peer)
    firsts = []
    for _ in range(repeat):
        t = time.perf_counter()
        reader = pgc.read_arrow(data, columns=cols, uci=True, threads=threads)
        reader.read_next_batch()
        firsts.append(time.perf_counter() - t)
        # Dropping the reader (it stops its threads) is not timed.
        del reader
    row("pgc.read_arrow, its first batch / the whole table", statistics.median(firsts), t_table)
    t, k = median_times(lambda: pgc.training_arrays(data, threads=threads), repeat)
    row("pgc.training_arrays / parse_games", t, t_peer)
    row("parse_games: kernel CPU time in a call / its wall time", k_peer, t_peer)
    row("pgc.training_arrays: kernel CPU time in a call / its wall time", k, t)

    import chess.pgn

    n = min(a.chess_games, len(games))
    sample = b"".join(g.pgn().encode() for g in games[:n]).decode("utf-8", errors="replace")

    def python_chess():
        f = io.StringIO(sample)
        while chess.pgn.read_game(f) is not None:
            pass

    t_chess = median_time(python_chess, 1) / n * len(games)
    row(f"python-chess read_game (from {n} games, scaled)", t_chess)
    t = median_time(lambda: sum(1 for _ in pgc.read(data, threads=threads)), repeat)
    row("pgc.read (Game objects) / python-chess", t, t_chess)

    if not a.no_dask:
        from distributed import Client, LocalCluster

        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for i, s in enumerate(shards_of(text, 8)):
                p = pathlib.Path(tmp) / f"shard-{i}.pgn"
                p.write_bytes(s)
                paths.append(p)
            whole = pathlib.Path(tmp) / "whole.pgn"
            whole.write_bytes(text)
            out = pathlib.Path(tmp) / "out.pgc"
            t_cli = median_time(
                lambda: subprocess.run(
                    [cli, "encode", "-q", "-f", "-j", "2", str(whole), "-o", str(out)], check=True
                ),
                repeat,
            )
            row("pgc encode -j 2 (one process)", t_cli)
            with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as c:
                with Client(c) as client:
                    t = median_time(
                        lambda: pgc.dask.encode_shards(paths, str(out) + ".dask", client=client),
                        repeat,
                    )
            row("pgc.dask.encode_shards, 8 shards, 2 workers / pgc encode -j 2", t, t_cli)
            same = (pathlib.Path(str(out) + ".dask")).read_bytes() == out.read_bytes()
            assert same, "the Dask conversion differs from pgc encode"

    print(f"{a.input.name}: {len(games)} games, {plies} plies, {len(text)} bytes of PGN, ", end="")
    print(f"{len(data)} bytes of PGC; {os.cpu_count()} cores\n")
    print("| what | seconds | ratio |")
    print("| --- | ---: | ---: |")
    for what, s, ratio in rows:
        print(f"| {what} | {s} | {ratio} |")


if __name__ == "__main__":
    main()
