#!/usr/bin/env python3
"""Timing harness of benches/compare.sh: runs every tool on the same input,
alternating, for several rounds, and prints one Markdown table per input.

Usage: run_bench.py  (configured by environment variables set by compare.sh)

  BENCH_INPUTS   inputs.json written by make_inputs.py
  BENCH_NAMES    space-separated input names to run (e.g. "clean-1m commented-1m")
  BENCH_WORK     scratch directory for outputs and databases
  BENCH_RESULTS  directory for the saved Markdown report
  BENCH_TOOLS    directory of the helper scripts (this directory)
  PGC, PGC_PEER, PGC_PEER_UCI
                 paths of the pgc, pgc-peer and pgc-peer-uci binaries (may
                 not exist)
  PGC_BASELINE   path of another (older) pgc binary, or empty; when set, every
                 pgc row also runs with it, as a row of its own labelled
                 "(baseline)" right after the row it repeats (key: the row's
                 key + "-baseline"), so a before/after comparison is one run
  PGC_PEER_BASELINE
                 path of another pgc-peer binary, or empty; when set, a row
                 `pgc-peer validate` (baseline) (key peer-validate-baseline)
  ROUNDS         rounds per input (default 5)
  SKIP           comma-separated row keys to leave out (see TOOLS below)
  TIMEOUT        seconds before a single run is killed (default 900)
  BUDGET         a tool is not run again once its runs took this many seconds
                 in total (default 60), so slow peers do not dominate the time;
                 the row then says how many runs its median is over
  BENCH_COMMAND  the command line to print in the report

Each round runs every tool once, in an order rotated by one tool per round, so
that no tool always runs first or always follows the same neighbour. A tool
that fails (non-accepted exit status, timeout, missing program) is not run
again and gets a row saying why. Wall time is measured here around the child
(perf_counter); peak RSS comes from `/usr/bin/time -f %M` (KiB, the largest
resident set of the child). Medians are reported; "min-max" shows the spread.

A baseline row reads the same inputs (the decode and moves rows the same
reference .pgc, written by PGC) and writes its own output, which the report
compares with its current row's ("same bytes as ..."); its notes give the
current row's median over the baseline's. On odd rounds each baseline row
runs just before its current row instead of just after, so neither of the two
always follows the other.
"""

import datetime
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_inputs import split_games  # noqa: E402

ENV = os.environ
ROUNDS = int(ENV.get("ROUNDS", "5"))
TIMEOUT = float(ENV.get("TIMEOUT", "900"))
BUDGET = float(ENV.get("BUDGET", "60"))
SKIP = {s.strip() for s in ENV.get("SKIP", "").split(",") if s.strip()}
TOOLS_DIR = ENV["BENCH_TOOLS"]
PGC = ENV.get("PGC", "")
PEER = ENV.get("PGC_PEER", "")
PEER_UCI = ENV.get("PGC_PEER_UCI", "")
PGC_BASELINE = ENV.get("PGC_BASELINE", "")
PEER_BASELINE = ENV.get("PGC_PEER_BASELINE", "")
TIME = "/usr/bin/time"


def which(program):
    """The path of program if it can be run, else None."""
    if os.sep in program:
        return program if os.access(program, os.X_OK) else None
    return shutil.which(program)


