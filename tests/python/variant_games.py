#!/usr/bin/env python3
"""Chess variant games for the PGN -> PGC -> PGN cross-check with python-chess.

Usage:
    variant_games.py generate OUT.pgn [--seed S] [--games N]
    variant_games.py compare ORIGINAL.pgn DECODED.pgn

generate: python-chess plays N seeded random legal games of each Lichess
variant (standard, Chess960, Crazyhouse, Atomic, Antichess, King of the Hill,
Three-check, Horde, Racing Kings) and writes them as PGN with the Variant tag
Lichess writes (and FEN/SetUp tags for Chess960), movetext on one line. It
prints the number of games and positions per variant.

compare: python-chess reads both files game by game. For each pair of games
the Variant tags must be equal, the main lines must be the same moves (UCI),
every SAN token of the decoded file must be python-chess's own SAN of the move
it names (check suffix included) or the token the original has at that place
(a spelling kept as written, such as Lichess's pawn drop `P@e6`, which
python-chess writes `@e6`), and the decoded file must parse without errors.
Prints one summary line; exits 1 on the first differences (at most ten
reported), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import io
import random
import re
import sys

try:
    import chess
    import chess.pgn
    import chess.variant
except ImportError:  # pragma: no cover - reported to the caller
    print("python-chess not installed (pip install chess)", file=sys.stderr)
    sys.exit(3)

# (Variant tag as Lichess writes it, python-chess board class)
VARIANTS = [
    ("Standard", chess.Board),
    ("Chess960", chess.Board),
    ("Crazyhouse", chess.variant.CrazyhouseBoard),
    ("Atomic", chess.variant.AtomicBoard),
    ("Antichess", chess.variant.AntichessBoard),
    ("King of the Hill", chess.variant.KingOfTheHillBoard),
    ("Three-check", chess.variant.ThreeCheckBoard),
    ("Horde", chess.variant.HordeBoard),
    ("Racing Kings", chess.variant.RacingKingsBoard),
]


def random_game(name: str, cls: type, rng: random.Random) -> tuple[chess.pgn.Game, int]:
    """One random legal game of the variant, and its number of positions."""
    if name == "Chess960":
        board = chess.Board.from_chess960_pos(rng.randrange(960))
        board.chess960 = True
    else:
        board = cls()
    start = board.copy()
    plies = rng.randrange(10, 200)
    while len(board.move_stack) < plies and not board.is_game_over():
        legal = list(board.legal_moves)
        drops = [m for m in legal if m.drop]
        # Drops are many in Crazyhouse: play one only now and then, so that
        # pockets fill up and positions with many legal moves occur.
        if drops and rng.random() < 0.7:
            legal = [m for m in legal if not m.drop] or legal
        board.push(rng.choice(legal))
    game = chess.pgn.Game()
    game.setup(start)
    node = game
    for move in board.move_stack:
        node = node.add_variation(move)
    game.headers["Variant"] = name
    if name == "Chess960":
        game.headers["FEN"] = start.fen()
        game.headers["SetUp"] = "1"
    game.headers["Result"] = board.result(claim_draw=False)
    return game, len(board.move_stack) + 1


def generate(out: str, seed: int, games: int) -> int:
    rng = random.Random(seed)
    exporter_args = {"columns": None, "headers": True, "variations": False, "comments": False}
    with open(out, "w", encoding="ascii") as f:
        for name, cls in VARIANTS:
            positions = 0
            for i in range(games):
                game, n = random_game(name, cls, rng)
                game.headers["Event"] = f"Random {name} game {i + 1}"
                positions += n
                f.write(game.accept(chess.pgn.StringExporter(**exporter_args)))
                f.write("\n\n")
            print(f"{name}: {games} games, {positions} positions")
    return 0


TAG = re.compile(r'\[[A-Za-z0-9_]+\s+"(?:[^"\\]|\\.)*"\s*\]')
NUMBER = re.compile(r"^\d+\.+")
RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


def mainline_tokens(text: str) -> list[str]:
    """The SAN tokens of the main line of one game's text, as written (check
    suffix kept, glued NAG glyphs dropped): no tags, comments, variations,
    move numbers, NAGs or result."""
    text = TAG.sub(" ", text)
    out: list[str] = []
    depth = 0
    word = ""
    i = 0
    while i <= len(text):
        c = text[i] if i < len(text) else " "
        if c == "{":
            end = text.find("}", i)
            i = len(text) if end < 0 else end + 1
            c = " "
        elif c == ";":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            c = " "
        else:
            i += 1
        if c in "()" or c.isspace():
            word = NUMBER.sub("", word).rstrip("!?")
            if word and depth == 0 and word not in RESULTS and not word.startswith("$"):
                out.append(word)
            word = ""
            if c == "(":
                depth += 1
            elif c == ")":
                depth = max(0, depth - 1)
        else:
            word += c
    return out


def read_with_tokens(path: str) -> list[tuple[chess.pgn.Game, list[str]]]:
    """Every game of the file with the main-line SAN tokens of its text."""
    with open(path, encoding="utf-8-sig") as f:
        text = f.read()
    handle = io.StringIO(text)
    games = []
    while True:
        start = handle.tell()
        game = chess.pgn.read_game(handle)
        if game is None:
            return games
        games.append((game, mainline_tokens(text[start : handle.tell()])))


def compare(original: str, decoded: str) -> int:
    left = read_with_tokens(original)
    right = read_with_tokens(decoded)
    diffs: list[str] = []
    if len(left) != len(right):
        diffs.append(f"{len(left)} games in {original}, {len(right)} in {decoded}")
    moves = 0
    for number, ((a, _), (b, tokens)) in enumerate(zip(left, right, strict=False), start=1):
        where = f"game {number}"
        if a.headers.get("Variant") != b.headers.get("Variant"):
            diffs.append(
                f"{where}: Variant {a.headers.get('Variant')!r} != {b.headers.get('Variant')!r}"
            )
            continue
        if b.errors:
            diffs.append(f"{where}: python-chess errors reading the decoded game: {b.errors}")
            continue
        ua = [m.uci() for m in a.mainline_moves()]
        ub = [m.uci() for m in b.mainline_moves()]
        if ua != ub:
            at = next(
                (i for i, (x, y) in enumerate(zip(ua, ub, strict=False)) if x != y),
                min(len(ua), len(ub)),
            )
            diffs.append(
                f"{where}: moves differ at ply {at + 1}: {ua[at : at + 1]} != {ub[at : at + 1]}"
            )
            continue
        board = b.board()
        written = left[number - 1][1]
        for ply, (move, token) in enumerate(zip(b.mainline_moves(), tokens, strict=False), start=1):
            san = board.san(move)
            # A spelling of the original (Lichess's `P@e6`) comes back as
            # written; anything else must be python-chess's SAN.
            kept = ply <= len(written) and token == written[ply - 1]
            if san != token and not kept:
                variant = b.headers.get("Variant")
                diffs.append(
                    f"{where} ({variant}): ply {ply}: decoded {token!r}, python-chess {san!r}"
                )
                break
            board.push(move)
        moves += len(ub)
    print(f"{decoded}: {len(right)} games, {moves} moves compared, {len(diffs)} difference(s)")
    for d in diffs[:10]:
        print(d)
    return 1 if diffs else 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("out")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--games", type=int, default=20)
    c = sub.add_parser("compare")
    c.add_argument("original")
    c.add_argument("decoded")
    args = parser.parse_args()
    if args.command == "generate":
        return generate(args.out, args.seed, args.games)
    return compare(args.original, args.decoded)


if __name__ == "__main__":
    sys.exit(main())
