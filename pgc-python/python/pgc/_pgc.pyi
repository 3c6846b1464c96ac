"""Stubs of the native module ``pgc._pgc`` (see the package's docstrings)."""

from typing import Any

__version__: str

class PgcError(ValueError):
    """Invalid PGN or PGC input, positioned (each attribute None when unknown).
    A limit is named by its keyword (``max_string=...``, ``max_rav_depth=...``)."""

    offset: int | None
    line: int | None
    game: int | None
    ply: int | None
    marker: str | None
    expected: str | None
    found: str | None

class RejectedGamesWarning(UserWarning):
    """PGN games that could not be converted: kept in the PGC as read (left
    out with ``strict=True``), not read as games. The message gives their
    number and the first ten with their places and reasons."""

class Problem:
    """One problem found by ``verify``."""

    offset: int
    game: int | None
    ply: int | None
    marker: str | None
    expected: str
    found: str
    message: str
    def __getitem__(self, key: str) -> Any: ...

def check_options(
    where_: str | None = None,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> None: ...

class GameReader:
    def __init__(
        self,
        data: bytes,
        moves: bool = True,
        typed: bool = True,
        threads: int = 0,
        where_: str | None = None,
        *,
        max_string: int | None = None,
        max_rav_depth: int | None = None,
    ) -> None: ...
    def next_chunk(self) -> list[GameRecord] | None: ...

class GameRecord:
    index: int
    offset: int
    tags: dict[str, str]
    uci: str
    plies: int
    clocks: list[int | None]
    evals: list[int | None]
    mates: list[int | None]
    result: str
    pgc: bytes
    own_pgc: bytes
    def text(
        self,
        own: bool,
        export: bool,
        *,
        max_string: int | None = None,
        max_rav_depth: int | None = None,
    ) -> bytes: ...

class ArrowBatches:
    def __arrow_c_schema__(self) -> object: ...
    def __iter__(self) -> ArrowBatches: ...
    def __next__(self) -> ArrowBatch: ...

class ArrowBatch:
    def __arrow_c_array__(
        self, requested_schema: object | None = None
    ) -> tuple[object, object]: ...
    def __len__(self) -> int: ...

def encode(
    pgn: bytes | bytearray | memoryview,
    strict: bool = False,
    threads: int = 0,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> bytes:
    """PGN -> PGC on ``threads`` threads (0: one per core; the same bytes for
    every number). ``strict``: 1994 records only, games that cannot be
    converted left out. Games that cannot be converted raise a
    ``RejectedGamesWarning``; among them, games with variations nested
    deeper than ``max_rav_depth`` (default 256) or a comment, tag or other
    payload longer than ``max_string`` bytes (default 16 MiB), which
    readers with those limits refuse. PGN compressed with zstd, gzip or
    bzip2 is decompressed first; PGC data raises ``PgcError``. A limit of
    0, below 0 or over 2**32 - 1 raises ``ValueError``."""

def decode(
    data: bytes | bytearray | memoryview,
    export: bool = False,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> bytes:
    """PGC -> PGN, byte for byte (``export``: the export format), read with
    the limits ``max_string`` (longest string or extension payload, in
    bytes; default 16 MiB) and ``max_rav_depth`` (deepest nesting of
    variations; default 256), the command line's ``--max-string`` and
    ``--max-rav-depth``. Data over a limit raises ``PgcError`` naming its
    keyword; a limit of 0, below 0 or over 2**32 - 1 ``ValueError``; data
    compressed with zstd, gzip or bzip2 ``ValueError`` (``to_pgc`` and
    ``read`` decompress)."""

def verify(
    data: bytes | bytearray | memoryview,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> list[Problem]:
    """The problems of PGC bytes (empty when valid), checked with the
    limits ``max_string`` and ``max_rav_depth`` (as for ``decode``)."""

def count_games(
    data: bytes, *, max_string: int | None = None, max_rav_depth: int | None = None
) -> int: ...
def to_pgc(
    data: bytes,
    strict: bool = False,
    threads: int = 0,
    stacklevel: int = 1,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> bytes: ...
def decompress(data: bytes) -> bytes: ...
def sniff(data: bytes) -> str: ...
def read_arrow(
    data: bytes,
    columns: list[str] | None = None,
    uci: bool = False,
    san: bool = False,
    threads: int = 0,
    where_: str | None = None,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> ArrowBatches: ...
def batch_to_arrow(
    data: bytes,
    columns: list[str] | None = None,
    uci: bool = False,
    san: bool = False,
    *,
    lengths: bytes | None = None,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> ArrowBatch: ...
def column_names() -> list[str]: ...

class Column:
    """One training array's buffer (``numpy.asarray`` views it, read-only)."""

    __array_interface__: dict[str, Any]
    def __len__(self) -> int: ...

def training_arrays(
    data: bytes,
    threads: int = 0,
    where_: str | None = None,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> dict[str, Column]: ...
