"""The README's Ray recipe as a test: games tables made by `map_batches`
over the `pgc` column of a Ray dataset, equal to `pgc.read_arrow`'s."""

import sys

import pgc
import pyarrow as pa
import pytest

ray = pytest.importorskip("ray")
# Ray's workers do not have the tests on their path: `to_games` travels
# by value, not as a reference to this module.
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])

TWIC = "hauva69__pgn4web/twic944.pgn.zst"


def to_games(batch: pa.Table) -> pa.Table:
    rows = pgc.batch_to_arrow(batch.column("pgc"), columns=["White", "WhiteElo", "Result"])
    return pa.Table.from_batches([rows])


def test_map_batches_makes_the_games_table(corpus_dir):
    want = pgc.read_arrow(corpus_dir / TWIC, columns=["White", "WhiteElo", "Result"]).read_all()
    table = pgc.read_arrow(corpus_dir / TWIC, columns=["pgc"]).read_all()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        ds = ray.data.from_arrow(table).repartition(4)
        refs = ds.map_batches(to_games, batch_format="pyarrow").to_arrow_refs()
        got = pa.concat_tables(ray.get(refs))
    finally:
        ray.shutdown()
    assert got.num_rows == want.num_rows > 1000
    assert got.schema == want.schema

    def rows(t: pa.Table):
        return sorted(map(repr, t.to_pylist()))

    assert rows(got) == rows(want)
