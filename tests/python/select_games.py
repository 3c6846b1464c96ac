#!/usr/bin/env python3
"""Choose games with python-chess, independently of pgc's filter language.

Usage:
    select_games.py count PGN
    select_games.py where PGN
    select_games.py dedup PGN [--tags]
    select_games.py rows PGN [--skip-plies N] [--min-clock SECONDS]

PGN is read with python-chess game by game (bytes decoded as Latin-1, so
that every byte is one character, as pgc compares bytes).

count  prints the number of games.
where  prints, for each selection of README's "Choosing games" section,
       a line "EXPR<TAB>N,N,..." with the 1-based numbers of the games it
       selects, each selection written here as a Python predicate over the
       tags and the main line (not by parsing EXPR).
dedup  prints "N<TAB>M" for every game N that repeats the start position
       and the main line (and with --tags White, Black and Date) of an
       earlier game M, the first of its kind (1-based).
rows   prints what `pgc moves --format csv` writes: a header row, then one
       row per position before each main-line move (see README).
"""

from __future__ import annotations

import argparse
import io
import re
import sys

try:
    import chess
    import chess.pgn
except ImportError:  # pragma: no cover - reported to the caller
    print("python-chess not installed (pip install chess)", file=sys.stderr)
    sys.exit(3)

NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")
DATE = re.compile(r"([0-9]{4})\.([0-9]{2}|\?\?)\.([0-9]{2}|\?\?)")
STR_DEFAULTS = {"Event", "Site", "Date", "Round", "White", "Black", "Result"}


class Tags:
    """The tags as read (python-chess fills in missing Seven Tag Roster
    tags with defaults: those are missing here, the empty string)."""

    def __init__(self, game: chess.pgn.Game, raw_names: set[str]):
        self.h = game.headers
        self.raw = raw_names

    def get(self, name: str) -> str:
        if name in STR_DEFAULTS and name not in self.raw:
            return ""
        return self.h.get(name, "")


def num(v: str) -> float | None:
    return float(v) if NUMBER.fullmatch(v) else None


def date(v: str) -> int | None:
    m = DATE.fullmatch(v)
    if not m:
        return None
    parts = [0 if p == "??" else int(p) for p in m.groups()]
    return parts[0] * 10000 + parts[1] * 100 + parts[2]


def speed(t: Tags) -> str | None:
    """Lichess's speed: base + 40 * increment seconds."""
    tc = t.get("TimeControl")
    if tc == "-":
        return "correspondence"
    m = re.fullmatch(r"([0-9]+)(?:\+([0-9]+))?", tc)
    if not m:
        return None
    est = int(m.group(1)) + 40 * int(m.group(2) or 0)
    for limit, name in ((30, "ultrabullet"), (180, "bullet"), (480, "blitz"), (1500, "rapid")):
        if est < limit:
            return name
    return "classical"


def elo_both(t: Tags, test) -> bool:
    w, b = num(t.get("WhiteElo")), num(t.get("BlackElo"))
    return w is not None and b is not None and test(w) and test(b)


def elo_diff(t: Tags) -> float | None:
    w, b = num(t.get("WhiteElo")), num(t.get("BlackElo"))
    return None if w is None or b is None else abs(w - b)


def plies(game: chess.pgn.Game) -> int:
    return sum(1 for _ in game.mainline_moves())


def date_between(v: str, lo: int, hi: int) -> bool:
    d = date(v)
    return d is not None and lo <= d < hi


# README's selections, each with the same rule written in Python.
EXAMPLES = [
    ("Elo>=2400", lambda t, g: elo_both(t, lambda e: e >= 2400)),
    (
        "Elo>=1800 and Elo<=2000 and Speed=blitz",
        lambda t, g: elo_both(t, lambda e: 1800 <= e <= 2000) and speed(t) == "blitz",
    ),
    (
        'Player="Carlsen,M"',
        lambda t, g: "Carlsen,M" in (t.get("White"), t.get("Black")),
    ),
    (
        "not Bot",
        lambda t, g: "BOT" not in (t.get("WhiteTitle"), t.get("BlackTitle")),
    ),
    ("Plies>=40", lambda t, g: plies(g) >= 40),
    (
        "Date>=2012.12.01 and Date<2012.12.08",
        lambda t, g: date_between(t.get("Date"), 20121201, 20121208),
    ),
    (
        "EloDiff>=300 and Result=0-1",
        lambda t, g: (elo_diff(t) or 0) >= 300 and t.get("Result") == "0-1",
    ),
    (
        "Speed=bullet or Speed=ultrabullet",
        lambda t, g: speed(t) in ("bullet", "ultrabullet"),
    ),
    (
        'Event~"(?i)\\bclassic\\b"',
        lambda t, g: re.search(r"(?i)\bclassic\b", t.get("Event")) is not None,
    ),
    (
        '(Result=1-0 or Result=0-1) and not Termination="Time forfeit"',
        lambda t, g: t.get("Result") in ("1-0", "0-1") and t.get("Termination") != "Time forfeit",
    ),
    (
        "ECO~^B[2-9] and WhiteElo>=2600 and not Plies<60",
        lambda t, g: (
            re.search("^B[2-9]", t.get("ECO")) is not None
            and (num(t.get("WhiteElo")) or 0) >= 2600
            and not plies(g) < 60
        ),
    ),
]


