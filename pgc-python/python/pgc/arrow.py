"""Games tables as pyarrow record batches, zero-copy through the Arrow C
data interface (the Arrow PyCapsule protocol): the schema of ``pgc
export``, one row per game."""

from __future__ import annotations

from typing import Any

from pgc import _pgc
from pgc.games import Source, _column_list, to_pgc

#: Every column of a games table, in schema order (``uci`` and ``san`` only
#: when asked).
COLUMNS = tuple(_pgc.column_names())


def _table_columns(columns: Any) -> list[str] | None:
    """``columns=`` of a table: as for ``read``, and at least one."""
    names = _column_list(columns)
    if names == []:
        raise ValueError(
            "columns=[]: a table needs at least one column; name some (such as "
            "['White', 'Result']) or leave columns out for the default"
        )
    return names


def read_arrow(
    source: Source,
    columns: list[str] | None = None,
    uci: bool = False,
    san: bool = False,
    threads: int = 0,
    where: str | None = None,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> Any:
    """The games of a PGC or PGN file (a path, a binary file object or
    bytes; plain or compressed) as a ``pyarrow.RecordBatchReader``: the
    table of ``pgc export`` (typed tag columns, ``other_tags``, ``plies``,
    ``ordinals``, ``clocks``, ``evals``, ``mates``, ``pgc``; ``uci`` and
    ``san`` when asked), or only ``columns`` (in the table's order, not
    the order asked); with ``where``, only the
    games that expression of pgc's filter language chooses (as ``read``
    does). The batches are converted on ``threads`` threads (0: one per
    core) while the reader is read, the threads a few batches ahead of it
    at most; they are the same for every number of threads. A table of
    tag columns, ``plies`` and ``pgc`` only is made without replaying the
    moves (the plies are counted, also for ``where``): several times
    faster, and an ordinal that names no legal move goes
    unnoticed (``verify`` finds it).
    ``.read_all()`` gives a ``pyarrow.Table``. A malformed ``where`` or an
    unknown column raises ``ValueError`` at once; invalid input raises
    ``PgcError`` when its batch is read, and so does input with records
    but no game (only whitespace, or only games that could not be
    converted): a table holds games only. ``max_string`` and
    ``max_rav_depth``: the reading limits, as for ``read``."""
    import pyarrow as pa

    columns = _table_columns(columns)
    limits = {"max_string": max_string, "max_rav_depth": max_rav_depth}
    batches = _pgc.read_arrow(
        to_pgc(source, threads=threads, **limits), columns, uci, san, threads, where, **limits
    )
    schema = pa.schema(batches)
    return pa.RecordBatchReader.from_batches(schema, (pa.record_batch(b) for b in batches))


def _pgc_cells(array: Any) -> tuple[bytes, bytes]:
    """The values of a binary array without nulls or empty values,
    concatenated, and their lengths (little-endian 64-bit integers)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        parts = [_pgc_cells(c) for c in array.chunks]
        return b"".join(p[0] for p in parts), b"".join(p[1] for p in parts)
    if not isinstance(array, pa.Array):
        raise TypeError(
            f"expected a pyarrow binary array (the `pgc` column), not {type(array).__name__}"
        )
    if array.null_count:
        raise ValueError("the array has null rows: expected each game's PGC records")
    if pa.types.is_large_binary(array.type):
        width = 8
    elif pa.types.is_binary(array.type):
        width = 4
    else:
        raise TypeError(f"the array is {array.type}, expected binary (the `pgc` column)")
    if len(array) == 0:
        return b"", b""
    lengths = pc.binary_length(array)
    empty = pc.index(lengths, 0).as_py()
    if empty >= 0:
        raise ValueError(f"row {empty + 1}: the cell is empty: expected a game's PGC records")
    offsets = memoryview(array.buffers()[1]).cast("B")
    start = (array.offset) * width
    first = int.from_bytes(offsets[start : start + width], "little")
    end = (array.offset + len(array)) * width
    last = int.from_bytes(offsets[end : end + width], "little")
    # A fresh array (offset 0) of the lengths as 64-bit integers.
    lengths = pc.cast(lengths, pa.int64())
    sizes = lengths.buffers()[1][lengths.offset * 8 : (lengths.offset + len(lengths)) * 8]
    return array.buffers()[2][first:last].to_pybytes(), sizes.to_pybytes()


def batch_to_arrow(
    array: Any,
    columns: list[str] | None = None,
    uci: bool = False,
    san: bool = False,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> Any:
    """A ``pyarrow.RecordBatch`` of the games of a binary array (the ``pgc``
    column of a games table, or each game's PGC records), one row per
    game (a value of the ``pgc`` column holds one; a value holding several
    gives a row for each), with the columns of ``read_arrow`` (in the
    table's order). For
    Dask ``map_partitions``, Ray ``map_batches`` and Spark ``mapInArrow``
    (whose schema takes the columns by position: name them in that
    order). Each value must hold whole PGC records: a game cut across two
    values raises ``ValueError`` naming the row. ``max_string`` and
    ``max_rav_depth``: the reading limits, as for ``read``."""
    import pyarrow as pa

    data, lengths = _pgc_cells(array)
    batch = _pgc.batch_to_arrow(
        data,
        _table_columns(columns),
        uci,
        san,
        lengths=lengths,
        max_string=max_string,
        max_rav_depth=max_rav_depth,
    )
    return pa.record_batch(batch)
