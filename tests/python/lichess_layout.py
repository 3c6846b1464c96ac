#!/usr/bin/env python3
"""Writes a PGN file as a Parquet table in the Lichess dataset's layout.

    lichess_layout.py IN.pgn[.zst] OUT.parquet

One row per game, one column per tag name (in order of first appearance)
and `movetext`, the game's movetext on one line. Typed as the Lichess
dataset types them: WhiteElo, BlackElo, WhiteRatingDiff, BlackRatingDiff
int16, UTCDate date32, UTCTime time64[us]; every other tag a string. The
PGN is read line by line (tag lines, then movetext lines up to a blank
line), as the Lichess database writes it; pgc is not used.
"""

import datetime
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq

INT16 = {"WhiteElo", "BlackElo", "WhiteRatingDiff", "BlackRatingDiff"}


def read_text(path):
    if path.endswith(".zst"):
        return subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
    with open(path, "rb") as f:
        return f.read()


def games(text):
    tags, moves = [], []
    for raw in text.decode("utf-8", errors="replace").split("\n"):
        line = raw.strip()
        if line.startswith("[") and line.endswith("]") and not moves:
            name, _, value = line[1:-1].partition(" ")
            value = value.strip()
            assert value.startswith('"') and value.endswith('"'), line
            tags.append((name, value[1:-1].replace('\\"', '"').replace("\\\\", "\\")))
        elif line:
            moves.append(line)
        elif moves:
            yield tags, " ".join(moves)
            tags, moves = [], []
    if tags or moves:
        yield tags, " ".join(moves)


def typed(name, value):
    if value is None:
        return None
    if name in INT16:
        try:
            return int(value)
        except ValueError:
            return None
    if name == "UTCDate":
        return datetime.datetime.strptime(value, "%Y.%m.%d").date()
    if name == "UTCTime":
        return datetime.datetime.strptime(value, "%H:%M:%S").time()
    return value


def arrow_type(name):
    if name in INT16:
        return pa.int16()
    if name == "UTCDate":
        return pa.date32()
    if name == "UTCTime":
        return pa.time64("us")
    return pa.string()


def main():
    src, dst = sys.argv[1], sys.argv[2]
    rows = list(games(read_text(src)))
    names = []
    for tags, _ in rows:
        for n, _ in tags:
            if n not in names:
                names.append(n)
    columns = {}
    for n in names:
        values = [typed(n, dict(tags).get(n)) for tags, _ in rows]
        columns[n] = pa.array(values, type=arrow_type(n))
    columns["movetext"] = pa.array([m for _, m in rows], type=pa.string())
    pq.write_table(pa.table(columns), dst, compression="zstd")
    print(len(rows))


if __name__ == "__main__":
    main()
