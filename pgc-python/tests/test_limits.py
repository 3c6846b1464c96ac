"""The reading limits `max_string` and `max_rav_depth` (the command line's
`--max-string` and `--max-rav-depth`) on every function that reads PGC or
PGN: over a default limit the error names the keyword that raises it, and
with the limit raised the same input converts and reads."""

import warnings

import chess.pgn
import pgc
import pgc.dask
import pyarrow as pa
import pytest

DEPTH = 300  # variations nested deeper than the default limit, 256


def deep_pgn(depth: int) -> bytes:
    """A game whose first move has a variation nested `depth` deep."""
    ravs = "(1. d4 " * depth + ")" * depth
    return f'[Event "Deep"]\n\n1. e4 {ravs} e5 *\n'.encode()


DEEP = deep_pgn(DEPTH)
RAISED = {"max_rav_depth": 400}
COMMENT = b'[Event "Long"]\n\n1. e4 {' + b"x" * 100 + b"} e5 *\n"


@pytest.fixture(scope="module")
def deep_pgc() -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("error", pgc.RejectedGamesWarning)
        return pgc.encode(DEEP, **RAISED)


def readers(data: bytes):
    """Every reader of PGC, as (name, call with keywords)."""
    return [
        ("decode", lambda **k: pgc.decode(data, **k)),
        ("count_games", lambda **k: pgc.count_games(data, **k)),
        ("read", lambda **k: list(pgc.read(data, **k))),
        ("read of tags", lambda **k: list(pgc.read(data, columns=["tags"], **k))),
        ("open", lambda **k: list(pgc.open(data, **k))),
        ("read_arrow", lambda **k: pgc.read_arrow(data, uci=True, **k).read_all()),
        ("read_arrow of tags", lambda **k: pgc.read_arrow(data, ["White"], **k).read_all()),
        ("batch_to_arrow", lambda **k: pgc.batch_to_arrow(binary(data), **k)),
        ("training_arrays", lambda **k: pgc.training_arrays(data, **k)),
        ("games", lambda **k: pgc.games(data, **k)),
    ]


def binary(data: bytes):
    """`data` as a binary array of one value (a `pgc` column)."""
    return pa.array([data], pa.binary())


def test_rav_depth_over_the_default_names_max_rav_depth(deep_pgc):
    with pytest.warns(pgc.RejectedGamesWarning) as caught:
        kept = pgc.encode(DEEP)
    message = str(caught[0].message)
    assert "raise it with max_rav_depth=...)" in message and "--max" not in message
    assert pgc.decode(kept) == DEEP, "kept as read"
    for name, call in readers(deep_pgc):
        with pytest.raises(pgc.PgcError) as e:
            call()
        text = str(e.value)
        assert "max_rav_depth=..." in text and "--max" not in text, (name, text)
    problems = pgc.verify(deep_pgc)
    assert problems, "RAVs deeper than the default are a problem"
    for p in problems:
        assert "--max" not in p.message and "--max" not in p.expected
    assert any("max_rav_depth=..." in p.message for p in problems)


def test_raised_rav_depth_round_trips_and_reads(deep_pgc, tmp_path):
    assert pgc.decode(deep_pgc, **RAISED) == DEEP
    assert pgc.verify(deep_pgc, **RAISED) == []
    assert pgc.count_games(deep_pgc, **RAISED) == 1
    [game] = pgc.read(deep_pgc, **RAISED)
    assert game.uci == ["e2e4", "e7e5"]
    assert game.pgn() == DEEP.decode(), "decoded with the limits it was read with"
    assert [g.uci for g in pgc.open(DEEP, **RAISED)] == [["e2e4", "e7e5"]], "from PGN"
    table = pgc.read_arrow(deep_pgc, uci=True, **RAISED).read_all()
    assert table["plies"].to_pylist() == [2]
    assert table["uci"].to_pylist() == [["e2e4", "e7e5"]]
    rows = pgc.batch_to_arrow(table["pgc"], ["Event"], **RAISED)
    assert rows.column("Event").to_pylist() == ["Deep"]
    arrays = pgc.training_arrays(DEEP, **RAISED)
    assert arrays["offsets"].tolist() == [0, 2]
    assert arrays["from_sq"].tolist() == [12, 52]  # e2, e7
    # pgc.dask passes them on (its workers call the same functions).
    path = tmp_path / "deep.pgn"
    path.write_bytes(DEEP)
    assert pgc.dask.encode_shard(path, **RAISED) == deep_pgc
    ddf = pgc.dask.read_dataframe([path], columns=["Event", "plies"], **RAISED)
    frame = ddf.compute(scheduler="sync")
    assert frame["plies"].tolist() == [2]


