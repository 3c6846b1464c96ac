#!/usr/bin/env python3
"""Build the benchmark inputs: a size ladder of real PGN, cut at game boundaries.

Usage: make_inputs.py CORPUS_DIR OUT_DIR SIZE...

SIZE is like 10k, 1m, 30m (decimal: 1k = 1,000 bytes, 1m = 1,000,000 bytes).
For every size two files are written to OUT_DIR:

  clean-SIZE.pgn      master games (louis-yay__AIchess/data/*, CRLF, ChessBase
                      style), files concatenated in name order.
  commented-SIZE.pgn  a comment on every move: TCEC engine games
                      (TCEC-Chess__tcecgames/master-archive/*) and lichess games
                      with [%clk] (lichess-org__database/2017-05), taken so that
                      both sources contribute about the same number of bytes.

Games are whole: a file is cut only where a new tag section starts outside a
comment, and games are added until the size is reached (a game that would
overshoot by more than half the target is skipped in favour of the other
source). When a style runs out of games the file is smaller than SIZE and says
so in OUT_DIR/inputs.json. Trailing NUL bytes at the end of a corpus file (real
corruption in Stein.pgn) are dropped so that concatenation stays valid PGN; no
other byte is changed. Existing files are reused when inputs.json says they were
built from the same parameters.
"""

import glob
import json
import os
import subprocess
import sys


def read_corpus_file(path):
    """The raw bytes of a corpus file, decompressing *.zst with the zstd tool."""
    if path.endswith(".zst"):
        return subprocess.run(["zstd", "-dc", path], check=True, stdout=subprocess.PIPE).stdout
    with open(path, "rb") as f:
        return f.read()


def split_games(data):
    """Split PGN bytes into games (lists of byte strings, one per game).

    A game starts at a line whose first non-blank byte is '[' when the previous
    game has movetext and we are not inside a {comment}. Everything before the
    first tag section (if any) is attached to the first game.
    """
    data = data.rstrip(b"\x00")
    if data and not data.endswith(b"\n"):
        data += b"\n"
    lines = data.splitlines(keepends=True)
    games = []
    start = 0
    pos = 0
    in_comment = False
    seen_movetext = False
    for line in lines:
        rest = line
        if in_comment:
            close = rest.find(b"}")
            if close < 0:
                pos += len(line)
                continue
            in_comment = False
            rest = rest[close + 1 :]
        else:
            stripped = rest.lstrip()
            if stripped.startswith(b"["):
                if seen_movetext:
                    games.append(data[start:pos])
                    start = pos
                    seen_movetext = False
                pos += len(line)
                continue
            if stripped and not stripped.startswith(b"%"):
                seen_movetext = True
        # Track {comments} that span lines; a ';' comment ends the line.
        while True:
            brace = rest.find(b"{")
            semi = rest.find(b";")
            if brace < 0 or (0 <= semi < brace):
                break
            close = rest.find(b"}", brace + 1)
            if close < 0:
                in_comment = True
                break
            rest = rest[close + 1 :]
        pos += len(line)
    if start < len(data):
        games.append(data[start:])
    return games


def parse_size(text):
    """'10k' -> 10_000, '1m' -> 1_000_000, '123' -> 123."""
    text = text.strip().lower()
    factor = {"k": 1_000, "m": 1_000_000, "g": 1_000_000_000}.get(text[-1:], 1)
    number = text[:-1] if factor != 1 else text
    return int(float(number) * factor)


def ensure_newline_gap(game):
    """A game followed by another one needs a blank line in between."""
    if game.endswith(b"\n\n") or game.endswith(b"\r\n\r\n"):
        return game
    eol = b"\r\n" if game.endswith(b"\r\n") else b"\n"
    if not game.endswith(b"\n"):
        return game + eol + eol
    return game + eol


def cut(sources, target):
    """Take whole games from the sources (lists of games) until target bytes.

    The next game comes from the source that has contributed the fewest bytes;
    a game that would overshoot the target by more than 50% is skipped in
    favour of another source (the first game is taken in any case).
    """
    index = [0] * len(sources)
    given = [0] * len(sources)
    out = []
    total = 0
    while total < target:
        order = sorted(range(len(sources)), key=lambda s: given[s])
        open_sources = [s for s in order if index[s] < len(sources[s])]
        fitting = [s for s in open_sources if total + len(sources[s][index[s]]) <= target * 1.5]
        took = False
        for s in fitting or (open_sources[:1] if not out else []):
            game = sources[s][index[s]]
            index[s] += 1
            game = ensure_newline_gap(game)
            out.append(game)
            given[s] += len(game)
            total += len(game)
            took = True
            break
        if not took:
            break
    return out


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: make_inputs.py CORPUS_DIR OUT_DIR SIZE...")
    corpus, out_dir, sizes = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3:]
    os.makedirs(out_dir, exist_ok=True)
    manifest_path = os.path.join(out_dir, "inputs.json")
    try:
        with open(manifest_path) as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        manifest = {}

    styles = {
        "clean": [sorted(glob.glob(os.path.join(corpus, "louis-yay__AIchess/data/*.pgn*")))],
        "commented": [
            sorted(glob.glob(os.path.join(corpus, "TCEC-Chess__tcecgames/master-archive/*.pgn*"))),
            [os.path.join(corpus, "lichess-org__database/2017-05.pgn.zst")],
        ],
    }
    loaded = {}
    for size in sizes:
        target = parse_size(size)
        for style, groups in styles.items():
            name = f"{style}-{size}"
            path = os.path.join(out_dir, name + ".pgn")
            key = {"target": target, "files": groups}
            entry = manifest.get(name)
            if (
                entry
                and entry.get("key") == key
                and os.path.exists(path)
                and os.path.getsize(path) == entry.get("bytes")
            ):
                entry["path"] = path
                continue
            if style not in loaded:
                loaded[style] = [
                    [g for f in files for g in split_games(read_corpus_file(f))] for files in groups
                ]
            games = cut(loaded[style], target)
            with open(path, "wb") as f:
                for game in games:
                    f.write(game)
            available = sum(len(g) for src in loaded[style] for g in src)
            manifest[name] = {
                "key": key,
                "path": path,
                "style": style,
                "size": size,
                "target": target,
                "bytes": os.path.getsize(path),
                "games": len(games),
                "sources": [os.path.relpath(f, corpus) for files in groups for f in files],
                "exhausted": sum(len(g) for g in games) < target,
                "available_bytes": available,
            }
            print(
                f"built {path}: {len(games)} games, {os.path.getsize(path):,} bytes",
                file=sys.stderr,
            )
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
