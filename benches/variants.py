"""Encode and decode speed per chess variant, beside standard chess and
python-chess reading the same games (BENCHMARKS.md, "Variants").

For each Lichess variant, python-chess plays --games seeded random legal
games (tests/python/variant_games.py, the generator of the cross-check) into
one PGN file; then, in one run:

- `pgc encode -j 1` of the file and `pgc decode -j 1` of its PGC (median of
  --rounds runs each, wall time);
- python-chess `chess.pgn.read_game` of the same file (one run: it is slow).

    python3 benches/variants.py [--games 300] [--rounds 5] [--pgc target/release/pgc]

Prints a Markdown table: plies, the times, microseconds per ply, and the
decode matching the input byte for byte.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "python"))

import chess.pgn  # noqa: E402
import variant_games  # noqa: E402


def median_time(cmd: list[str], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def write_games(path: pathlib.Path, name: str, cls: type, games: int, seed: int) -> int:
    rng = random.Random(seed)
    exporter = {"columns": None, "headers": True, "variations": False, "comments": False}
    plies = 0
    with open(path, "w", encoding="ascii") as f:
        for i in range(games):
            game, positions = variant_games.random_game(name, cls, rng)
            game.headers["Event"] = f"Random {name} game {i + 1}"
            plies += positions - 1
            f.write(game.accept(chess.pgn.StringExporter(**exporter)))
            f.write("\n\n")
    return plies


def python_chess_read(path: pathlib.Path) -> float:
    start = time.perf_counter()
    with open(path, encoding="ascii") as f:
        while chess.pgn.read_game(f) is not None:
            pass
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--pgc", default=str(ROOT / "target" / "release" / "pgc"))
    a = parser.parse_args()
    print(
        "| variant | games | plies | encode | decode | encode µs/ply | decode µs/ply "
        "| python-chess read | byte-identical |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        d = pathlib.Path(tmp)
        for name, cls in variant_games.VARIANTS:
            pgn, pgc, back = d / "in.pgn", d / "in.pgc", d / "back.pgn"
            plies = write_games(pgn, name, cls, a.games, a.seed)
            enc = [a.pgc, "encode", "-q", "-j", "1", str(pgn), "-o", str(pgc), "--force"]
            dec = [a.pgc, "decode", "-q", "-j", "1", str(pgc), "-o", str(back), "--force"]
            t_enc = median_time(enc, a.rounds)
            t_dec = median_time(dec, a.rounds)
            same = pgn.read_bytes() == back.read_bytes()
            t_py = python_chess_read(pgn)
            print(
                f"| {name} | {a.games} | {plies:,} | {t_enc * 1000:.1f} ms "
                f"| {t_dec * 1000:.1f} ms | {t_enc / plies * 1e6:.2f} | {t_dec / plies * 1e6:.2f} "
                f"| {t_py * 1000:.0f} ms | {'yes' if same else 'NO'} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
