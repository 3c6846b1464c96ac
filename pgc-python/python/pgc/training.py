"""Training arrays: every main-line position and move as NumPy arrays."""

from __future__ import annotations

from typing import Any

from pgc import _pgc
from pgc.games import Source, to_pgc


def training_arrays(
    source: Source,
    threads: int = 0,
    where: str | None = None,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> dict[str, Any]:
    """Every main-line position of every game of a PGC or PGN file, and
    the move played from it, as NumPy arrays (no Python object per move),
    made on ``threads`` threads (0: one per core); with ``where``, of the
    games that expression of pgc's filter language chooses (as in
    ``read``; the moves of a game its tags rule out are not decoded):

    - ``board`` (positions x 64, uint8): square a1 = 0 ... h8 = 63; 0
      empty, 1-6 White pawn, knight, bishop, rook, queen, king, 7-12 the
      same for Black;
    - ``turn`` (uint8): 0 White to move, 1 Black;
    - ``castling`` (uint8): bit 0 White king side, 1 White queen side, 2
      Black king side, 3 Black queen side;
    - ``ep`` (int8): the en passant square if an en passant capture is
      legal, else -1;
    - ``legal`` (uint16): the number of legal moves;
    - ``from_sq``, ``to_sq`` (uint8): the move (64 for a null move;
      castling as the game's UCI: ``e1g1``, or king takes rook in
      Chess960; both the square of a crazyhouse drop, as python-chess has
      it); ``promotion`` (uint8): 0, or 2-5 knight to queen
      (python-chess's piece types);
    - ``clock`` (float32): ``[%clk]`` after the move, in seconds (NaN: none);
      ``eval`` (float32): ``[%eval]`` in centipawns (NaN: none or a mate);
      ``mate`` (int16): ``#3`` is 3, ``#-2`` is -2, 0 none;
    - ``offsets`` (int64, games + 1): the positions of game ``i`` are
      ``offsets[i]:offsets[i+1]``.

    The arrays are read-only views of the buffers made in Rust (no copy),
    which live as long as an array on them does. A malformed ``where``
    raises ``ValueError``; invalid input ``PgcError``. ``max_string`` and
    ``max_rav_depth``: the reading limits, as for ``read``."""
    import numpy as np

    limits = {"max_string": max_string, "max_rav_depth": max_rav_depth}
    raw = _pgc.training_arrays(to_pgc(source, threads=threads, **limits), threads, where, **limits)
    return {name: np.asarray(column) for name, column in raw.items()}
