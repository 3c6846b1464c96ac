"""Writes engine games for training a profile-guided build: each game of
the input (one per line, SAN moves then the result, as `pgc moves --format
san` writes them; standard chess from the initial position) again as PGN,
every move followed by an engine comment in the form of TCEC's archives,
`{d=…, sd=…, mt=…, tl=…, s=…, n=…, pv=…, tb=…, h=…, ph=…, wv=…, R50=…, }`.

The principal variation of a move is the game's own continuation from it
(8 to 40 moves), so each list replays and shares its tail with the one two
plies before, as an engine's do; the numbers are drawn from a seeded
generator. The comments are this script's, not an engine's: they exercise
the code that reads engine notes, not an engine's judgement.

    pgc moves --format san --where 'not FEN~.' games.pgc |
        python3 benches/tools/engine_games.py --games 300 > engine.pgn
"""

from __future__ import annotations

import argparse
import random
import sys

RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


def note(rng: random.Random, ply: int, moves: list[str]) -> str:
    """The engine comment of the move at index `ply` of `moves`."""
    pv = " ".join(moves[ply : ply + rng.randint(8, 40)])
    depth = rng.randint(18, 45)
    mt = rng.randint(1_000, 200_000)
    speed = rng.randint(5_000_000, 80_000_000)
    parts = [
        f"d={depth}",
        f"sd={depth + rng.randint(5, 30)}",
        f"mt={mt}",
        f"tl={max(0, 7_200_000 - ply * 20_000 - mt)}",
        f"s={speed}",
        f"n={speed * mt // 1000}",
        f"pv={pv}",
        f"tb={rng.choice([0, 0, 0, rng.randint(1, 900_000)])}",
        f"h={rng.randint(0, 999) / 10:.1f}",
        f"ph={rng.randint(0, 999) / 10:.1f}",
        f"wv={rng.randint(-300, 300) / 100:.2f}",
        f"R50={max(1, 50 - ply % 50)}",
    ]
    return "{" + ", ".join(parts) + ", }"


def game(rng: random.Random, number: int, moves: list[str], result: str) -> str:
    """One game as PGN, every move commented."""
    tags = [
        ("Event", "Engine notes, generated"),
        ("Site", "?"),
        ("Date", "????.??.??"),
        ("Round", str(number)),
        ("White", "Engine A"),
        ("Black", "Engine B"),
        ("Result", result),
    ]
    out = [f'[{k} "{v}"]' for k, v in tags]
    out.append("")
    line = []
    for ply, san in enumerate(moves):
        if ply % 2 == 0:
            line.append(f"{ply // 2 + 1}. {san} {note(rng, ply, moves)}")
        else:
            line.append(f"{san} {note(rng, ply, moves)}")
    line.append(result)
    out.append("\n".join(line))
    out.append("")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300, help="games written at most")
    ap.add_argument("--min-plies", type=int, default=40, help="shorter games are skipped")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    written = 0
    for text in sys.stdin:
        tokens = text.split()
        if not tokens or tokens[-1] not in RESULTS:
            continue
        moves, result = tokens[:-1], tokens[-1]
        if len(moves) < a.min_plies:
            continue
        written += 1
        sys.stdout.write(game(rng, written, moves, result))
        if written == a.games:
            break


if __name__ == "__main__":
    main()
