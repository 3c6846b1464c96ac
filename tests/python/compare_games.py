#!/usr/bin/env python3
"""Compare two PGN files game by game with python-chess, an independent reader.

Usage:
    compare_games.py ORIGINAL.pgn ROUNDTRIP.pgn REJECTS.txt
                     [--spans SPANS.txt] [--allow N,M,...] [--name NAME] [--max-diffs N]

ORIGINAL.pgn is the input of the PGN -> PGC -> PGN round trip, ROUNDTRIP.pgn
its output, and REJECTS.txt lists the 0-based indices (one per line) of the
games of ORIGINAL.pgn that the encoder rejected: the round trip leaves them
out, so they are skipped on the original side.

Without --spans, python-chess reads each whole file and the games are paired
in order (python-chess's own game splitting on both sides).

With --spans, SPANS.txt has one line per game of our reader:
"INDEX ORIG_START ORIG_END RT_START RT_END" (0-based index, byte ranges in
the two files; a rejected game has an empty round-trip range). python-chess
then reads each game's two byte ranges on their own and compares the games
it finds in them. A difference stays with its game instead of shifting every
later pair when python-chess splits a game differently (it ends a game at any
blank line), and a pair of byte-identical ranges needs no reading: any reader
reads the same bytes the same way. --allow lists 1-based game numbers whose
differences are expected (reported, not counted).

Both files are read as bytes, a leading UTF-8 byte-order mark is dropped, and
the rest is decoded as Latin-1 (one character per byte), so that UTF-8,
Latin-1 and any other bytes compare identically on both sides; line ends are
read in universal-newline mode as open() does.

Compared per game, in this order:
  * the headers (python-chess's Headers: all tags, in its order; values
    unescaped as section 8.1.1 says, which python-chess does not do);
  * the game comment, then the whole move tree in preorder: for every node of
    every variation its UCI move, its NAGs, its starting comment and its
    comment (comments with whitespace runs collapsed to one space and
    stripped, since line wrapping may move line breaks);
  * the result as python-chess exposes it (the Result header, which it fills
    from the termination marker when the tag is missing or "*");
  * game.errors (the messages of the errors python-chess collected).

Prints one line per file with the counts; exits 1 after reporting at most
--max-diffs differences (with game numbers in both files and the first
differing element), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import io
import re
import sys

try:
    import chess.pgn
except ImportError:  # pragma: no cover - reported to the caller
    print("python-chess not installed (pip install chess)", file=sys.stderr)
    sys.exit(3)

BOM = b"\xef\xbb\xbf"
WS = re.compile(r"\s+")


def norm(comment: str) -> str:
    return WS.sub(" ", comment).strip()


def read_games(data: bytes) -> list[chess.pgn.Game]:
    if data.startswith(BOM):
        data = data[len(BOM) :]
    handle = io.TextIOWrapper(io.BytesIO(data), encoding="latin-1", newline=None)
    games = []
    while True:
        game = chess.pgn.read_game(handle)
        if game is None:
            return games
        games.append(game)


def unescape(value: str) -> str:
    """A tag value as section 8.1.1 defines it: python-chess keeps the value
    as written (`\\"` and `\\\\` included), so a value with a quote or a
    backslash would compare unequal only because the export format escapes
    it. Other backslashes stay, as in the encoder."""
    return re.sub(r'\\([\\"])', r"\1", value)


def flatten(game: chess.pgn.Game) -> list[str]:
    """The comparable elements of a game, one string each."""
    out = ["header %s = %r" % (k, unescape(v)) for k, v in game.headers.items()]
    out.append("game comment %r" % norm(game.comment))

    # Preorder with siblings first: the n-th move of a line and its
    # alternatives are listed before the continuation of any of them.
    # Iterative (games run to thousands of plies), ply counted on the way down.
    stack = [(game, "main", game.ply())]
    while stack:
        node, path, ply = stack.pop()
        children = []
        for i, child in enumerate(node.variations):
            here = path if i == 0 else "%s(var %d)" % (path, i)
            out.append(
                "%s ply %d: %s nags=%s start_comment=%r comment=%r"
                % (
                    here,
                    ply + 1,
                    child.move.uci() if child.move else None,
                    sorted(child.nags),
                    norm(child.starting_comment),
                    norm(child.comment),
                )
            )
            children.append((child, here, ply + 1))
        stack.extend(reversed(children))
    out.append("result %r" % game.headers.get("Result"))
    out.append("errors %r" % [str(e) for e in game.errors])
    return out


def describe(game: chess.pgn.Game) -> str:
    h = game.headers
    return "%s - %s, %s, %s" % (
        h.get("White", "?"),
        h.get("Black", "?"),
        h.get("Event", "?"),
        h.get("Round", "?"),
    )


def compare(og: chess.pgn.Game, rg: chess.pgn.Game, what: str) -> str | None:
    a, b = flatten(og), flatten(rg)
    if a == b:
        return None
    at = next(
        (k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    return "%s (%s): first difference at element %d\n    original:   %s\n    round trip: %s" % (
        what,
        describe(og),
        at,
        a[at] if at < len(a) else "(end of game)",
        b[at] if at < len(b) else "(end of game)",
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("original")
    ap.add_argument("roundtrip")
    ap.add_argument("rejects")
    ap.add_argument("--spans", default=None, help="per-game byte ranges (see above)")
    ap.add_argument("--allow", default="", help="1-based game numbers expected to differ")
    ap.add_argument("--name", default=None, help="name of the file in the report")
    ap.add_argument("--max-diffs", type=int, default=5)
    args = ap.parse_args()
    name = args.name or args.original
    allow = {int(x) for x in args.allow.split(",") if x.strip()}

    with open(args.rejects, encoding="ascii") as f:
        rejected = {int(line) for line in f if line.strip()}
    with open(args.original, "rb") as f:
        orig_bytes = f.read()
    with open(args.roundtrip, "rb") as f:
        rt_bytes = f.read()

    diffs: list[str] = []
    allowed: list[str] = []
    stats = {"games": 0, "identical": 0, "compared": 0, "rejected": len(rejected)}

    def report(number: int, text: str) -> None:
        (allowed if number in allow else diffs).append(text)

    if args.spans is None:
        original = read_games(orig_bytes)
        roundtrip = read_games(rt_bytes)
        stats["games"] = len(original)
        kept = [(i, g) for i, g in enumerate(original) if i not in rejected]
        if len(kept) != len(roundtrip):
            diffs.append(
                "game count: python-chess reads %d games in the original, %d of them "
                "not rejected, but %d in the round trip"
                % (len(original), len(kept), len(roundtrip))
            )
        for (oi, og), (ri, rg) in zip(kept, enumerate(roundtrip), strict=False):
            stats["compared"] += 1
            d = compare(og, rg, "original game %d / round-trip game %d" % (oi + 1, ri + 1))
            if d:
                report(oi + 1, d)
            if len(diffs) >= args.max_diffs:
                break
    else:
        with open(args.spans, encoding="ascii") as f:
            spans = [tuple(int(x) for x in line.split()) for line in f if line.strip()]
        for index, o0, o1, r0, r1 in spans:
            stats["games"] += 1
            if index in rejected:
                continue
            o, r = orig_bytes[o0:o1], rt_bytes[r0:r1]
            if o == r:
                stats["identical"] += 1
                continue
            stats["compared"] += 1
            number = index + 1
            og, rg = read_games(o), read_games(r)
            if len(og) != len(rg):
                report(
                    number,
                    "game %d: python-chess reads %d game(s) in the original's text "
                    "(bytes %d..%d) and %d in the round trip's: %s / %s"
                    % (
                        number,
                        len(og),
                        o0,
                        o1,
                        len(rg),
                        [describe(g) for g in og],
                        [describe(g) for g in rg],
                    ),
                )
            for k, (a, b) in enumerate(zip(og, rg, strict=False)):
                what = "game %d" % number + (" (part %d)" % (k + 1) if len(og) > 1 else "")
                d = compare(a, b, what)
                if d:
                    report(number, d)
                    break
            if len(diffs) >= args.max_diffs:
                break

    stopped = len(diffs) >= args.max_diffs
    print(
        "%s: %d games, %d rejected by the encoder (skipped), %d byte-identical, "
        "%d compared by python-chess, %d differences%s, %d allowed"
        % (
            name,
            stats["games"],
            stats["rejected"],
            stats["identical"],
            stats["compared"],
            len(diffs),
            " (stopped at --max-diffs)" if stopped else "",
            len(allowed),
        )
    )
    for d in diffs:
        print("  DIFF " + d)
    for d in allowed:
        print("  allowed: " + d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
