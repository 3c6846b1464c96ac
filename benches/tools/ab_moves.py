#!/usr/bin/env python3
"""Interleaved A/B timing of `pgc moves` (or `decode`, `encode`) builds
against each other and the pgn-reader peer, for changes too small for
benches/compare.sh to resolve on a noisy machine.

    benches/tools/ab_moves.py ROUNDS PGC_A [PGC_B ...] [peer]

Each round runs every binary once, alternating the order from round to
round, and reads each run's CPU time (user + system, microseconds, from
wait4) and wall time. Prints the median of each and the ratio of CPU time to
the first binary. The input is target/bench-work/clean-30m/ref.pgc (written
by benches/compare.sh; AB_SIZE=clean-1m takes that size's instead, whose
runs are short enough for 150-200 rounds); `peer` runs `pgc-peer validate`
on the equivalent PGN (AB_PEER=PATH: that build of the peer instead of
target/release/pgc-peer, e.g. one built without shakmaty's variant
feature, as pgn-reader's users build it). AB_JOB=decode times `pgc decode` of the same PGC,
AB_JOB=encode `pgc encode` of the PGN (all with `-j 1`; AB_J=N: `-j N`). Copy each build
to its own path first (cp target/release/pgc /tmp/pgc-A).
"""

import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIZE = os.environ.get("AB_SIZE", "clean-30m")
PGC = os.path.join(ROOT, "target/bench-work/%s/ref.pgc" % SIZE)
PGN = os.path.join(ROOT, "target/bench-inputs/%s.pgn" % SIZE)
PEER = os.environ.get("AB_PEER", os.path.join(ROOT, "target/release/pgc-peer"))
JOB = os.environ.get("AB_JOB", "moves")
THREADS = os.environ.get("AB_J", "1")


def command(binary):
    if binary == "peer":
        return [PEER, "validate", PGN]
    out = "/tmp/ab-%s.%s" % (os.path.basename(binary), JOB)
    source = PGN if JOB == "encode" else PGC
    return [binary, JOB, source, "-j", THREADS, "-o", out, "--force", "--quiet"]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    if JOB not in ("moves", "decode", "encode"):
        sys.exit("AB_JOB must be moves, decode or encode, not %r" % JOB)
    rounds, binaries = int(sys.argv[1]), sys.argv[2:]
    cpu = {b: [] for b in binaries}
    wall = {b: [] for b in binaries}
    for r in range(rounds + 1):
        for b in binaries if r % 2 == 0 else binaries[::-1]:
            start = time.perf_counter()
            p = subprocess.Popen(command(b), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(p.pid, 0)
            if status != 0:
                sys.exit("%s failed (status %d)" % (b, status))
            if r > 0:  # round 0 warms the caches
                wall[b].append(time.perf_counter() - start)
                cpu[b].append(usage.ru_utime + usage.ru_stime)
    base = statistics.median(cpu[binaries[0]])
    for b in binaries:
        m = statistics.median(cpu[b])
        print(
            "%-24s CPU median %7.1f ms (x%.3f)  wall median %7.1f ms  CPU min %7.1f ms"
            % (
                os.path.basename(b),
                1000 * m,
                m / base,
                1000 * statistics.median(wall[b]),
                1000 * min(cpu[b]),
            )
        )


if __name__ == "__main__":
    main()
