"""Games as Python objects: ``pgc.open`` and ``pgc.read``."""

from __future__ import annotations

import io
import os
import sys
from typing import IO, Any, Iterator, Union

from pgc import _pgc

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[bytes]]

#: What ``read`` can read of each game (``columns=``).
FIELDS = ("tags", "moves", "clocks", "evals", "pgc")


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _outside_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside this package, seen from
    the function that calls this one (1), so that a warning raised there
    names the user's line, whichever reader it went through."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and _in_package(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    return level


def _in_package(filename: str) -> bool:
    return os.path.dirname(os.path.abspath(filename)) == _PACKAGE


def _raw(source: Source) -> bytes:
    """The bytes of a path, a binary file object or bytes."""
    if isinstance(source, bytes):
        return source
    if isinstance(source, (bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, (str, os.PathLike)):
        with io.open(source, "rb") as f:
            return f.read()
    read = getattr(source, "read", None)
    if read is None:
        raise TypeError(
            f"pgc reads a path, a binary file object or bytes, not {type(source).__name__}"
        )
    data = read()
    if isinstance(data, str):
        raise TypeError("pgc reads bytes: open the file in binary mode ('rb')")
    return bytes(data)


def _column_list(columns: Any) -> list[str] | None:
    """``columns=`` as a list (None: the default), refusing a lone name,
    whose letters would otherwise be taken for names."""
    if columns is None:
        return None
    if isinstance(columns, (str, bytes)):
        raise TypeError(f"columns={columns!r}: expected a list of names, such as [{columns!r}]")
    return list(columns)


def to_pgc(
    source: Source,
    strict: bool = False,
    threads: int = 0,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> bytes:
    """The PGC of a path, a binary file object or bytes holding PGC or PGN,
    plain or compressed with zstd, gzip or bzip2 (recognised by their
    magic bytes, whatever the name): PGN is encoded (as ``encode``, on
    ``threads`` threads, with the limits ``max_string`` and
    ``max_rav_depth``; games that cannot be converted raise a
    ``RejectedGamesWarning``), PGC is returned as it is."""
    return _pgc.to_pgc(
        _raw(source),
        strict,
        threads,
        _outside_stacklevel(),
        max_string=max_string,
        max_rav_depth=max_rav_depth,
    )


def count_games(
    source: Source, *, max_string: int | None = None, max_rav_depth: int | None = None
) -> int:
    """The number of games, every game walked and its moves checked with
    the limits ``max_string`` and ``max_rav_depth``: raises ``PgcError``
    (positioned) at the first invalid one."""
    limits = {"max_string": max_string, "max_rav_depth": max_rav_depth}
    return _pgc.count_games(to_pgc(source, **limits), **limits)


class Game:
    """One game, its values made when first asked for: ``tags`` (a dict, in
    input order; values as text, bytes that are not UTF-8 replaced),
    ``moves`` (the main
    line in UCI, or python-chess ``chess.Move`` objects when read with
    ``moves="python-chess"``), ``clocks`` (each main-line ply's ``[%clk]``
    in seconds, None where it has none), ``evals`` (each ply's
    ``[%eval]`` in centipawns, None where none or a mate) and ``mates``
    (``#3`` is 3, ``#-2`` is -2), ``result``, ``index`` (0-based game
    number), ``offset`` (its first byte in the PGC) and ``pgc`` (its
    records). ``pgn`` and ``to_python_chess`` decode it with the limits
    (``max_string``, ``max_rav_depth``) it was read with."""

    __slots__ = ("_r", "_as", "_tags", "_limits")

    def __init__(
        self, record: Any, moves: str = "uci", limits: dict[str, int | None] | None = None
    ) -> None:
        self._r = record
        self._as = moves
        self._tags = None
        self._limits = limits or {}

    @property
    def index(self) -> int:
        """0-based game number in the file."""
        return self._r.index

    @property
    def offset(self) -> int:
        """Byte offset of the game's first record in the PGC."""
        return self._r.offset

    @property
    def tags(self) -> dict[str, str]:
        """The tag pairs, in input order."""
        if self._tags is None:
            self._tags = self._r.tags
        return self._tags

    @property
    def result(self) -> str:
        """The result: the game's termination marker, else its Result tag."""
        return self._r.result

    @property
    def uci(self) -> list[str]:
        """The main line in UCI (``0000`` for a null move)."""
        return self._r.uci.split()

    @property
    def moves(self) -> list[Any]:
        """The main line: UCI strings, or ``chess.Move`` objects."""
        if self._as == "python-chess":
            import chess

            return [chess.Move.from_uci(m) for m in self._r.uci.split()]
        return self._r.uci.split()

    @property
    def clocks(self) -> list[float | None]:
        """Each main-line ply's ``[%clk]`` in seconds (None: none)."""
        return [None if c is None else c / 1000 for c in self._r.clocks]

    @property
    def evals(self) -> list[int | None]:
        """Each main-line ply's ``[%eval]`` in centipawns (None: none, or a
        mate)."""
        return self._r.evals

    @property
    def mates(self) -> list[int | None]:
        """Each main-line ply's mate ``[%eval]``: ``#3`` is 3, ``#-2`` is -2
        (None: none, or centipawns)."""
        return self._r.mates

    @property
    def pgc(self) -> bytes:
        """The game's PGC records (with any records between the game before
        it and this one)."""
        return self._r.pgc

    def __len__(self) -> int:
        """Plies of the main line."""
        return self._r.plies

    def __repr__(self) -> str:
        white = self.tags.get("White", "?")
        black = self.tags.get("Black", "?")
        return f"<pgc.Game {self.index}: {white} - {black} {self.result}, {len(self)} plies>"

    def pgn(self, export: bool = False) -> str:
        """The game's PGN text, byte for byte as encoded (``export``: the
        export format)."""
        text = self._r.text(False, export, **self._limits)
        return text.decode("utf-8", errors="replace")

    def to_python_chess(self) -> Any:
        """The game as a ``chess.pgn.Game``: tags, main line, variations,
        comments, NAGs and clocks as python-chess reads the game's PGN in
        the export format (whatever the layout of the text it came from,
        which python-chess may not read: tags and moves on one line).

        The text before the game that ``pgc`` holds (a rejected game kept as
        read, text before the first game) is left out."""
        import chess.pgn

        text = self._r.text(True, True, **self._limits)
        text = text.decode("utf-8", errors="replace")
        game = chess.pgn.read_game(io.StringIO(text, newline=None))
        if game is None:
            raise ValueError(f"game {self.index + 1}: python-chess read no game from its PGN")
        return game


def from_python_chess(
    game: Any,
    strict: bool = False,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> bytes:
    """The PGC of a ``chess.pgn.Game``: the game as python-chess exports it
    (tags, moves, variations, comments, NAGs), encoded (as ``encode``, with
    the limits ``max_string`` and ``max_rav_depth``)."""
    import chess.pgn

    exporter = chess.pgn.StringExporter(headers=True, variations=True, comments=True)
    text = game.accept(exporter)
    return _pgc.encode(
        (text + "\n\n").encode("utf-8"),
        strict,
        max_string=max_string,
        max_rav_depth=max_rav_depth,
    )


def read(
    source: Source,
    columns: list[str] | None = None,
    moves: str = "uci",
    threads: int = 0,
    where: str | None = None,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> Iterator[Game]:
    """The games of a PGC or PGN file (a path, a binary file object or
    bytes; plain or compressed with zstd, gzip or bzip2), in file order.

    ``max_string`` (longest string or extension payload, in bytes; default
    16 MiB) and ``max_rav_depth`` (deepest nesting of variations; default
    256): the reading limits, which the command line's ``--max-string`` and
    ``--max-rav-depth`` raise; None for the default. Input over a limit
    raises ``PgcError`` naming its keyword; 0, a negative value or one
    over 2**32 - 1 raises ``ValueError``.

    ``where``: only the games an expression of the command line's filter
    language chooses (``pgc moves --where``): ``"WhiteElo>=2400 and
    Plies>=40"``, ``"Elo>=2000 and (Speed=blitz or Speed=rapid)"``,
    ``"Event~Titled"`` (see ``pgc_core::filter``). A malformed expression
    raises ``ValueError`` naming the column.

    ``columns``: which of ``tags``, ``moves``, ``clocks``, ``evals`` and
    ``pgc`` to read (default all; ``clocks`` and ``evals`` go together, and
    a game always has its tags, result, ``pgc`` and length): reading fewer
    is faster. Without ``moves``, ``clocks`` and ``evals`` no move is
    decoded (the plies are counted), so an ordinal that names no legal
    move goes unnoticed (``verify`` finds it). ``moves``: ``"uci"`` or
    ``"python-chess"``. Games are read in chunks on ``threads`` threads (0:
    one per core) with the GIL released.

    From PGN, games that cannot be converted are not read; a
    ``RejectedGamesWarning`` names them. Raises ``PgcError`` at the first
    invalid game of PGC. Games are read a chunk
    (about 1 MiB of PGC per thread) at a time: the games of the chunks
    before the invalid one have been yielded, those of its own chunk not.

    The arguments are checked when ``read`` is called; the source is read
    as the games are iterated."""
    if moves not in ("uci", "python-chess"):
        raise ValueError(f"moves={moves!r}: expected 'uci' or 'python-chess'")
    columns = _column_list(columns)
    wanted = set(FIELDS if columns is None else columns)
    unknown = wanted - set(FIELDS)
    if unknown:
        raise ValueError(f"no field {sorted(unknown)}; the fields are {', '.join(FIELDS)}")
    typed = "clocks" in wanted or "evals" in wanted
    limits = {"max_string": max_string, "max_rav_depth": max_rav_depth}
    _pgc.check_options(where, **limits)
    return _read(source, "moves" in wanted, typed, moves, threads, where, limits)


def _read(
    source: Source,
    with_moves: bool,
    typed: bool,
    moves: str,
    threads: int,
    where: str | None,
    limits: dict[str, int | None],
) -> Iterator[Game]:
    """The games ``read`` yields, its arguments checked."""
    reader = _pgc.GameReader(
        to_pgc(source, threads=threads, **limits),
        with_moves,
        typed,
        threads,
        where,
        **limits,
    )
    while (chunk := reader.next_chunk()) is not None:
        for item in chunk:
            yield Game(item, moves, limits)


def games(
    data: bytes,
    threads: int = 0,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> list[dict[str, Any]]:
    """The games of PGC bytes as dicts: ``tags``, ``uci`` (list),
    ``result`` and ``clocks`` (each main-line ply's ``[%clk]`` in
    milliseconds, None where it has none), read with the limits
    ``max_string`` and ``max_rav_depth``. ``read`` gives ``Game`` objects
    instead."""
    reader = _pgc.GameReader(
        data, True, True, threads, max_string=max_string, max_rav_depth=max_rav_depth
    )
    out = []
    while (chunk := reader.next_chunk()) is not None:
        for r in chunk:
            out.append(
                {"tags": r.tags, "uci": r.uci.split(), "result": r.result, "clocks": r.clocks}
            )
    return out


def open(  # noqa: A001
    source: Source,
    moves: str = "uci",
    threads: int = 0,
    where: str | None = None,
    *,
    max_string: int | None = None,
    max_rav_depth: int | None = None,
) -> Iterator[Game]:
    """The games of a PGC or PGN file, with everything read: ``read``
    with the default columns (and the same limits ``max_string`` and
    ``max_rav_depth``)."""
    return read(
        source,
        moves=moves,
        threads=threads,
        where=where,
        max_string=max_string,
        max_rav_depth=max_rav_depth,
    )