def tools(inp, work):
    """The rows to time: key, label, argv, output file, accepted exit codes,
    required programs, and an optional untimed preparation step."""
    pgc_out = os.path.join(work, "pgc.pgc")
    ref_pgc = os.path.join(work, "ref.pgc")
    scid_db = os.path.join(work, "scid-db")
    scid_ref = os.path.join(work, "scid-ref")
    py = sys.executable
    rows = [
        dict(
            key="cat",
            label="`cat` (I/O ceiling: copy the PGN)",
            argv=["sh", "-c", 'exec cat "$0" > "$1"', inp, os.path.join(work, "cat.pgn")],
            out=os.path.join(work, "cat.pgn"),
            needs=["cat"],
        ),
        dict(
            key="pgc-encode",
            label="`pgc encode -j 1`",
            argv=[PGC, "encode", inp, "-o", pgc_out, "-j", "1", "--force", "--quiet"],
            out=pgc_out,
            needs=[PGC],
        ),
        dict(
            key="pgc-decode",
            label="`pgc decode -j 1`",
            argv=[
                PGC,
                "decode",
                ref_pgc,
                "-o",
                os.path.join(work, "pgc-dec.pgn"),
                "-j",
                "1",
                "--force",
                "--quiet",
            ],
            out=os.path.join(work, "pgc-dec.pgn"),
            needs=[PGC, ref_pgc],
            lossless=True,
        ),
        dict(
            key="pgc-encode-j2",
            label="`pgc encode -j 2`",
            argv=[
                PGC,
                "encode",
                inp,
                "-o",
                os.path.join(work, "pgc-j2.pgc"),
                "-j",
                "2",
                "--force",
                "--quiet",
            ],
            out=os.path.join(work, "pgc-j2.pgc"),
            needs=[PGC],
            same_as=ref_pgc,
        ),
        dict(
            key="pgc-decode-j2",
            label="`pgc decode -j 2`",
            argv=[
                PGC,
                "decode",
                ref_pgc,
                "-o",
                os.path.join(work, "pgc-dec-j2.pgn"),
                "-j",
                "2",
                "--force",
                "--quiet",
            ],
            out=os.path.join(work, "pgc-dec-j2.pgn"),
            needs=[PGC, ref_pgc],
            lossless=True,
        ),
        dict(
            key="pgc-moves",
            label="`pgc moves -j 1` (PGC → UCI moves)",
            argv=[
                PGC,
                "moves",
                ref_pgc,
                "-o",
                os.path.join(work, "pgc-moves.txt"),
                "-j",
                "1",
                "--force",
                "--quiet",
            ],
            out=os.path.join(work, "pgc-moves.txt"),
            needs=[PGC, ref_pgc],
        ),
        dict(
            key="pgc-moves-j2",
            label="`pgc moves -j 2`",
            argv=[
                PGC,
                "moves",
                ref_pgc,
                "-o",
                os.path.join(work, "pgc-moves-j2.txt"),
                "-j",
                "2",
                "--force",
                "--quiet",
            ],
            out=os.path.join(work, "pgc-moves-j2.txt"),
            needs=[PGC, ref_pgc],
            same_as=os.path.join(work, "pgc-moves.txt"),
        ),
        dict(
            key="pgn-extract",
            label="pgn-extract (validate + re-export)",
            argv=["pgn-extract", "-s", "-o", os.path.join(work, "pgn-extract.pgn"), inp],
            out=os.path.join(work, "pgn-extract.pgn"),
            needs=["pgn-extract"],
        ),
        dict(
            key="scid-import",
            label="SCID import PGN → si4",
            argv=["tkscid", os.path.join(TOOLS_DIR, "scid_import.tcl"), scid_db, inp],
            out=[scid_db + ".si4", scid_db + ".sg4", scid_db + ".sn4"],
            needs=["tkscid"],
        ),
        dict(
            key="scid-export",
            label="SCID export si4 → PGN",
            argv=[
                "tkscid",
                os.path.join(TOOLS_DIR, "scid_export.tcl"),
                scid_ref,
                os.path.join(work, "scid.pgn"),
            ],
            out=os.path.join(work, "scid.pgn"),
            needs=["tkscid", scid_ref + ".si4"],
        ),
        dict(
            key="python-chess",
            label="python-chess read + export",
            argv=[
                py,
                os.path.join(TOOLS_DIR, "pychess_roundtrip.py"),
                inp,
                os.path.join(work, "python-chess.pgn"),
            ],
            out=os.path.join(work, "python-chess.pgn"),
            needs=[py],
        ),
        dict(
            key="peer-validate",
            label="`pgc-peer validate` (pgn-reader + shakmaty)",
            argv=[PEER, "validate", inp],
            needs=[PEER],
            ok=(0, 1),
        ),
        dict(
            key="peer-uci",
            label="`pgc-peer-uci` (pgn-reader + shakmaty → UCI moves)",
            argv=[PEER_UCI, inp, os.path.join(work, "peer-uci.txt")],
            out=os.path.join(work, "peer-uci.txt"),
            needs=[PEER_UCI],
            ok=(0, 1),
            same_as=os.path.join(work, "pgc-moves.txt"),
            same_as_label="`pgc moves`",
        ),
        dict(
            key="peer-naive",
            label="`pgc-peer naive-ordinals` (String SAN sort)",
            argv=[PEER, "naive-ordinals", inp],
            needs=[PEER],
            ok=(0, 1),
        ),
    ]
    rows = [r for r in rows if r["key"] not in SKIP]
    if PGC_BASELINE or PEER_BASELINE:
        rows = [b for r in rows for b in (r, baseline_row(r)) if b and b["key"] not in SKIP]
    return rows


