"""The package `pgc` against the command line, python-chess and pyarrow,
on the samples and the shared corpus."""

import bz2
import gzip
import io
import math
import subprocess

import chess
import chess.pgn
import pgc
import pyarrow as pa
import pyarrow.ipc
import pytest
from conftest import SAMPLES

LICHESS = "lichess-org__database/2017-05.pgn.zst"
EVALS = "notnil__chess/fixtures/pgns/0005.pgn"
CHESS960 = "niklasf__python-chess/data/pgn/cutechess-fischerrandom.pgn"
TCEC = "TCEC-Chess__tcecgames/master-archive/TCEC_Cup_8_Final.pgn"
TWIC = "hauva69__pgn4web/twic944.pgn.zst"


def run(*args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(args, input=data, capture_output=True, check=True).stdout


def plain(path) -> bytes:
    """A corpus file's PGN, decompressed by the zstd command when .zst."""
    if str(path).endswith(".zst"):
        return run("zstd", "-dc", str(path))
    return path.read_bytes()


def replay(pgn: bytes):
    """Per game, as python-chess reads it: (headers, [(board before the
    move, move, clock, eval)] of the main line)."""
    text = io.StringIO(pgn.decode("utf-8", errors="replace"))
    out = []
    while (game := chess.pgn.read_game(text)) is not None:
        board = game.board()
        plies = []
        for node in game.mainline():
            plies.append((board.copy(stack=False), node.move, node.clock(), node.eval()))
            board.push(node.move)
        out.append((game.headers, plies))
    return out


# -- encode, decode, verify, errors ------------------------------------------


@pytest.mark.parametrize("name", [LICHESS, EVALS, CHESS960])
def test_encode_and_decode_equal_the_command_line(corpus_dir, pgc_bin, name):
    path = corpus_dir / name
    theirs = run(pgc_bin, "encode", "-q", str(path), "-o", "-")
    assert pgc.encode(plain(path)) == theirs
    assert pgc.to_pgc(path) == theirs, "a path, decompressed and encoded"
    assert pgc.decode(theirs) == run(pgc_bin, "decode", "-q", "-", "-o", "-", data=theirs)
    assert pgc.decode(theirs, export=True) == run(
        pgc_bin, "decode", "-q", "--export", "-", "-o", "-", data=theirs
    )


def test_encode_on_threads_equals_the_command_line(corpus_dir, pgc_bin):
    text = b"".join(plain(corpus_dir / n) for n in (TWIC, LICHESS, CHESS960, TCEC))
    assert len(text) > 3 << 20, "several batches"
    for strict in (False, True):
        args = ["--strict"] if strict else []
        theirs = run(pgc_bin, "encode", "-q", *args, "-", "-o", "-", data=text)
        for threads in (1, 2, 3):
            assert pgc.encode(text, strict=strict, threads=threads) == theirs, (strict, threads)


def test_verify_gives_problem_objects_as_the_command_line(pgc_bin):
    data = bytearray(pgc.encode((SAMPLES / "opera.pgn").read_bytes()))
    data[1] = 0xFF
    problems = pgc.verify(bytes(data))
    assert problems and isinstance(problems[0], pgc.Problem)
    p = problems[0]
    assert (p.offset, p.game) == (1, 0)
    assert p.expected and p.found
    report = subprocess.run([pgc_bin, "verify", "-"], input=bytes(data), capture_output=True)
    assert report.returncode != 0
    assert str(p) in (report.stdout + report.stderr).decode()


def test_errors_are_pgc_errors_with_their_place():
    data = pgc.encode((SAMPLES / "opera.pgn").read_bytes())
    # A game-end right after the game-begin: the game's tag pair (byte 2)
    # is then outside a game (the second game, 0-based 1).
    bad = data[:1] + b"\x06" + data[1:]
    with pytest.raises(pgc.PgcError) as e:
        pgc.count_games(bad)
    err = e.value
    assert isinstance(err, ValueError)
    assert (err.offset, err.game, err.ply) == (2, 1, 0)
    assert err.marker == "tag-pair"
    assert err.expected and err.found
    assert f"byte {err.offset}" in str(err)
    with pytest.raises(pgc.PgcError, match="byte"):
        list(pgc.read(data[:-3]))
    with pytest.raises(pgc.PgcError, match="compressed with zip, which pgc does not read"):
        pgc.to_pgc(b"PK\x03\x04rest")
    with pytest.raises(pgc.PgcError, match="compressed with xz"):
        pgc.to_pgc(b"\xfd7zXZ\x00rest")


# -- games --------------------------------------------------------------------


def check_games(games, pgn: bytes):
    theirs = replay(pgn)
    assert len(games) == len(theirs)
    for g, (headers, plies) in zip(games, theirs, strict=True):
        assert g.uci == [m.uci() for _, m, _, _ in plies], g.index
        assert g.moves == g.uci or g.moves == [m for _, m, _, _ in plies]
        for name, value in headers.items():
            if name in g.tags:
                assert g.tags[name] == value, (g.index, name)
        assert len(g.clocks) == len(plies)
        for ours, (_, _, clock, _) in zip(g.clocks, plies, strict=True):
            assert (ours is None) == (clock is None)
            if clock is not None:
                assert ours == pytest.approx(clock)
        for cp, mate, (_, _, _, ev) in zip(g.evals, g.mates, plies, strict=True):
            if ev is None:
                assert cp is None and mate is None
            elif ev.white().is_mate():
                assert mate == ev.white().mate()
            else:
                assert cp == ev.white().score()


@pytest.mark.parametrize("name", [LICHESS, EVALS, CHESS960])
def test_games_agree_with_python_chess(corpus_dir, name):
    path = corpus_dir / name
    games = list(pgc.open(path, threads=2))
    check_games(games, plain(path))


def test_games_from_every_kind_of_input(corpus_dir):
    text = plain(corpus_dir / LICHESS)
    want = [(g.tags, g.uci, g.clocks) for g in pgc.read(text)]
    assert len(want) > 100
    data = pgc.encode(text)
    for source in (
        corpus_dir / LICHESS,
        str(corpus_dir / LICHESS),
        data,
        io.BytesIO(gzip.compress(text)),
        bz2.compress(data),
        gzip.compress(data),
    ):
        got = [(g.tags, g.uci, g.clocks) for g in pgc.read(source, threads=3)]
        assert got == want
    with pytest.raises(TypeError, match="binary"):
        pgc.to_pgc(io.StringIO("1. e4 *"))


def test_text_that_starts_like_a_bzip2_header_stays_text():
    # "BZh9" is only the start of a bzip2 header: this is PGN text.
    text = b'BZh9 notes\n\n[Event "x"]\n\n1. e4 e5 *\n'
    with pytest.warns(pgc.RejectedGamesWarning):
        data = pgc.encode(text)
    assert pgc.decode(data) == text
    with pytest.warns(pgc.RejectedGamesWarning):
        games = list(pgc.read(bz2.compress(text)))
    assert [g.uci for g in games] == [["e2e4", "e7e5"]]


def test_encode_keeps_a_long_run_of_nul_bytes_as_padding():
    # Longer than the 64 KiB the format sniffer reads: PGN padding to
    # encode all the same, alone or before a game.
    for text in (bytes(100_000), bytes(70_000) + b'[Event "x"]\n\n1. e4 e5 *\n'):
        assert pgc.decode(pgc.encode(text)) == text


def test_pgn_after_a_long_run_of_nul_bytes_is_pgn_to_every_reader():
    # More NULs than the 64 KiB the sniffer's window holds, then a game:
    # PGN, as after a shorter run and as the command line reads it. It was
    # PGC (no-op records): to_pgc gave it back as it was, and read and
    # decode failed at the first tag.
    game = b'[Event "x"]\n\n1. e4 e5 *\n'
    for n in (1_000, 70_000, 200_000):
        text = bytes(n) + game
        assert pgc._pgc.sniff(text) == "pgn", n
        with pytest.raises(ValueError, match="is PGN text, not PGC"):
            pgc.decode(text)
        data = pgc.to_pgc(text)
        assert data == pgc.encode(text)
        assert pgc.decode(data) == text
        for source in (text, gzip.compress(text)):
            assert [(g.tags["Event"], g.uci) for g in pgc.read(source)] == [("x", ["e2e4", "e7e5"])]
        assert pgc.count_games(text) == 1
    # Records after such a run (PGC padded with no-op records), or NULs
    # alone, are still PGC.
    padded = bytes(200_000) + pgc.encode(game)
    assert pgc._pgc.sniff(padded) == "pgc"
    assert pgc.to_pgc(padded) == padded
    assert pgc.decode(padded) == game
    assert [g.uci for g in pgc.read(padded)] == [["e2e4", "e7e5"]]
    assert pgc._pgc.sniff(bytes(200_000)) == "pgc"
    assert list(pgc.read(bytes(200_000))) == []


def test_read_columns_and_python_chess_moves(corpus_dir):
    path = corpus_dir / CHESS960
    full = list(pgc.read(path))
    light = list(pgc.read(path, columns=["tags"]))
    assert [g.tags for g in light] == [g.tags for g in full]
    assert all(g.uci == [] for g in light)
    moves = list(pgc.read(path, moves="python-chess"))
    assert [[m.uci() for m in g.moves] for g in moves] == [g.uci for g in full]
    assert all(isinstance(m, chess.Move) for g in moves for m in g.moves)
    with pytest.raises(ValueError, match="fields"):
        list(pgc.read(path, columns=["nope"]))


@pytest.mark.parametrize(
    "expr", ["WhiteElo>=2400", "Elo>=2500 and Plies>=60", "Result=1-0 and not White~Carlsen"]
)
def test_where_chooses_the_games_of_pgc_moves_where(corpus_dir, pgc_bin, tmp_path, expr):
    src = tmp_path / "games.pgc"
    src.write_bytes(pgc.to_pgc(corpus_dir / TWIC))
    theirs = run(pgc_bin, "moves", "-q", "--where", expr, str(src), "-o", "-").decode().splitlines()
    ours = [" ".join([*g.uci, g.result]) for g in pgc.read(src, where=expr, threads=2)]
    assert len(ours) > 10
    assert ours == theirs
    everything = list(pgc.read(src))
    assert len(ours) < len(everything)


def test_where_refuses_a_malformed_expression(corpus_dir):
    expr = "WhiteElo>=2400 and ("
    # The expression ends where a field name or `(` is expected.
    with pytest.raises(ValueError, match=f"column {len(expr) + 1}: expected"):
        list(pgc.read(corpus_dir / TWIC, where=expr))


def test_game_pgc_spans_are_the_whole_input(corpus_dir):
    data = pgc.encode(plain(corpus_dir / LICHESS) * 12)
    assert len(data) > 1 << 20, "several parts, read on several threads"
    games = list(pgc.read(data, threads=3))
    assert b"".join(g.pgc for g in games) == data
    assert [g.index for g in games] == list(range(len(games)))
    assert games[-1].uci == list(pgc.read(pgc.to_pgc(corpus_dir / LICHESS)))[-1].uci


# -- Arrow --------------------------------------------------------------------


@pytest.mark.parametrize("name", [LICHESS, EVALS, CHESS960, TCEC])
def test_read_arrow_equals_pgc_export(corpus_dir, pgc_bin, tmp_path, name):
    src = tmp_path / "games.pgc"
    src.write_bytes(run(pgc_bin, "encode", "-q", str(corpus_dir / name), "-o", "-"))
    out = tmp_path / "games.arrow"
    run(pgc_bin, "export", "-q", "--uci", str(src), "-o", str(out))
    with pa.ipc.open_file(out) as f:
        theirs = f.read_all()
    for threads in (1, 3):
        reader = pgc.read_arrow(src, uci=True, threads=threads)
        assert isinstance(reader, pa.RecordBatchReader)
        ours = reader.read_all()
        assert ours.schema == theirs.schema
        assert ours.equals(theirs)
    # From the PGN, compressed or not: the same table.
    assert pgc.read_arrow(corpus_dir / name, uci=True).read_all().equals(theirs)


def test_read_arrow_columns(corpus_dir):
    t = pgc.read_arrow(corpus_dir / EVALS, columns=["WhiteElo", "evals"], san=True).read_all()
    assert t.schema.names == ["WhiteElo", "san", "evals"]
    with pytest.raises(ValueError, match="no column"):
        pgc.read_arrow(corpus_dir / EVALS, columns=["Whiteelo"])
    assert set(pgc.COLUMNS) >= {"WhiteElo", "uci", "pgc", "other_tags"}


@pytest.mark.parametrize("expr", ["WhiteElo>=2400", "Plies>=60 and Result=1-0"])
def test_read_arrow_where_equals_pgc_export_where(corpus_dir, pgc_bin, tmp_path, expr):
    src = tmp_path / "games.pgc"
    src.write_bytes(pgc.to_pgc(corpus_dir / TWIC) * 3)
    assert src.stat().st_size > 1 << 20, "several batches"
    out = tmp_path / "games.arrow"
    run(pgc_bin, "export", "-q", "--uci", "--where", expr, str(src), "-o", str(out))
    with pa.ipc.open_file(out) as f:
        theirs = f.read_all()
    assert 0 < theirs.num_rows < pgc.count_games(src.read_bytes())
    for threads in (1, 3):
        ours = pgc.read_arrow(src, uci=True, threads=threads, where=expr).read_all()
        assert ours.equals(theirs)
    # A table of tags replays no move; a `Plies` filter reads the count.
    tags = pgc.read_arrow(src, columns=["White", "Result"], threads=2, where=expr).read_all()
    assert tags.equals(theirs.select(["White", "Result"]))
    with pytest.raises(ValueError, match="where="):
        pgc.read_arrow(src, where="WhiteElo>=2400 and (")


def test_plies_counted_equal_plies_replayed_on_every_corpus_file(corpus_dir):
    """A table of tags and `plies` counts each game's main-line moves and
    null moves without decoding them; the count equals the table whose
    `ordinals` replays them, on every file of the corpus (variants, null
    moves, variations, rejected games kept inline) and the samples."""
    files = [p for p in sorted(corpus_dir.rglob("*.pgn*")) if p.is_file()]
    files += sorted(SAMPLES.rglob("*.pgn"))
    assert len(files) > 50
    games = 0
    for path in files:
        data = pgc.to_pgc(path)
        if pgc.count_games(data) == 0:
            continue
        counted = pgc.read_arrow(data, columns=["plies"]).read_all()
        replayed = pgc.read_arrow(data, columns=["plies", "ordinals"]).read_all()
        assert counted.column("plies").equals(replayed.column("plies")), path.name
        games += counted.num_rows
    assert games > 10_000


def test_read_of_tags_counts_the_plies_without_decoding(corpus_dir):
    data = pgc.to_pgc(corpus_dir / TWIC)
    full = list(pgc.read(data, threads=2))
    tags = list(pgc.read(data, columns=["tags"], threads=2))
    assert [(g.tags, g.result, len(g)) for g in tags] == [(g.tags, g.result, len(g)) for g in full]
    assert sum(map(len, tags)) > 10_000
    assert tags[0].uci == []
    # An ordinal that names no legal move: counted, not decoded.
    bad = bytearray(pgc.encode(b'[White "B"]\n\n1. e4 *\n'))
    at = bytes(bad).index(bytes([0x03, 1])) + 2
    assert bad[at] == 13, "e4 is ordinal 13 of the start position"
    bad[at] = 20
    (game,) = pgc.read(bytes(bad), columns=["tags"])
    assert (game.tags["White"], len(game)) == ("B", 1)
    with pytest.raises(pgc.PgcError, match="ordinal 20"):
        list(pgc.read(bytes(bad)))


def test_read_arrow_converts_while_it_is_read(corpus_dir):
    good = pgc.to_pgc(corpus_dir / TWIC) * 4
    assert len(good) > 3 << 20, "several batches"
    # A game whose only move is ordinal 200 from the initial position, at
    # the end: the reader is made, and its first batches read, before the
    # conversion reaches it.
    data = good + bytes([0x05, 0x03, 1, 200, 0x06])
    reader = pgc.read_arrow(data, columns=["ordinals"], threads=2)
    first = reader.read_next_batch()
    assert first.num_rows > 0
    with pytest.raises(pgc.PgcError) as e:
        while True:
            reader.read_next_batch()
    assert e.value.offset == len(good) + 3
    assert e.value.game == pgc.count_games(good)


def test_batch_to_arrow_makes_the_rows_of_a_pgc_column(corpus_dir):
    table = pgc.read_arrow(corpus_dir / LICHESS, uci=True).read_all()
    column = table.column("pgc")
    whole = pgc.batch_to_arrow(column, uci=True)
    assert isinstance(whole, pa.RecordBatch)
    assert pa.Table.from_batches([whole]).equals(table.combine_chunks())
    # A slice of rows (an offset into the array): the same rows.
    part = column.combine_chunks().slice(10, 25)
    rows = pgc.batch_to_arrow(part, uci=True)
    assert pa.Table.from_batches([rows]).equals(table.slice(10, 25).combine_chunks())
    empty = pgc.batch_to_arrow(pa.array([], pa.binary()))
    assert empty.num_rows == 0


# -- training arrays ---------------------------------------------------------


@pytest.mark.parametrize("name", [LICHESS, EVALS, CHESS960, TCEC])
def test_training_arrays_agree_with_python_chess(corpus_dir, name):
    pgn = plain(corpus_dir / name)
    a = pgc.training_arrays(pgn, threads=2)
    games = replay(pgn)
    offsets = a["offsets"]
    assert len(offsets) == len(games) + 1
    assert offsets[-1] == len(a["board"]) == len(a["from_sq"])
    promo = {None: 0}
    i = 0
    for gi, (_, plies) in enumerate(games):
        assert offsets[gi] == i
        for board, move, clock, ev in plies:
            expect = bytes(
                0 if (p := board.piece_at(sq)) is None else p.piece_type + (0 if p.color else 6)
                for sq in chess.SQUARES
            )
            assert a["board"][i].tobytes() == expect, (gi, i)
            assert a["turn"][i] == (0 if board.turn else 1)
            rights = (
                board.has_kingside_castling_rights(chess.WHITE)
                | board.has_queenside_castling_rights(chess.WHITE) << 1
                | board.has_kingside_castling_rights(chess.BLACK) << 2
                | board.has_queenside_castling_rights(chess.BLACK) << 3
            )
            assert a["castling"][i] == rights, (gi, i)
            ep = board.ep_square if board.has_legal_en_passant() else -1
            assert a["ep"][i] == ep
            assert a["legal"][i] == board.legal_moves.count()
            uci = chess.Move.from_uci(board.uci(move, chess960=board.chess960))
            assert (a["from_sq"][i], a["to_sq"][i]) == (uci.from_square, uci.to_square)
            assert a["promotion"][i] == promo.get(move.promotion, move.promotion)
            if clock is None:
                assert math.isnan(a["clock"][i])
            else:
                assert a["clock"][i] == pytest.approx(clock, abs=1e-3)
            if ev is None or ev.white().is_mate():
                assert math.isnan(a["eval"][i])
            else:
                assert a["eval"][i] == ev.white().score()
            assert a["mate"][i] == (ev.white().mate() if ev and ev.white().is_mate() else 0)
            i += 1
    assert i == offsets[-1]


@pytest.mark.parametrize("name", sorted(p.name for p in (SAMPLES / "variants").glob("*.pgn")))
def test_training_arrays_of_variants_agree_with_python_chess(name):
    # python-chess plays each game by the rules its Variant tag names.
    pgn = (SAMPLES / "variants" / name).read_bytes()
    a = pgc.training_arrays(pgn, threads=2)
    i = 0
    for _, plies in replay(pgn):
        for board, move, _, _ in plies:
            expect = bytes(
                0 if (p := board.piece_at(sq)) is None else p.piece_type + (0 if p.color else 6)
                for sq in chess.SQUARES
            )
            assert a["board"][i].tobytes() == expect, (name, i)
            assert a["turn"][i] == (0 if board.turn else 1)
            assert a["legal"][i] == board.legal_moves.count(), (name, i)
            uci = chess.Move.from_uci(board.uci(move, chess960=board.chess960))
            assert (a["from_sq"][i], a["to_sq"][i]) == (uci.from_square, uci.to_square)
            i += 1
    assert i == a["offsets"][-1] == len(a["board"]) > 0


@pytest.mark.parametrize("expr", ["WhiteElo>=2400", "Plies>=60 and Result=1-0", "Round=1"])
def test_training_arrays_where_keeps_the_rows_of_the_games_read_chooses(corpus_dir, expr):
    data = pgc.to_pgc(corpus_dir / TWIC)
    whole = pgc.training_arrays(data, threads=3)
    chosen = [g.index for g in pgc.read(data, where=expr)]
    assert 0 < len(chosen) < len(whole["offsets"]) - 1
    part = pgc.training_arrays(data, threads=3, where=expr)
    offsets = whole["offsets"]
    rows = [range(offsets[g], offsets[g + 1]) for g in chosen]
    lengths = [len(r) for r in rows]
    assert list(part["offsets"]) == [sum(lengths[:k]) for k in range(len(chosen) + 1)]
    picked = [i for r in rows for i in r]
    for name, column in whole.items():
        if name != "offsets":
            assert part[name].tobytes() == column[picked].tobytes(), name
    with pytest.raises(ValueError, match="where="):
        pgc.training_arrays(data, where="WhiteElo>=2400 and (")


def test_training_arrays_are_read_only_views_that_keep_their_buffer(corpus_dir):
    a = pgc.training_arrays(corpus_dir / EVALS, threads=1)
    board = a.pop("board")
    del a
    assert not board.flags.writeable
    with pytest.raises(ValueError):
        board[0, 0] = 1
    # The buffer outlives the dict: the start position's back rank.
    assert board[0, :8].tolist() == [4, 2, 3, 5, 6, 3, 2, 4]


# -- python-chess interop ------------------------------------------------------


def test_to_python_chess_and_back(corpus_dir):
    pgn = plain(corpus_dir / EVALS) + (SAMPLES / "opera.pgn").read_bytes()
    for game in pgc.read(pgn):
        pc = game.to_python_chess()
        assert isinstance(pc, chess.pgn.Game)
        assert [m.uci() for m in pc.mainline_moves()] == game.uci
        for name, value in game.tags.items():
            assert pc.headers[name] == value
        comments = [n.comment for n in pc.mainline()]
        back = pgc.from_python_chess(pc)
        (again,) = list(pgc.read(back))
        assert again.uci == game.uci
        assert again.tags == dict(pc.headers)
        # python-chess joins a move's comments into one: what it exports
        # comes back as it read it.
        nodes = list(again.to_python_chess().mainline())
        assert [n.comment for n in nodes] == comments
        assert [n.clock() for n in nodes] == [n.clock() for n in pc.mainline()]
        assert [n.eval() for n in nodes] == [n.eval() for n in pc.mainline()]


def test_to_python_chess_is_the_game_itself():
    # A rejected game (kept as read in the PGC before the next game's
    # records) and text before the first game are not the game.
    pgn = (
        b"Some notes before the games.\n\n"
        b'[Event "A"]\n\n1. e4 e5 2. Nf3 *\n\n'
        b'[Event "B"]\n\n1. e4 e5 2. Ke3 *\n\n'
        b'[Event "C"]\n\n1. d4 d5 2. c4 *\n'
    )
    with pytest.warns(pgc.RejectedGamesWarning):
        games = list(pgc.read(pgn))
    assert [g.tags["Event"] for g in games] == ["A", "C"]
    text = io.StringIO(pgn.decode())
    want = {
        g.headers["Event"]: [m.uci() for m in g.mainline_moves()]
        for g in iter(lambda: chess.pgn.read_game(text), None)
    }
    for g in games:
        pc = g.to_python_chess()
        assert pc.headers["Event"] == g.tags["Event"]
        assert [m.uci() for m in pc.mainline_moves()] == want[g.tags["Event"]] == g.uci


def test_to_python_chess_reads_crlf_text_as_a_text_file():
    # A clock command whose comment spans a CRLF line end: python-chess
    # reading the file in text mode finds both clocks.
    pgn = b'[Event "x"]\r\n\r\n1. e4 { [%clk 1:30:57] } e5 { [%clk\r\n1:30:50] } *\r\n'
    (game,) = list(pgc.read(pgn))
    direct = chess.pgn.read_game(io.StringIO(pgn.decode(), newline=None))
    clocks = [n.clock() for n in direct.mainline()]
    assert clocks == [5457.0, 5450.0]
    assert [n.clock() for n in game.to_python_chess().mainline()] == clocks


def test_a_table_of_no_columns_is_refused_at_once():
    data = (SAMPLES / "opera.pgn").read_bytes()
    with pytest.raises(ValueError, match=r"columns=\[\]"):
        pgc.read_arrow(data, columns=[])
    table = pgc.read_arrow(data, columns=["pgc"]).read_all()
    with pytest.raises(ValueError, match=r"columns=\[\]"):
        pgc.batch_to_arrow(table.column("pgc"), columns=[])


def test_decode_of_compressed_pgc_says_so():
    pgc_bytes = pgc.encode((SAMPLES / "opera.pgn").read_bytes())
    for packed, name in [(gzip.compress(pgc_bytes), "gzip"), (bz2.compress(pgc_bytes), "bzip2")]:
        with pytest.raises(ValueError, match=f"compressed with {name}"):
            pgc.decode(packed)
        assert pgc.decode(pgc.to_pgc(packed)) == pgc.decode(pgc_bytes)


def test_decode_of_pgn_and_encode_of_utf16_say_what_the_data_is():
    pgn = (SAMPLES / "opera.pgn").read_bytes()
    with pytest.raises(ValueError, match="PGN text, not PGC"):
        pgc.decode(pgn)
    for encoding, name in [("utf-16", "UTF-16LE"), ("utf-16-be", "UTF-16BE")]:
        with pytest.raises(pgc.PgcError, match=name):
            pgc.encode(pgn.decode("latin-1").encode(encoding))


def test_to_python_chess_reads_any_layout():
    # Tags and moves on one line, as some tools write them: python-chess
    # does not read that text, but reads the game in the export format.
    pgn = b'[Event "x"][Round "1"] 1. e4 e5 2. Nf3 {a comment} *\n'
    (game,) = list(pgc.read(pgn))
    assert game.uci == ["e2e4", "e7e5", "g1f3"]
    pc = game.to_python_chess()
    assert [m.uci() for m in pc.mainline_moves()] == game.uci
    assert (pc.headers["Event"], pc.headers["Round"]) == ("x", "1")
    assert [n.comment for n in pc.mainline()] == ["", "", "a comment"]


def test_batch_to_arrow_refuses_empty_cells_and_other_types():
    game = pgc.encode((SAMPLES / "opera.pgn").read_bytes())
    with pytest.raises(ValueError, match="row 2: the cell is empty"):
        pgc.batch_to_arrow(pa.array([game, b""], pa.binary()))
    for wrong in [game, [game]]:
        with pytest.raises(TypeError, match="pyarrow binary array"):
            pgc.batch_to_arrow(wrong)
    assert pgc.batch_to_arrow(pa.array([game], pa.large_binary())).num_rows == 1


def test_batch_to_arrow_refuses_a_game_cut_across_two_cells():
    two = pgc.encode((SAMPLES / "opera.pgn").read_bytes()) * 2
    whole = pgc.batch_to_arrow(pa.array([two], pa.binary()))
    assert whole.num_rows == 2
    # Cut inside the first game (after its first record, inside a record,
    # before its game-end record): joined, the cells would read as the
    # same two games.
    for cut in [1, 2, len(two) // 4, len(two) // 2 - 1]:
        with pytest.raises(ValueError, match="row 1: the cell is not whole PGC records"):
            pgc.batch_to_arrow(pa.array([two[:cut], two[cut:]], pa.binary()))
    # Cut at the games' boundary: two cells of one game each, in a sliced,
    # chunked array (offsets other than 0).
    half = len(two) // 2
    chunked = pa.chunked_array(
        [pa.array([b"x", two[:half]], pa.binary()).slice(1), pa.array([two[half:]], pa.binary())]
    )
    assert pgc.batch_to_arrow(chunked).to_pydict() == whole.to_pydict()


def test_a_game_text_error_is_placed_in_the_data():
    # A broken ordinal in the third game: Game.pgn() and to_python_chess()
    # name its byte offset in the data and the game's number, as decode
    # of the whole data does. (Reading the tags alone replays no move.)
    one = pgc.encode(b'[Event "x"]\n\n1. e4 e5 2. Nf3 *\n')
    data = one * 3
    # The moves record: 0x03, three moves, e4 e5 Nf3 (13, 12, 9).
    at = 2 * len(one) + one.index(bytes([0x03, 3, 13, 12, 9])) + 4
    bad = data[:at] + b"\xff" + data[at + 1 :]
    with pytest.raises(pgc.PgcError) as whole:
        pgc.decode(bad)
    assert (whole.value.offset, whole.value.game) == (at, 2)
    third = list(pgc.read(bad, columns=["tags"]))[2]
    for call in (third.pgn, third.to_python_chess):
        with pytest.raises(pgc.PgcError) as e:
            call()
        assert (e.value.offset, e.value.game) == (at, 2), str(e.value)
        assert "game 3" in str(e.value)


def test_a_negative_thread_count_is_a_value_error():
    pgn = (SAMPLES / "opera.pgn").read_bytes()
    data = pgc.encode(pgn)
    calls = [
        lambda t: pgc.encode(pgn, threads=t),
        lambda t: pgc.to_pgc(pgn, threads=t),
        lambda t: list(pgc.read(data, threads=t)),
        lambda t: pgc.read_arrow(data, threads=t).read_all(),
        lambda t: pgc.training_arrays(data, threads=t),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="threads=-1"):
            call(-1)
        with pytest.raises(TypeError):
            call("2")
        call(1)
