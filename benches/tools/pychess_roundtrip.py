#!/usr/bin/env python3
"""python-chess peer: read every game of a PGN file and export it again.

Usage: pychess_roundtrip.py IN.pgn OUT.pgn

chess.pgn.read_game parses the movetext and plays every move (illegal moves
are recorded in game.errors, not raised); str(game) exports the game with its
comments, NAGs and variations. Bytes that are not UTF-8 are carried through
with surrogateescape. Prints games, plies and games with errors.
"""

import sys

import chess.pgn


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: pychess_roundtrip.py IN.pgn OUT.pgn")
    games = plies = bad = 0
    with (
        open(sys.argv[1], encoding="utf-8-sig", errors="surrogateescape") as src,
        open(sys.argv[2], "w", encoding="utf-8", errors="surrogateescape") as dst,
    ):
        while True:
            game = chess.pgn.read_game(src)
            if game is None:
                break
            games += 1
            plies += game.end().ply() - game.ply()
            if game.errors:
                bad += 1
            dst.write(str(game))
            dst.write("\n\n")
    print(f"games {games} plies {plies} errors {bad}")


if __name__ == "__main__":
    main()