def baseline_row(r):
    """The baseline twin of row r (the same command run with the baseline
    binary, writing its own output), or None when r has none."""
    if r["key"].startswith("pgc-") and PGC_BASELINE:
        old, new = PGC, PGC_BASELINE
    elif r["key"] == "peer-validate" and PEER_BASELINE:
        old, new = PEER, PEER_BASELINE
    else:
        return None
    out = r.get("out")
    b_out = None
    if isinstance(out, str):
        stem, ext = os.path.splitext(out)
        b_out = f"{stem}-baseline{ext}"
    argv = [new if a == old else b_out if a == out else a for a in r["argv"]]
    label = r["label"]
    if label.startswith("`") and "`" in label[1:]:
        label = label[: label.index("`", 1) + 1]
    b = dict(
        r,
        key=r["key"] + "-baseline",
        label=label + " (baseline)",
        argv=argv,
        needs=[new if n == old else n for n in r["needs"]],
        baseline_of=r["key"],
    )
    if b_out:
        b["out"] = b_out
        b["same_as"] = out
        b["same_as_label"] = label
    return b


def alternate(order, rnd):
    """On odd rounds, each baseline row swaps places with the row it repeats."""
    if rnd % 2 == 0:
        return order
    pos = {r["key"]: i for i, r in enumerate(order)}
    order = list(order)
    for i, r in enumerate(list(order)):
        j = pos.get(r.get("baseline_of"))
        if j is not None:
            order[i], order[j] = order[j], order[i]
    return order


def run_once(argv, work, key):
    """Run argv under /usr/bin/time; return (seconds, rss_kib, status, stderr_tail)."""
    rss_file = os.path.join(work, f".{key}.rss")
    err_file = os.path.join(work, f".{key}.stderr")
    out_file = os.path.join(work, f".{key}.stdout")
    full = [TIME, "-f", "%M", "-o", rss_file] + argv
    # A blocking wait() and a killer thread: Popen.wait(timeout=...) polls
    # with growing sleeps, which would round every time up to its poll steps.
    with open(out_file, "wb") as out, open(err_file, "wb") as err:
        start = time.perf_counter()
        try:
            proc = subprocess.Popen(full, stdout=out, stderr=err)
        except OSError as e:
            return time.perf_counter() - start, None, f"cannot run: {e}", ""
        timer = threading.Timer(TIMEOUT, proc.kill)
        timer.start()
        status = proc.wait()
        seconds = time.perf_counter() - start
        if not timer.is_alive():
            status = "timeout"
        timer.cancel()
    rss = None
    try:
        with open(rss_file) as f:
            lines = [w for w in f.read().split() if w.isdigit()]
            rss = int(lines[-1]) if lines else None
    except OSError:
        pass
    with open(err_file, "rb") as f:
        tail = f.read()[-300:].decode("utf-8", "replace").strip().replace("\n", " / ")
    return seconds, rss, status, tail


