#!/usr/bin/env python3
"""Queries a table made by `pgc export` with DuckDB, and the same questions
answered from the PGN with python-chess (pgc is not used for the second).

    duckdb_queries.py TABLE.parquet OUT_DIR PGN...

Prints one line per answer: QUERY<TAB>SOURCE<TAB>JSON, SOURCE being
`duckdb` or `pgn`, and last `player<TAB>GAMES<TAB>NAME` (JSON). The queries:

- result_counts: games per Result where WhiteElo >= 2400;
- player_games: White, Black, Result and plies of every game of the player
  with the most games, in file order;
- eco_plies: the average plies per ECO code (6 decimals) and the games;

and two files written by DuckDB for the caller to read back with
`pgc import`: OUT_DIR/all.parquet (every row's `pgc`, in file order) and
OUT_DIR/player.parquet (the `pgc` of the player's games).
"""

import collections
import io
import json
import os
import subprocess
import sys

import chess.pgn
import duckdb


def read_text(path):
    if path.endswith(".zst"):
        data = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
    else:
        with open(path, "rb") as f:
            data = f.read()
    return data.decode("utf-8", errors="replace")


def pgn_games(paths):
    for path in paths:
        stream = io.StringIO(read_text(path))
        while True:
            game = chess.pgn.read_game(stream)
            if game is None:
                break
            yield game


def elo(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def emit(query, source, value):
    print(f"{query}\t{source}\t{json.dumps(value, sort_keys=True)}")


def main():
    table, out_dir, pgns = sys.argv[1], sys.argv[2], sys.argv[3:]
    games = []
    for g in pgn_games(pgns):
        h = g.headers
        games.append(
            {
                "White": h.get("White"),
                "Black": h.get("Black"),
                "Result": h.get("Result"),
                "WhiteElo": elo(h.get("WhiteElo")),
                "ECO": h.get("ECO"),
                "plies": sum(1 for _ in g.mainline_moves()),
            }
        )
    players = collections.Counter()
    for g in games:
        players[g["White"]] += 1
        players[g["Black"]] += 1
    player = sorted(players.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]

    counts = collections.Counter(
        g["Result"] for g in games if g["WhiteElo"] is not None and g["WhiteElo"] >= 2400
    )
    emit("result_counts", "pgn", dict(counts))
    emit(
        "player_games",
        "pgn",
        [
            [g["White"], g["Black"], g["Result"], g["plies"]]
            for g in games
            if player in (g["White"], g["Black"])
        ],
    )
    eco = collections.defaultdict(list)
    for g in games:
        if g["ECO"] is not None:
            eco[g["ECO"]].append(g["plies"])
    emit("eco_plies", "pgn", {k: [round(sum(v) / len(v), 6), len(v)] for k, v in eco.items()})

    con = duckdb.connect()
    quoted = table.replace("'", "''")
    con.execute(f"CREATE VIEW t AS SELECT * FROM read_parquet('{quoted}', file_row_number = true)")
    rows = con.execute(
        "SELECT Result, count(*) FROM t WHERE WhiteElo >= 2400 GROUP BY 1"
    ).fetchall()
    emit("result_counts", "duckdb", {r: n for r, n in rows})
    player_rows = con.execute(
        "SELECT White, Black, Result, plies FROM t WHERE White = ? OR Black = ? "
        "ORDER BY file_row_number",
        [player, player],
    ).fetchall()
    emit("player_games", "duckdb", [list(r) for r in player_rows])
    rows = con.execute(
        "SELECT ECO, avg(plies), count(*) FROM t WHERE ECO IS NOT NULL GROUP BY 1"
    ).fetchall()
    emit("eco_plies", "duckdb", {e: [round(a, 6), n] for e, a, n in rows})

    all_path = os.path.join(out_dir, "all.parquet")
    player_path = os.path.join(out_dir, "player.parquet")
    con.execute(
        f"COPY (SELECT pgc FROM t ORDER BY file_row_number) TO '{all_path}' (FORMAT parquet)"
    )
    escaped = player.replace("'", "''")
    con.execute(
        f"COPY (SELECT pgc FROM t WHERE White = '{escaped}' OR Black = '{escaped}' "
        f"ORDER BY file_row_number) TO '{player_path}' (FORMAT parquet)"
    )
    print(f"player\t{len(player_rows)}\t{json.dumps(player)}")


if __name__ == "__main__":
    main()
