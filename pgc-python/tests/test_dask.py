"""pgc.dask on a real two-process Dask cluster: the shards' conversion
equals the one-machine encode, and a DataFrame query equals `pgc moves
--where`."""

import collections
import subprocess

import pgc
import pgc.dask
import pytest

distributed = pytest.importorskip("distributed")

LICHESS = "lichess-org__database/2017-05.pgn.zst"
TCEC = "TCEC-Chess__tcecgames/master-archive/TCEC_Cup_8_Final.pgn"


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def shards_of(text: bytes, n: int) -> list[bytes]:
    """`text` cut into about `n` pieces at game starts (a tag line after an
    empty line)."""
    starts = [0]
    step = len(text) // n
    at = step
    while len(starts) < n:
        i = text.find(b"\n\n[", at)
        if i < 0:
            break
        starts.append(i + 2)
        at = i + 2 + step
    return [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)], strict=True)]


def test_shards_encode_to_the_bytes_of_one_encode(client, corpus_dir, pgc_bin, tmp_path):
    text = (
        subprocess.run(
            ["zstd", "-dc", str(corpus_dir / LICHESS)], capture_output=True, check=True
        ).stdout
        + (corpus_dir / TCEC).read_bytes()
    )
    shards = shards_of(text, 8)
    assert len(shards) == 8 and b"".join(shards) == text
    paths = []
    for i, s in enumerate(shards):
        p = tmp_path / f"shard-{i}.pgn"
        p.write_bytes(s)
        if i % 2:
            subprocess.run(["zstd", "-q", "--rm", str(p)], check=True)
            p = p.with_name(p.name + ".zst")
        paths.append(p)
    whole = tmp_path / "whole.pgn"
    whole.write_bytes(text)
    expected = subprocess.run(
        [pgc_bin, "encode", "-q", str(whole), "-o", "-"], capture_output=True, check=True
    ).stdout
    out = tmp_path / "all.pgc"
    n = pgc.dask.encode_shards(paths, out, client=client)
    assert out.read_bytes() == expected
    assert n == len(expected)


def test_a_shard_starting_inside_the_text_between_games_is_refused(client, tmp_path):
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_bytes(b'[Event "a"]\n\n1. e4 e5 1-0\n')
    b.write_bytes(b'\n[Event "b"]\n\n1. d4 d5 0-1\n')
    with pytest.raises(ValueError, match="does not start with a game"):
        pgc.dask.encode_shards([a, b], tmp_path / "out.pgc", client=client)
    assert not (tmp_path / "out.pgc").exists()


def test_rejected_games_of_a_shard_are_reported_on_the_client(client, tmp_path):
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_bytes(b'[Event "a"]\n\n1. e4 e5 1-0\n\n')
    b.write_bytes(b'[Event "b"]\n\n1. e4 e5 2. Ke3 0-1\n')
    out = tmp_path / "out.pgc"
    with pytest.warns(pgc.RejectedGamesWarning) as caught:
        pgc.dask.encode_shards([a, b], out, client=client)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1
    assert messages[0].startswith(f"{b}: 1 PGN game(s) could not be converted")
    token = b.read_bytes().index(b"Ke3")
    assert f'ply 3 (line 3, byte {token}): illegal or ambiguous move "Ke3"' in messages[0]
    # Kept as read: the shards come back.
    assert pgc.decode(out.read_bytes()) == a.read_bytes() + b.read_bytes()


def test_dataframe_query_equals_pgc_moves_where(client, corpus_dir, pgc_bin, tmp_path):
    paths = []
    # Files whose WhiteElo tags are numbers (or absent): `--where` compares
    # other values ("?") as text, the typed column holds them as nulls.
    for name in (LICHESS, TCEC, "hauva69__pgn4web/twic944.pgn.zst"):
        p = tmp_path / (name.replace("/", "_") + ".pgc")
        p.write_bytes(pgc.to_pgc(corpus_dir / name))
        paths.append(p)
    ddf = pgc.dask.read_dataframe(paths)
    assert ddf.npartitions == 3
    got = ddf[ddf.WhiteElo >= 2400].groupby("Result").size().compute()
    lines = subprocess.run(
        [pgc_bin, "moves", "-q", "--where", "WhiteElo>=2400", *map(str, paths), "-o", "-"],
        capture_output=True,
        check=True,
    ).stdout.splitlines()
    want = collections.Counter(line.split()[-1].decode() for line in lines if line.strip())
    assert sum(want.values()) > 100
    assert {str(k): int(v) for k, v in got.items()} == dict(want)
    # The whole table, with every column, through the same Arrow batches.
    full = pgc.dask.read_dataframe(paths[:1], columns=None).compute()
    assert len(full) == pgc.count_games(paths[0].read_bytes())


def test_a_query_of_tags_reads_no_move(client, tmp_path):
    """Dask pushes a query's columns down to the reader: a query of tags
    (and plies) reads a table of those, which replays no move, so a file
    whose second game holds an ordinal that names no legal move answers
    it, while a query that reads the moves fails there."""
    good = pgc.encode(b'[White "A"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n')
    bad = bytearray(pgc.encode(b'[White "B"]\n[Result "0-1"]\n\n1. e4 0-1\n'))
    # The one-move record: 0x03, one ordinal (before the termination
    # marker's extension record, whose header holds the same two bytes);
    # ordinal 20 of the start position (20 legal moves) names none.
    at = bytes(bad).index(bytes([0x03, 1])) + 2
    assert bad[at] == 13, "e4 is ordinal 13 of the start position"
    bad[at] = 20
    path = tmp_path / "games.pgc"
    path.write_bytes(good + bytes(bad))
    ddf = pgc.dask.read_dataframe([path])
    got = ddf[ddf.White == "B"][["White", "Result"]].compute()
    assert got.to_dict("records") == [{"White": "B", "Result": "0-1"}]
    assert ddf.Result.value_counts().compute().to_dict() == {"1-0": 1, "0-1": 1}
    assert ddf.Result.size.compute() == 2
    # `plies` is counted without decoding a move; `uci` decodes them.
    assert ddf.plies.sum().compute() == 3
    with pytest.raises(pgc.PgcError, match="ordinal 20"):
        pgc.dask.read_dataframe([path], columns=["White"], uci=True).compute()
    # Read whole, the file fails as well.
    with pytest.raises(pgc.PgcError, match="ordinal 20"):
        pgc.dask.read_dataframe([path], columns=None).compute()


def test_the_reading_limits_reach_the_workers(client, tmp_path):
    """`max_rav_depth` travels with the tasks: a game with variations 300
    deep (the default limit is 256) converts and reads on the workers with
    the limit raised, and is named by its keyword without."""
    ravs = "(1. d4 " * 300 + ")" * 300
    text = f'[Event "Deep"]\n\n1. e4 {ravs} e5 *\n'.encode()
    shard = tmp_path / "deep.pgn"
    shard.write_bytes(text)
    out = tmp_path / "deep.pgc"
    pgc.dask.encode_shards([shard], out, client=client, max_rav_depth=400)
    assert pgc.decode(out.read_bytes(), max_rav_depth=400) == text
    ddf = pgc.dask.read_dataframe([out], columns=["Event", "plies"], max_rav_depth=400)
    assert ddf.compute().to_dict("records") == [{"Event": "Deep", "plies": 2}]
    with pytest.raises(pgc.PgcError, match=r"max_rav_depth=\.\.\."):
        pgc.dask.read_dataframe([out], columns=["Event", "plies"]).compute()
