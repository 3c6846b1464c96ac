"""The `pgc` Python package against python-chess and the shared corpus.

Run by scripts/test after scripts/python-package has built and installed
the wheel: `python3 -m pytest pgc-python/tests`.
"""

import io
import math
import os
import pathlib
import unittest

import chess.pgn
import pgc

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"


def corpus_dir():
    """The shared corpus, or None (a failure when PGC_REQUIRE_CORPUS is set)."""
    d = pathlib.Path(os.environ.get("PGC_CORPUS", ROOT.parent / "shared" / "corpus"))
    if (d / "MANIFEST.md").is_file():
        return d
    if os.environ.get("PGC_REQUIRE_CORPUS"):
        raise AssertionError(f"corpus not found at {d} (set PGC_CORPUS)")
    return None


def python_chess_games(pgn: bytes):
    """(headers, UCI moves, clocks in ms or None) of every game, by python-chess."""
    text = io.StringIO(pgn.decode("utf-8", errors="replace"))
    out = []
    while (game := chess.pgn.read_game(text)) is not None:
        board = game.board()
        uci, clocks = [], []
        for node in game.mainline():
            uci.append(board.uci(node.move))
            board.push(node.move)
            clock = node.clock()
            clocks.append(None if clock is None else round(clock * 1000))
        out.append((dict(game.headers), uci, clocks))
    return out


class RoundTrip(unittest.TestCase):
    def test_samples_come_back_byte_for_byte(self):
        for path in sorted(SAMPLES.glob("*.pgn")):
            with self.subTest(path.name):
                text = path.read_bytes()
                self.assertEqual(pgc.decode(pgc.encode(text)), text)

    def test_plain_corpus_files_come_back_byte_for_byte(self):
        d = corpus_dir()
        if d is None:
            self.skipTest("corpus not found (set PGC_CORPUS)")
        files = [p for p in sorted(d.rglob("*.pgn")) if p.is_file()]
        self.assertGreater(len(files), 50)
        for path in files:
            with self.subTest(str(path.relative_to(d))):
                text = path.read_bytes()
                self.assertEqual(pgc.decode(pgc.encode(text)), text)

    def test_encode_reads_compressed_pgn_and_refuses_pgc(self):
        import gzip

        text = (SAMPLES / "opera.pgn").read_bytes()
        data = pgc.encode(text)
        self.assertEqual(pgc.encode(gzip.compress(text)), data)
        with self.assertRaisesRegex(pgc.PgcError, "PGC, not PGN"):
            pgc.encode(data)

    def test_bytearray_is_taken_as_bytes(self):
        text = (SAMPLES / "opera.pgn").read_bytes()
        data = pgc.encode(bytearray(text))
        self.assertEqual(data, pgc.encode(text))
        self.assertEqual(pgc.decode(bytearray(data)), text)
        self.assertEqual(pgc.verify(bytearray(data)), [])

    def test_any_buffer_is_taken_as_bytes_and_other_objects_are_type_errors(self):
        import array

        text = (SAMPLES / "opera.pgn").read_bytes()
        data = pgc.encode(text)
        self.assertEqual(pgc.encode(memoryview(text)), data)
        self.assertEqual(pgc.encode(memoryview(b"xx" + text)[2:]), data)
        self.assertEqual(pgc.decode(memoryview(data)), text)
        self.assertEqual(pgc.decode(array.array("B", data)), text)
        self.assertEqual(pgc.verify(memoryview(data)), [])
        for bad in (5, None, text.decode()):
            with self.subTest(type(bad).__name__), self.assertRaises(TypeError):
                pgc.decode(bad)
        with self.assertRaisesRegex(TypeError, "text.encode"):
            pgc.encode(text.decode())
        with self.assertRaisesRegex(TypeError, "not NoneType"):
            list(pgc.read(None))

    def test_a_game_larger_than_the_command_lines_limit_is_converted(self):
        # The command line bounds a game at 64 MiB (--max-game-bytes) to
        # bound the memory of a stream; bytes given to Python are in memory
        # whole, so any game they hold converts.
        text = b'[Event "a"]\n\n1. e4 {' + b"x" * (65 << 20) + b"} e5 *\n\n"
        text += (SAMPLES / "opera.pgn").read_bytes()
        for threads in (1, 2):
            with self.subTest(threads=threads):
                data = pgc.encode(text, threads=threads)
                self.assertEqual(pgc.decode(data), text)

    def test_a_lone_column_name_is_a_type_error(self):
        text = (SAMPLES / "opera.pgn").read_bytes()
        with self.assertRaisesRegex(TypeError, "list of names"):
            list(pgc.read(text, columns="moves"))
        with self.assertRaisesRegex(TypeError, "list of names"):
            pgc.read_arrow(text, columns="White")
        (game,) = pgc.read(text, columns=("moves",))
        self.assertTrue(game.moves)

    def test_strict_keeps_1994_records_only(self):
        text = (SAMPLES / "opera.pgn").read_bytes()
        strict = pgc.decode(pgc.encode(text, strict=True))
        self.assertNotIn(b"{", strict)
        self.assertEqual(pgc.games(pgc.encode(text, strict=True))[0]["uci"][:2], ["e2e4", "e7e5"])


