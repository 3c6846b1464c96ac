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
