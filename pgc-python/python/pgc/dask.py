"""pgc on a Dask cluster: PGN shards converted to one PGC file, one task
per shard, and PGC files loaded into a Dask DataFrame through the Arrow
batches.

The workers import ``pgc`` (install the wheel on every worker) and read
the paths they are given: the shards and PGC files are on a file system
every worker sees (or the cluster is one machine).

    from distributed import Client
    import pgc.dask

    client = Client("scheduler:8786")
    pgc.dask.encode_shards(["part-1.pgn.zst", "part-2.pgn.zst"], "all.pgc")
    ddf = pgc.dask.read_dataframe(["all.pgc"])
    ddf[ddf.WhiteElo >= 2400].groupby("Result").size().compute()
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Iterable, Sequence

import pgc
from pgc.games import _raw

#: The columns ``read_dataframe`` loads by default: every tag column, the
#: time control's parts and the number of plies (no lists, no PGC bytes).
DATAFRAME_COLUMNS = (
    "Event",
    "Site",
    "White",
    "Black",
    "Result",
    "WhiteTitle",
    "BlackTitle",
    "WhiteElo",
    "BlackElo",
    "WhiteRatingDiff",
    "BlackRatingDiff",
    "UTCDate",
    "UTCTime",
    "Date",
    "ECO",
    "Opening",
    "Termination",
    "TimeControl",
    "base_seconds",
    "increment_seconds",
    "Variant",
    "FEN",
    "plies",
)


def _shard_start_ok(data: bytes) -> bool:
    """Whether PGN text starts where a game starts (not with whitespace, a
    byte order mark or a `%` escape line, which the encoder keeps with the
    game before them in one input)."""
    return not data or data[:1] not in b" \t\r\n\x0b\x0c%\xef"


def encode_shard(
    shard: str | os.PathLike,
    first: bool = True,
    strict: bool = False,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> bytes:
    """The PGC of one PGN shard (plain or compressed with zstd, gzip or
    bzip2), as ``pgc encode`` gives it (``max_string``, ``max_rav_depth``:
    as for ``pgc.encode``). A shard after the first must start where a
    game starts: ``ValueError`` otherwise."""
    raw = pgc._pgc.decompress(_raw(shard))
    if not first and pgc._pgc.sniff(raw) == "pgn" and not _shard_start_ok(raw):
        raise ValueError(
            f"{shard}: does not start with a game (it starts with whitespace, a byte order "
            "mark or a % line): its PGC would differ from the concatenated input's; join it "
            "to the shard before it"
        )
    try:
        return pgc._pgc.to_pgc(raw, strict, max_string=max_string, max_rav_depth=max_rav_depth)
    except pgc.PgcError as e:
        # The place (offset, game) is within the shard: say which.
        e.args = (f"{os.fspath(shard)}: {e}",)
        raise


def _encode_shard_reporting(
    shard: str, first: bool, strict: bool, limits: dict[str, int | None]
) -> tuple[bytes, list[str]]:
    """``encode_shard``, and the messages of the ``RejectedGamesWarning`` it
    raised on the worker (which the client would not see)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", pgc.RejectedGamesWarning)
        data = encode_shard(shard, first, strict, **limits)
    return data, [str(w.message) for w in caught if w.category is pgc.RejectedGamesWarning]


