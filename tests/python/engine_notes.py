"""Cross-check of engine notes against python-chess.

Usage: engine_notes.py ORIGINAL.pgn DECODED.jsonl

python-chess reads the original PGN; for every main-line move that has an
engine comment, the values pgc gives in its JSON Lines (``engine``: eval,
depth, nodes, time, the principal variation in UCI) must be what the
comment says, the PV replayed by python-chess from the position before the
move (TCEC PVs start with the move played). Prints one line of counts and
exits 1 on the first difference.
"""

import json
import re
import sys

import chess
import chess.pgn

KEY = re.compile(r"(?:^|[\s,])(\w+)=([^,]*)")


def fields(comment: str) -> dict:
    """The key=value pairs of a TCEC comment."""
    return {k: v.strip() for k, v in KEY.findall(comment)}


def expect(cond: bool, what: str) -> None:
    if not cond:
        print(f"mismatch: {what}")
        sys.exit(1)


def main() -> None:
    original, decoded = sys.argv[1], sys.argv[2]
    rows = [json.loads(line) for line in open(decoded, encoding="utf-8")]
    checked = {"notes": 0, "pv_moves": 0, "evals": 0, "depths": 0, "nodes": 0}
    with open(original, encoding="utf-8", errors="replace") as f:
        for g, row in enumerate(rows):
            game = chess.pgn.read_game(f)
            expect(game is not None, f"game {g + 1} missing in python-chess's reading")
            chess960 = game.board().chess960
            node = game
            for i, mv in enumerate(row["moves"]):
                nxt = node.variations[0]
                board = node.board()
                expect(
                    board.uci(nxt.move, chess960=chess960) == mv["uci"]
                    or board.uci(nxt.move) == mv["uci"],
                    f"game {g + 1} ply {i + 1}: move {mv['uci']}",
                )
                eng = mv.get("engine")
                kv = fields(nxt.comment)
                if eng is not None:
                    checked["notes"] += 1
                    pv = kv.get("pv")
                    if pv is not None and "pv" in eng:
                        b = board.copy()
                        ucis = []
                        for san in pv.split():
                            m = b.parse_san(san)
                            ucis.append(b.uci(m, chess960=chess960))
                            b.push(m)
                        expect(ucis == eng["pv"], f"game {g + 1} ply {i + 1}: pv {pv}")
                        checked["pv_moves"] += len(ucis)
                    for key in ("wv", "ev"):
                        if key in kv and "eval" in eng and "cp" in eng["eval"]:
                            cp = round(float(kv[key]) * 100)
                            expect(cp == eng["eval"]["cp"], f"game {g + 1} ply {i + 1}: {key}")
                            checked["evals"] += 1
                    if "d" in kv:
                        expect(int(kv["d"]) == eng.get("depth"), f"game {g + 1} ply {i + 1}: d")
                        checked["depths"] += 1
                    if "n" in kv:
                        expect(int(kv["n"]) == eng.get("nodes"), f"game {g + 1} ply {i + 1}: n")
                        checked["nodes"] += 1
                node = nxt
    print(" ".join(f"{k}={v}" for k, v in checked.items()))


if __name__ == "__main__":
    main()
