"""pgc: chess games in PGC (PGN Game Coding, section 20 of the 1994 PGN
standard), byte for byte, from Python.

- ``encode`` / ``decode`` / ``verify``: PGN <-> PGC, and PGC checked;
- ``open`` / ``read``: the games of a PGC or PGN file (plain or compressed
  with zstd, gzip or bzip2) as ``Game`` objects: tags, UCI moves (or
  python-chess moves), clocks, evaluations;
- ``read_arrow`` / ``batch_to_arrow``: games tables (the schema of ``pgc
  export``) as pyarrow record batches, through the Arrow C data interface;
- ``training_arrays``: every position and move as NumPy arrays;
- ``from_python_chess`` and ``Game.to_python_chess``: python-chess interop;
- ``pgc.dask``: conversion and queries on a Dask cluster.

Invalid input raises ``PgcError`` (a ``ValueError``) carrying where it is.
Every function that reads PGC or PGN takes the keywords ``max_string``
(longest string or extension payload, in bytes; default 16 MiB) and
``max_rav_depth`` (deepest nesting of variations; default 256), the
command line's ``--max-string`` and ``--max-rav-depth``; a ``PgcError``
over a limit names its keyword, and 0, a negative value or one over
2**32 - 1 raises ``ValueError``.
PGN games that cannot be converted (an illegal move, a variant pgc does
not play) are kept in the PGC as read, not read as games, and reported
with a ``RejectedGamesWarning`` (their number, places and reasons).
Every conversion releases the GIL; ``threads=0`` means one thread per core.
"""

from pgc._pgc import (
    PgcError,
    Problem,
    RejectedGamesWarning,
    __version__,
    decode,
    encode,
    verify,
)
from pgc.arrow import COLUMNS, batch_to_arrow, read_arrow
from pgc.games import Game, count_games, from_python_chess, games, open, read, to_pgc
from pgc.training import training_arrays

__all__ = [
    "COLUMNS",
    "Game",
    "PgcError",
    "Problem",
    "RejectedGamesWarning",
    "__version__",
    "batch_to_arrow",
    "count_games",
    "decode",
    "encode",
    "from_python_chess",
    "games",
    "open",
    "read",
    "read_arrow",
    "to_pgc",
    "training_arrays",
    "verify",
]