def out_size(out):
    """Total bytes of the output file(s), or None."""
    if out is None:
        return None
    files = out if isinstance(out, list) else [out]
    try:
        return sum(os.path.getsize(f) for f in files)
    except OSError:
        return None


def digest(path):
    """SHA-256 of a file, or None."""
    try:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()
    except OSError:
        return None


def zstd_size(path):
    """Bytes of `zstd -19` of path, or None."""
    if not path or not os.path.exists(path) or not which("zstd"):
        return None
    proc = subprocess.run(["zstd", "-19", "-q", "-c", path], stdout=subprocess.PIPE)
    return len(proc.stdout) if proc.returncode == 0 else None


def prepare(name, inp, work, info):
    """Untimed steps: reference .pgc for the decode rows, SCID base for the
    export row, and games/plies of the input from pgc-peer. Returns notes."""
    notes = {}
    if which(PEER):
        proc = subprocess.run([PEER, "validate", inp], capture_output=True, text=True)
        parts = proc.stdout.split()
        if "plies" in parts:
            info["plies"] = int(parts[parts.index("plies") + 1])
            info["reader_games"] = int(parts[parts.index("games") + 1])
            info["reader_errors"] = int(parts[parts.index("errors") + 1])
    ref = os.path.join(work, "ref.pgc")
    if os.path.exists(ref):
        os.remove(ref)
    if which(PGC):
        proc = subprocess.run(
            [PGC, "encode", inp, "-o", ref, "--force", "--quiet"],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        if proc.returncode != 0 or not os.path.exists(ref):
            tail = (proc.stderr or proc.stdout)[-300:].strip().replace("\n", " / ")
            what = "failed" if proc.returncode != 0 else "wrote no file"
            notes["pgc"] = f"`pgc encode` {what} (exit {proc.returncode})" + (
                f": {tail}" if tail else ""
            )
            if os.path.exists(ref):
                os.remove(ref)
    else:
        notes["pgc"] = "`pgc` binary not built"
    scid_ref = os.path.join(work, "scid-ref")
    for ext in ("si4", "sg4", "sn4"):
        if os.path.exists(f"{scid_ref}.{ext}"):
            os.remove(f"{scid_ref}.{ext}")
    if which("tkscid") and "scid-export" not in SKIP:
        proc = subprocess.run(
            ["tkscid", os.path.join(TOOLS_DIR, "scid_import.tcl"), scid_ref, inp],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        if proc.returncode != 0:
            tail = proc.stderr[-300:].strip().replace("\n", " / ")
            notes["scid"] = f"no SCID base to export: the import failed: {tail}"
            for ext in ("si4", "sg4", "sn4"):
                if os.path.exists(f"{scid_ref}.{ext}"):
                    os.remove(f"{scid_ref}.{ext}")
    return notes


def games_out(r, work):
    """Games in a tool's output: counted tag sections of an output PGN, or
    the count printed by the SCID import. None when not applicable."""
    if r["key"] == "scid-import":
        try:
            with open(os.path.join(work, ".scid-import.stdout")) as f:
                words = f.read().split()
            return int(words[words.index("imported") + 1])
        except (OSError, ValueError, IndexError):
            return None
    out = r.get("out")
    if isinstance(out, str) and out.endswith(".pgn") and os.path.exists(out):
        with open(out, "rb") as f:
            return len(split_games(f.read()))
    return None


def fmt_bytes(n):
    return "—" if n is None else f"{n:,}"


def bench_input(name, info):
    inp = info["path"]
    work = os.path.join(ENV["BENCH_WORK"], name)
    os.makedirs(work, exist_ok=True)
    notes = prepare(name, inp, work, info)
    rows = tools(inp, work)
    results = {r["key"]: dict(times=[], rss=[], status=None, why=None) for r in rows}
    for r in rows:
        missing = [n for n in r["needs"] if not n or not which(n) and not os.path.exists(n)]
        if missing:
            if r["key"].startswith("pgc-") and "pgc" in notes:
                results[r["key"]]["why"] = notes["pgc"]
            elif r["key"] == "scid-export" and "scid" in notes:
                results[r["key"]]["why"] = notes["scid"]
            else:
                results[r["key"]]["why"] = "not available: " + ", ".join(
                    m or "(unset)" for m in missing
                )
    for rnd in range(ROUNDS):
        order = alternate(rows[rnd % len(rows) :] + rows[: rnd % len(rows)], rnd)
        for r in order:
            res = results[r["key"]]
            if res["why"] or sum(res["times"]) >= BUDGET:
                continue
            outs = r.get("out") or []
            for f in outs if isinstance(outs, list) else [outs]:
                if os.path.exists(f):
                    os.remove(f)
            secs, rss, status, tail = run_once(r["argv"], work, r["key"])
            if status not in r.get("ok", (0,)):
                res["why"] = (
                    f"failed (exit {status}): {tail}" if tail else f"failed (exit {status})"
                )
                continue
            if r.get("out") and out_size(r["out"]) is None:
                res["why"] = f"exit {status} but no output file written" + (
                    f": {tail}" if tail else ""
                )
                continue
            res["times"].append(secs)
            if rss is not None:
                res["rss"].append(rss)
        print(f"  {name}: round {rnd + 1}/{ROUNDS} done", file=sys.stderr)

    size = info["bytes"]
    games = info.get("reader_games", info["games"])
    base = results.get("peer-validate", {}).get("times")
    base_med = statistics.median(base) if base else None
    input_digest = digest(inp)
    ref_pgc = os.path.join(work, "ref.pgc")

    lines = [
        "| tool | median s | min–max s | games/s | MB/s (PGN) | peak RSS MB | output bytes"
        " | output/PGN | × pgn-reader validate | notes |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        res = results[r["key"]]
        if res["why"]:
            lines.append(
                f"| {r['label']} | — | — | — | — | — | — | — | — | {res['why'].replace('|', '/')} |"
            )
            continue
        med = statistics.median(res["times"])
        spread = f"{min(res['times']):.3f}–{max(res['times']):.3f}"
        rss = f"{statistics.median(res['rss']) / 1024:.1f}" if res["rss"] else "—"
        osize = out_size(r.get("out"))
        ratio = f"{osize / size:.1%}" if osize is not None else "—"
        vs = f"{med / base_med:.2f}×" if base_med else "—"
        note = []
        if r.get("lossless") and r.get("out"):
            note.append(
                "byte-identical to input"
                if digest(r["out"]) == input_digest
                else "PGN export format (not byte-identical to input)"
            )
        if r.get("same_as") and r.get("out"):
            what = r.get("same_as_label", "`-j 1`")
            note.append(
                f"same bytes as {what}"
                if digest(r["out"]) == digest(r["same_as"])
                else f"differs from {what} output"
            )
        n_out = games_out(r, work)
        if n_out is not None and n_out != games:
            note.append(f"**{n_out:,} of {games:,} games out**")
        twin = results.get(r.get("baseline_of"), {}).get("times")
        if twin:
            note.append(f"current / baseline: {statistics.median(twin) / med:.2f}×")
        if len(res["times"]) < ROUNDS:
            note.append(f"{len(res['times'])} run(s), time budget {BUDGET:.0f} s")
        if r["key"] == "cat":
            note.append("reads + writes the file")
        if r["key"].startswith("peer-") and not r.get("out"):
            note.append("no output file")
        lines.append(
            f"| {r['label']} | {med:.3f} | {spread} | {games / med:,.0f} | "
            f"{size / 1e6 / med:.1f} | {rss} | {fmt_bytes(osize)} | {ratio} | {vs} | "
            f"{'; '.join(note)} |"
        )
    z_pgn = zstd_size(inp)
    z_pgc = zstd_size(ref_pgc) if os.path.exists(ref_pgc) else None
    pgc_size = out_size(ref_pgc) if os.path.exists(ref_pgc) else None
    lines.append(
        f"| size: PGN as is | — | — | — | — | — | {fmt_bytes(size)} | 100.0% | — | input |"
    )
    lines.append(
        f"| size: `zstd -19` of the PGN | — | — | — | — | — | {fmt_bytes(z_pgn)} | "
        f"{'—' if z_pgn is None else f'{z_pgn / size:.1%}'} | — | |"
    )
    lines.append(
        f"| size: PGC | — | — | — | — | — | {fmt_bytes(pgc_size)} | "
        f"{'—' if pgc_size is None else f'{pgc_size / size:.1%}'} | — | "
        f"{'' if pgc_size is not None else notes.get('pgc', '')} |"
    )
    lines.append(
        f"| size: `zstd -19` of the PGC | — | — | — | — | — | {fmt_bytes(z_pgc)} | "
        f"{'—' if z_pgc is None else f'{z_pgc / size:.1%}'} | — | "
        f"{'' if z_pgc is not None else notes.get('pgc', '')} |"
    )
    return lines


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def tool_versions():
    out = []
    for argv in (
        ["rustc", "--version"],
        [PGC, "--version"],
        ["pgn-extract", "-h"],
        [sys.executable, "-c", "import chess; print('python-chess', chess.__version__)"],
        ["dpkg-query", "-W", "-f", "${Package} ${Version}", "scid"],
    ):
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=30)
            text = (proc.stdout or proc.stderr).strip().splitlines()
            if text and proc.returncode in (0, 1):
                out.append(text[0].strip())
        except (OSError, subprocess.TimeoutExpired):
            pass
    return out


def main():
    with open(ENV["BENCH_INPUTS"]) as f:
        manifest = json.load(f)
    names = ENV["BENCH_NAMES"].split()
    stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    report = [
        f"## pgc comparison, {stamp}",
        "",
        f"- machine: {os.cpu_count()} CPUs, {cpu_model()}, "
        f"{platform.system()} {platform.release()}",
        "- tools: " + "; ".join(tool_versions()),
        f"- command: `{ENV.get('BENCH_COMMAND', 'benches/compare.sh')}`",
        f"- rounds: {ROUNDS} (tools alternate within each round; median wall time)",
    ]
    for what, path in (("pgc", PGC_BASELINE), ("pgc-peer", PEER_BASELINE)):
        if path:
            sha = digest(path)
            report.append(
                f"- baseline {what}: `{path}`"
                + (f" (sha256 {sha[:16]})" if sha else " (not found)")
                + ", the rows marked (baseline)"
            )
    report += [
        "",
        "| input | style | bytes | games | plies | source |",
        "|---|---|---:|---:|---:|---|",
    ]
    bodies = []
    for name in names:
        info = manifest[name]
        print(f"benchmarking {name} ({info['bytes']:,} bytes)", file=sys.stderr)
        body = bench_input(name, info)
        src = (
            "louis-yay__AIchess/data/*"
            if info["style"] == "clean"
            else "TCEC master-archive + lichess 2017-05"
        )
        if info.get("exhausted"):
            src += " (all available games)"
        report.append(
            f"| `{name}` | {info['style']} | {info['bytes']:,} | "
            f"{info.get('reader_games', info['games']):,} | "
            f"{info.get('plies', 0):,} | {src} |"
        )
        bodies += [
            "",
            f"### `{name}` ({info['bytes'] / 1e6:.2f} MB, "
            f"{info.get('reader_games', info['games']):,} games)",
            "",
        ] + body
    report += bodies
    text = "\n".join(report) + "\n"
    os.makedirs(ENV["BENCH_RESULTS"], exist_ok=True)
    path = os.path.join(
        ENV["BENCH_RESULTS"], "compare-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S") + ".md"
    )
    with open(path, "w") as f:
        f.write(text)
    sys.stdout.write(text)
    print(f"saved {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
