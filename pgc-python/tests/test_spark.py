"""The README's Spark recipe as a test: a local Spark session reads a
Parquet file of `pgc` bytes, `mapInArrow` turns each Arrow batch into
games with `pgc.batch_to_arrow`, and the rows and a `groupBy` on them equal
what `pgc.read_arrow` gives for the same games."""

import collections
import os
import shutil
import sys

import pgc
import pyarrow.parquet as pq
import pytest

pyspark = pytest.importorskip("pyspark")
if shutil.which("java") is None:
    pytest.skip("no Java runtime for Spark (scripts/test installs one)", allow_module_level=True)

from pyspark import cloudpickle  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

# Spark's Python workers do not have the tests on their path: `to_games`
# travels by value, not as a reference to this module.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

TWIC = "hauva69__pgn4web/twic944.pgn.zst"
COLUMNS = ["White", "WhiteElo", "Result"]
# Spark takes a batch's columns by position: they come in the table's
# order (the schema's, not the order asked), so the DDL names them so.
DDL = "White string, Result string, WhiteElo smallint"


def to_games(batches):
    for b in batches:
        yield pgc.batch_to_arrow(b.column("pgc"), columns=COLUMNS)


@pytest.fixture(scope="module")
def spark():
    # The workers run this interpreter, which has the package.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("pgc-test")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        # Small Arrow batches, so each task converts several.
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "500")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_map_in_arrow_makes_the_games_table(corpus_dir, tmp_path, spark):
    want = pgc.read_arrow(corpus_dir / TWIC, columns=COLUMNS).read_all()
    games = pgc.read_arrow(corpus_dir / TWIC, columns=["pgc"]).read_all()
    path = tmp_path / "games.parquet"
    pq.write_table(games, path, row_group_size=1000)

    df = spark.read.parquet(str(path)).repartition(4)
    got = df.mapInArrow(to_games, DDL)
    rows = got.collect()
    assert len(rows) == want.num_rows > 1000

    def key(r: dict) -> str:
        return repr(sorted(r.items()))

    assert sorted(key(r.asDict()) for r in rows) == sorted(key(r) for r in want.to_pylist())

    # The README's query, answered by Spark, against pgc's own count.
    counts = {r["Result"]: r["count"] for r in got.groupBy("Result").count().collect()}
    assert counts == dict(collections.Counter(want.column("Result").to_pylist()))
    # The Elo column arrives as Spark's smallint, nulls kept.
    elos = [r["WhiteElo"] for r in got.where("WhiteElo >= 2400").select("WhiteElo").collect()]
    strong = [e for e in want.column("WhiteElo").to_pylist() if e is not None and e >= 2400]
    assert sorted(elos) == sorted(strong) and len(strong) > 0