def encode_shards(
    shards: Sequence[str | os.PathLike],
    output: str | os.PathLike,
    client: Any = None,
    strict: bool = False,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> int:
    """Converts PGN shards to one PGC file on a Dask cluster, one task per
    shard, and writes the parts to ``output`` in shard order, as each
    arrives. Returns the bytes written.

    The file equals ``pgc encode`` of the shards concatenated, on one
    machine, when every shard is whole games: each shard after the first
    starts with a game's first byte (its ``[`` tag section or movetext, not
    whitespace, a byte order mark or a ``%`` escape line; a shard that does
    not raises ``ValueError``). A PGN game is encoded on its own (its
    layout and escapes included), so the PGC of the concatenation is the
    concatenation of the shards' PGC: nothing in PGC numbers the games.
    Shards cut out of one file at game starts, or whole monthly files, are
    such shards.

    ``client``: a ``distributed.Client`` (default: the current one); the
    parts travel to this process, one at a time in shard order. PGN games
    a worker cannot convert are reported here, each shard's with a
    ``pgc.RejectedGamesWarning`` naming the shard. ``max_string`` and
    ``max_rav_depth``: as for ``pgc.encode``."""
    from distributed import default_client

    shards = list(shards)
    limits = {"max_string": max_string, "max_rav_depth": max_rav_depth}
    client = client or default_client()
    futures = [
        client.submit(_encode_shard_reporting, os.fspath(s), i == 0, strict, limits, pure=False)
        for i, s in enumerate(shards)
    ]
    written = 0
    tmp = f"{os.fspath(output)}.part"
    try:
        with open(tmp, "wb") as out:
            # (No `strict=`: the package runs on Python 3.9.)
            for shard, f in zip(shards, futures):  # noqa: B905
                part, rejected = f.result()
                f.release()
                for message in rejected:
                    warnings.warn(
                        f"{os.fspath(shard)}: {message}", pgc.RejectedGamesWarning, stacklevel=2
                    )
                out.write(part)
                written += len(part)
        os.replace(tmp, output)
    except BaseException:
        for f in futures:
            f.cancel()
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return written


class _Part:
    """Reads one PGC (or PGN) file's games table as a pandas DataFrame with
    Arrow types (picklable: it travels to the workers).

    Its ``columns`` keyword lets Dask push a query's columns down: a query
    of tag columns only then reads a table of those, which replays no move
    (see ``pgc.read_arrow``)."""

    def __init__(
        self,
        columns: Sequence[str] | None,
        uci: bool,
        threads: int,
        limits: dict[str, int | None],
    ):
        self.columns = None if columns is None else list(columns)
        self.uci = uci
        self.threads = threads
        self.limits = limits

    def table(self, path: str | None, columns: list[str] | None, uci: bool) -> Any:
        import pyarrow as pa

        if path is None:
            return pa.Table.from_batches(
                [pgc.batch_to_arrow(pa.array([], pa.binary()), columns, uci, **self.limits)]
            )
        return pgc.read_arrow(path, columns, uci, threads=self.threads, **self.limits).read_all()

    def __call__(self, path: str | None, columns: Sequence[str] | None = None) -> Any:
        import pandas as pd

        if columns is None:
            table = self.table(path, self.columns, self.uci)
            return table.to_pandas(types_mapper=pd.ArrowDtype)
        wanted = list(columns)
        # `uci` is asked for apart; a query of no column (a count of rows)
        # reads the `Result` tag for the rows.
        asked = [c for c in wanted if c != "uci"] or ["Result"]
        table = self.table(path, asked, "uci" in wanted)
        return table.to_pandas(types_mapper=pd.ArrowDtype)[wanted]


def read_dataframe(
    paths: Iterable[str | os.PathLike],
    columns: Sequence[str] | None = DATAFRAME_COLUMNS,
    uci: bool = False,
    threads: int = 1,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> Any:
    """A Dask DataFrame of the games of PGC (or PGN) files, one partition
    per file, read by the workers through ``pgc.read_arrow`` (``columns``:
    any of ``pgc.COLUMNS``; None: every column of ``pgc export``;
    ``max_string`` and ``max_rav_depth``: the reading limits). Columns
    have pandas' Arrow types (``int16[pyarrow]``, ``string[pyarrow]``, …).
    The default columns (tags and ``plies``) replay no move, and a query's
    columns are pushed down to the reader."""
    import dask.dataframe as dd

    part = _Part(columns, uci, threads, {"max_string": max_string, "max_rav_depth": max_rav_depth})
    return dd.from_map(
        part,
        [os.fspath(p) for p in paths],
        meta=part(None),
        label="pgc-games",
        enforce_metadata=False,
    )