class RejectedGames(unittest.TestCase):
    """Games that cannot be converted are reported, never dropped quietly."""

    def illegal_game_by_python_chess(self, text: bytes):
        """(0-based game, ply) of the first game python-chess finds an error
        in, by its own reading."""
        stream = io.StringIO(text.decode("utf-8"))
        index = 0
        while (game := chess.pgn.read_game(stream)) is not None:
            if game.errors:
                return index, len(list(game.mainline()))
            index += 1
        return None

    def test_encode_names_the_rejected_game(self):
        text = (SAMPLES / "mixed.pgn").read_bytes()
        game, played = self.illegal_game_by_python_chess(text)
        with self.assertWarns(pgc.RejectedGamesWarning) as w:
            data = pgc.encode(text, threads=1)
        message = str(w.warning)
        # python-chess's main line holds the moves before the one that
        # failed; pgc numbers the failing move's ply from 1 and places its
        # token in the text.
        self.assertIn("1 PGN game(s) could not be converted, kept as read", message)
        self.assertIn(f"game {game + 1} (line ", message)
        token = text.index(b"Ke3")
        line = text[:token].count(b"\n") + 1
        self.assertIn(f"ply {played + 1} (line {line}, byte {token}): ", message)
        # Kept in the PGC, byte for byte; not read as a game.
        self.assertEqual(pgc.decode(data), text)
        with self.assertWarns(pgc.RejectedGamesWarning):
            games = list(pgc.read(text))
        self.assertEqual(len(games), game)
        with self.assertWarns(pgc.RejectedGamesWarning) as w:
            pgc.encode(text, strict=True)
        self.assertIn("left out (strict)", str(w.warning))

    def test_readers_warn_at_the_callers_line(self):
        text = (SAMPLES / "mixed.pgn").read_bytes()
        for reader in (
            lambda: list(pgc.read(text)),
            lambda: pgc.read_arrow(text).read_all(),
            lambda: pgc.to_pgc(text),
            lambda: pgc.count_games(text),
        ):
            with self.assertWarns(pgc.RejectedGamesWarning) as w:
                reader()
            self.assertEqual(w.filename, __file__)

    def test_threads_name_the_same_games(self):
        # Over 1 MiB, so that two threads cut it into batches.
        one = (SAMPLES / "mixed.pgn").read_bytes()
        copies = 1 + (1 << 20) // len(one)
        text = one * copies
        messages = []
        for threads in (1, 2):
            with self.assertWarns(pgc.RejectedGamesWarning) as w:
                data = pgc.encode(text, threads=threads)
            messages.append(str(w.warning))
            self.assertEqual(pgc.decode(data), text)
        self.assertEqual(messages[0], messages[1])
        self.assertTrue(messages[0].startswith(f"{copies} PGN game(s)"), messages[0][:80])
        # The first ten, numbered through the file, then an ellipsis.
        game, _ = self.illegal_game_by_python_chess(one)
        per_copy = len(python_chess_games(one))
        for k in range(10):
            self.assertIn(f"game {game + 1 + k * per_copy} (line", messages[0])
        self.assertTrue(messages[0].endswith("; …"))

    def test_huge_thread_counts_are_capped(self):
        # 2**63 threads once gave a window of 0 batches, which never ended:
        # read on a daemon thread, so that a hang fails the test.
        import threading

        data = pgc.to_pgc(str(SAMPLES / "opera.pgn"))
        want = pgc.read_arrow(data, threads=1).read_all()
        for threads in (2**63, 2**64 - 1, 10**6):
            got = []
            reader = threading.Thread(
                target=lambda t=threads, out=got: out.append(
                    pgc.read_arrow(data, threads=t).read_all()
                ),
                daemon=True,
            )
            reader.start()
            reader.join(timeout=60)
            self.assertFalse(reader.is_alive(), f"threads={threads}: read_arrow did not return")
            self.assertTrue(got[0].equals(want))
        self.assertEqual(
            pgc.training_arrays(data, threads=2**63)["board"].tolist(),
            pgc.training_arrays(data, threads=1)["board"].tolist(),
        )

    def test_a_table_of_no_game_is_a_pgc_error(self):
        with self.assertRaisesRegex(pgc.PgcError, "no game"):
            pgc.read_arrow(b"\n\n").read_all()
        self.assertEqual(list(pgc.read(b"\n\n")), [])

    def test_pgn_without_rejects_warns_nothing(self):
        import warnings

        text = (SAMPLES / "opera.pgn").read_bytes()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            pgc.encode(text)
            list(pgc.read(text))


