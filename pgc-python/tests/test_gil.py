"""Conversions release the GIL: another Python thread keeps running while
one runs (the longest pause it sees is a fraction of the call's time)."""

import threading
import time

import pgc
import pytest

TWIC = "hauva69__pgn4web/twic944.pgn.zst"


def longest_pause(call) -> tuple[float, float]:
    """(the call's time, the longest pause of a Python loop meanwhile)."""
    done = threading.Event()
    spent = []

    def work():
        t = time.perf_counter()
        call()
        spent.append(time.perf_counter() - t)
        done.set()

    th = threading.Thread(target=work)
    last = time.perf_counter()
    pause = 0.0
    th.start()
    while not done.is_set():
        now = time.perf_counter()
        pause = max(pause, now - last)
        last = now
    th.join()
    return spent[0], pause


@pytest.mark.parametrize("name", ["encode", "decode", "read_arrow", "training_arrays"])
def test_conversions_release_the_gil(corpus_dir, name):
    text = pgc._pgc.decompress((corpus_dir / TWIC).read_bytes()) * 2
    data = pgc.encode(text)
    calls = {
        "encode": lambda: pgc.encode(text, threads=1),
        "decode": lambda: pgc.decode(data),
        "read_arrow": lambda: pgc.read_arrow(data, uci=True, threads=1).read_all(),
        "training_arrays": lambda: pgc.training_arrays(data, threads=1),
    }
    spent, pause = longest_pause(calls[name])
    assert spent > 0.02, "too short to tell"
    assert pause < spent / 2, (spent, pause)