def deep_python_chess_game(depth: int):
    """A python-chess game whose each variation holds the next, `depth`
    deep: at every node a main move and an alternative, and on from the
    alternative."""
    game = chess.pgn.Game()
    node = game
    for _ in range(depth):
        main, other = sorted(node.board().legal_moves, key=chess.Move.uci)[:2]
        node.add_main_variation(main)
        node = node.add_variation(other)
    return game


def test_raised_rav_depth_from_python_chess():
    game = deep_python_chess_game(DEPTH)
    with pytest.warns(pgc.RejectedGamesWarning, match="max_rav_depth=..."):
        pgc.from_python_chess(game)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pgc.RejectedGamesWarning)
        data = pgc.from_python_chess(game, **RAISED)
    assert pgc.verify(data, **RAISED) == []
    assert pgc.count_games(data, **RAISED) == 1, "converted, not kept as read"


def test_max_string_below_a_comment_names_max_string():
    data = pgc.encode(COMMENT)
    for name, call in readers(data):
        call()  # the default limit, 16 MiB
        call(max_string=100)  # the comment's length
        with pytest.raises(pgc.PgcError) as e:
            call(max_string=64)
        text = str(e.value)
        assert "max_string=..." in text and "--max" not in text, (name, text)
    [problem] = pgc.verify(data, max_string=64)
    assert "max_string=..." in problem.message and "--max" not in problem.message
    assert pgc.verify(data) == pgc.verify(data, max_string=100) == []


def test_max_string_bounds_what_encode_writes():
    # A comment one byte over the default limit: not converted (kept as
    # read) unless the limit is raised, and then read with it raised.
    big = 16 << 20
    text = b'[Event "Big"]\n\n1. e4 {' + b"x" * (big + 1) + b"} e5 *\n"
    with pytest.warns(pgc.RejectedGamesWarning) as caught:
        pgc.encode(text)
    message = str(caught[0].message)
    assert "(max_string=...)" in message and "--max" not in message
    with warnings.catch_warnings():
        warnings.simplefilter("error", pgc.RejectedGamesWarning)
        data = pgc.encode(text, max_string=big + 1)
    with pytest.raises(pgc.PgcError, match=r"max_string=\.\.\."):
        pgc.decode(data)
    assert pgc.decode(data, max_string=big + 1) == text
    assert [len(g) for g in pgc.read(data, max_string=big + 1)] == [2]
    with pytest.warns(pgc.RejectedGamesWarning, match=r"max_string=\.\.\."):
        pgc.encode(COMMENT, max_string=64)


def limited_calls(data: bytes):
    """Every public function that takes the limits, as (name, call)."""
    return [
        ("encode", lambda **k: pgc.encode(COMMENT, **k)),
        ("to_pgc", lambda **k: pgc.to_pgc(data, **k)),
        ("from_python_chess", lambda **k: pgc.from_python_chess(chess.pgn.Game(), **k)),
        ("verify", lambda **k: pgc.verify(data, **k)),
        ("dask.encode_shard", lambda **k: pgc.dask.encode_shard(COMMENT, **k)),
        *readers(data),
    ]


@pytest.mark.parametrize("keyword", ["max_string", "max_rav_depth"])
@pytest.mark.parametrize("value", [0, -1, 2**32])
def test_limits_out_of_range_are_value_errors(keyword, value):
    data = pgc.encode(COMMENT)
    for name, call in limited_calls(data):
        with pytest.raises(ValueError, match=f"{keyword}={value}: expected an int from 1") as e:
            call(**{keyword: value})
        assert not isinstance(e.value, pgc.PgcError), name
        call(**{keyword: 2**32 - 1})


@pytest.mark.parametrize("value", [True, 1.5, "300"])
def test_limits_that_are_not_ints_are_type_errors(value):
    with pytest.raises(TypeError, match="max_rav_depth="):
        pgc.decode(pgc.encode(COMMENT), max_rav_depth=value)


def test_read_checks_its_arguments_when_called():
    # `read` and `open` are lazy: the source is read as the games are
    # iterated, but a bad argument is refused at the call.
    data = pgc.encode(COMMENT)
    for call in (pgc.read, pgc.open):
        with pytest.raises(ValueError, match="max_rav_depth=0"):
            call(data, max_rav_depth=0)
        with pytest.raises(TypeError, match="max_string="):
            call(data, max_string="64")
        with pytest.raises(ValueError, match="where="):
            call(data, where="WhiteElo >=")
        with pytest.raises(ValueError, match="moves="):
            call(data, moves="san")
    with pytest.raises(ValueError, match="no field"):
        pgc.read(data, columns=["ratings"])