class RawNames(chess.pgn.GameBuilder):
    """A game builder that also notes the tag names actually read."""

    def begin_game(self) -> None:
        super().begin_game()
        self.game.raw_names = set()

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.game.raw_names.add(tagname)
        super().visit_header(tagname, tagvalue)


def games(path: str):
    with open(path, "rb") as f:
        text = f.read().decode("latin-1")
    stream = io.StringIO(text)
    while True:
        game = chess.pgn.read_game(stream, Visitor=RawNames)
        if game is None:
            return
        yield game, Tags(game, game.raw_names)


def cmd_where(path: str) -> None:
    chosen: list[list[int]] = [[] for _ in EXAMPLES]
    for n, (game, tags) in enumerate(games(path), start=1):
        for i, (_, pred) in enumerate(EXAMPLES):
            if pred(tags, game):
                chosen[i].append(n)
    for (expr, _), numbers in zip(EXAMPLES, chosen, strict=True):
        print(f"{expr}\t{','.join(map(str, numbers))}")


def cmd_dedup(path: str, with_tags: bool) -> None:
    first: dict[tuple, int] = {}
    for n, (game, tags) in enumerate(games(path), start=1):
        key: tuple = (game.board().epd(), tuple(m.uci() for m in game.mainline_moves()))
        if with_tags:
            key += (tags.get("White"), tags.get("Black"), tags.get("Date"))
        if key in first:
            print(f"{n}\t{first[key]}")
        else:
            first[key] = n


def seconds(s: float) -> str:
    millis = round(s * 1000)
    whole, frac = divmod(millis, 1000)
    return str(whole) if frac == 0 else f"{whole}.{frac:03d}".rstrip("0")


def elo_field(v: str) -> str:
    return v if v.isdigit() else ""


def cmd_rows(path: str, skip: int, min_clock: float | None) -> None:
    out = sys.stdout
    out.write("game,ply,fen,move,elo,opponent_elo,clock,eval,result\n")
    for n, (game, tags) in enumerate(games(path), start=1):
        result = {"1-0": (1, 0), "0-1": (0, 1), "1/2-1/2": (0.5, 0.5)}.get(tags.get("Result"))
        board = game.board()
        # The clock after each side's last move, by colour.
        clocks: dict[bool, float | None] = {chess.WHITE: None, chess.BLACK: None}
        node = game
        for ply, nxt in enumerate(game.mainline()):
            mover = board.turn
            clock = clocks[mover]
            score = node.eval() if node is not game else None
            keep = ply >= skip and (
                min_clock is None or (clock is not None and clock * 1000 >= min_clock * 1000)
            )
            if keep:
                if mover == chess.WHITE:
                    mine, theirs = tags.get("WhiteElo"), tags.get("BlackElo")
                else:
                    mine, theirs = tags.get("BlackElo"), tags.get("WhiteElo")
                ev = ""
                if score is not None:
                    white = score.white()
                    ev = f"#{white.mate()}" if white.is_mate() else str(white.score())
                res = ""
                if result is not None:
                    res = str(result[0] if mover == chess.WHITE else result[1])
                row = [
                    str(n),
                    str(ply),
                    board.fen(),
                    nxt.move.uci(),
                    elo_field(mine),
                    elo_field(theirs),
                    "" if clock is None else seconds(clock),
                    ev,
                    res,
                ]
                out.write(",".join(row) + "\n")
            board.push(nxt.move)
            clocks[mover] = nxt.clock()
            node = nxt


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("command", choices=["count", "where", "dedup", "rows"])
    p.add_argument("pgn")
    p.add_argument("--tags", action="store_true")
    p.add_argument("--skip-plies", type=int, default=0)
    p.add_argument("--min-clock", type=float)
    a = p.parse_args()
    if a.command == "count":
        print(sum(1 for _ in games(a.pgn)))
    elif a.command == "where":
        cmd_where(a.pgn)
    elif a.command == "dedup":
        cmd_dedup(a.pgn, a.tags)
    else:
        cmd_rows(a.pgn, a.skip_plies, a.min_clock)
    return 0


if __name__ == "__main__":
    sys.exit(main())