class Games(unittest.TestCase):
    def check_against_python_chess(self, text: bytes):
        ours = pgc.games(pgc.encode(text))
        theirs = [g for g in python_chess_games(text) if g[1]]
        ours = [g for g in ours if g["uci"]]
        self.assertEqual(len(ours), len(theirs))
        for i, (g, (headers, uci, clocks)) in enumerate(zip(ours, theirs, strict=True)):
            with self.subTest(game=i + 1):
                self.assertEqual(g["uci"], uci)
                self.assertEqual(g["clocks"], clocks)
                for name in ("White", "Black", "Result"):
                    if name in g["tags"]:
                        self.assertEqual(g["tags"][name], headers.get(name))

    def test_samples_agree_with_python_chess(self):
        self.check_against_python_chess((SAMPLES / "opera.pgn").read_bytes())

    def test_corpus_files_with_clocks_agree_with_python_chess(self):
        d = corpus_dir()
        if d is None:
            self.skipTest("corpus not found (set PGC_CORPUS)")
        for name in (
            "notnil__chess/fixtures/pgns/0004.pgn",
            "notnil__chess/fixtures/pgns/0005.pgn",
            "niklasf__python-chess/data/pgn/kasparov-deep-blue-1997.pgn",
        ):
            with self.subTest(name):
                self.check_against_python_chess((d / name).read_bytes())

    def test_commands_in_comments_with_words_agree_with_python_chess(self):
        # Comments that also hold words stay text in the PGC; their clocks
        # and evaluations are read all the same, as python-chess reads them.
        text = (
            b'[Event "t"]\n\n1. e4 { Good move [%clk 0:03:00] } 1... e5 '
            b"{ [%eval -0.3] [%clk 0:02:59.5] the usual reply } 2. Nf3 "
            b"{ [%clk 0:02:58] } 2... Nc6 { book, [%eval #-4] } *\n\n"
        )
        self.check_against_python_chess(text)
        (game,) = pgc.read(text)
        want = chess.pgn.read_game(io.StringIO(text.decode()))
        evals = [node.eval() for node in want.mainline()]
        self.assertEqual(game.evals, [None, -30, None, None])
        self.assertEqual(evals[1].white().score(), -30)
        self.assertEqual(game.mates, [None, None, None, -4])
        self.assertEqual(evals[3].white().mate(), -4)
        table = pgc.read_arrow(text).read_all()
        self.assertEqual(table["clocks"][0].as_py(), [18000, 17950, 17800, None])
        arrays = pgc.training_arrays(text)
        clocks = [None if math.isnan(c) else c for c in arrays["clock"].tolist()]
        self.assertEqual(clocks, [180.0, 179.5, 178.0, None])
        self.assertEqual(arrays["eval"].tolist()[1], -30.0)
        self.assertEqual(arrays["mate"].tolist(), [0, 0, 0, -4])

    def test_command_spellings_python_chess_reads_agree_with_it(self):
        # Spellings pgc does not store typed (they would not be written back
        # the same) but python-chess reads: their values come out all the
        # same, in every reader, and the file comes back byte for byte.
        spellings = [
            ("[%clk 0:0:5]", "[%eval 1.2,20]"),
            ("[%clk 0:90:00]", "[%eval .5]"),
            ("[%clk 100:00:00]", "[%eval 12.]"),
            ("[%clk 0:03:00.25678]", "[%eval 007]"),
            ("[%clk 1:00:00.]", "[%eval #+3,12]"),
            ("[%clk 0:15.16]", "[%eval -.05]"),
            ("[%clk 0:01:00] [%clk 0:02:00]", "[%eval 0.3] [%eval 0.4]"),
        ]
        moves = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 Ke2 Be7 Ke1 O-O Nc3 b5".split()
        body = []
        for i, san in enumerate(moves):
            clk, ev = spellings[i // 2]
            number = f"{i // 2 + 1}. " if i % 2 == 0 else ""
            body.append(f"{number}{san} {{{clk if i % 2 == 0 else ev}}}")
        text = ('[Event "spellings"]\n\n' + " ".join(body) + " *\n\n").encode()
        self.assertEqual(pgc.decode(pgc.encode(text)), text)

        want = chess.pgn.read_game(io.StringIO(text.decode()))
        nodes = list(want.mainline())
        clocks = [None if n.clock() is None else round(n.clock() * 1000) for n in nodes]
        scores = [n.eval() for n in nodes]
        cps = [None if s is None or s.is_mate() else s.white().score() for s in scores]
        mates = [None if s is None or not s.is_mate() else s.white().mate() for s in scores]
        self.assertIsNone(clocks[10], "0:15.16 is no clock to python-chess")
        self.assertEqual(cps[1], 120)

        (game,) = pgc.read(text)
        self.assertEqual([None if c is None else round(c * 1000) for c in game.clocks], clocks)
        self.assertEqual(game.evals, cps)
        self.assertEqual(game.mates, mates)
        table = pgc.read_arrow(text).read_all()
        centis = [None if c is None else c // 10 for c in clocks]
        self.assertEqual(table["clocks"][0].as_py(), centis)
        arrays = pgc.training_arrays(text)
        seconds = [None if math.isnan(c) else round(c * 1000) for c in arrays["clock"].tolist()]
        self.assertEqual(seconds, clocks)
        evals = [None if math.isnan(e) else int(e) for e in arrays["eval"].tolist()]
        self.assertEqual(evals, cps)


class Verify(unittest.TestCase):
    def test_valid_data_has_no_problem(self):
        data = pgc.encode((SAMPLES / "opera.pgn").read_bytes())
        self.assertEqual(pgc.verify(data), [])

    def test_damage_is_positioned(self):
        data = bytearray(pgc.encode((SAMPLES / "opera.pgn").read_bytes()))
        data[1] = 0xFF  # an unknown marker right after 0x05
        problems = pgc.verify(bytes(data))
        self.assertTrue(problems)
        self.assertEqual(problems[0]["offset"], 1)
        self.assertEqual(problems[0]["game"], 0)
        with self.assertRaisesRegex(ValueError, "byte 1"):
            pgc.decode(bytes(data))


if __name__ == "__main__":
    unittest.main()
