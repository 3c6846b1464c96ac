"""Shared fixtures of the package's tests: the corpus, the command line."""

import os
import pathlib
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"


def corpus() -> pathlib.Path | None:
    """The shared corpus, or None (a failure when PGC_REQUIRE_CORPUS is set)."""
    d = pathlib.Path(os.environ.get("PGC_CORPUS", ROOT.parent / "shared" / "corpus"))
    if (d / "MANIFEST.md").is_file():
        return d
    if os.environ.get("PGC_REQUIRE_CORPUS"):
        raise AssertionError(f"corpus not found at {d} (set PGC_CORPUS)")
    return None


def cli() -> str | None:
    """The `pgc` command: $PGC_BIN, else the workspace's build, else PATH."""
    if os.environ.get("PGC_BIN"):
        return os.environ["PGC_BIN"]
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    for profile in ("release", "debug"):
        p = target / profile / "pgc"
        if p.is_file():
            return str(p)
    return shutil.which("pgc")


@pytest.fixture
def corpus_dir() -> pathlib.Path:
    d = corpus()
    if d is None:
        pytest.skip("corpus not found (set PGC_CORPUS)")
    return d


@pytest.fixture
def pgc_bin() -> str:
    b = cli()
    if b is None:
        if os.environ.get("PGC_REQUIRE_CLI"):
            raise AssertionError("the pgc command is not built (cargo build -p pgc-cli)")
        pytest.skip("the pgc command is not built (cargo build -p pgc-cli)")
    return b
