#!/usr/bin/env python3
"""How long tsrun takes to start N nodes on this host.

Runs `tsrun -n N build/tests/mp/startup` (join, one barrier, leave) for each
N and prints a Markdown table of two times, each the median of --reps runs:

  start-up  from launching tsrun until node 0 prints "startup N PASS", that
            is, every node has registered, built the full mesh, passed
            tsr_init's barrier and one more
  whole job until tsrun exits (adds tsr_finalize: barrier, BYE to every
            peer, closing N-1 connections in each node)

With --out FILE the table is also written there. Run from the repository
root after `make all`:

  python3 bench/scale_startup.py                  # 16, 64, 128, 256 nodes
  python3 bench/scale_startup.py --nodes 256 --reps 1
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

TSRUN = "build/bin/tsrun"
PROG = "build/tests/mp/startup"


def one_run(n, limit):
    """Returns (start-up seconds, whole-job seconds) of one n-node job."""
    t0 = time.monotonic()
    p = subprocess.Popen([TSRUN, "-n", str(n), "-t", str(limit), PROG],
                         stdout=subprocess.PIPE, text=True)
    started = None
    for line in p.stdout:
        if line.startswith("startup %d PASS" % n) and started is None:
            started = time.monotonic() - t0
    rc = p.wait()
    total = time.monotonic() - t0
    if rc != 0 or started is None:
        sys.exit("scale_startup: tsrun -n %d failed (exit %d)" % (n, rc))
    return started, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", default="16,64,128,256", help="comma-separated node counts")
    ap.add_argument("--reps", type=int, default=3, help="runs per node count (median kept)")
    ap.add_argument("--limit", type=int, default=120, help="tsrun -t for each run, seconds")
    ap.add_argument("--out", help="also write the table to this file")
    args = ap.parse_args()
    for path in (TSRUN, PROG):
        if not os.access(path, os.X_OK):
            sys.exit("scale_startup: %s is missing: run `make all` first" % path)
    try:
        counts = [int(x) for x in args.nodes.split(",")]
    except ValueError:
        sys.exit("scale_startup: --nodes must be integers separated by commas, got '%s'"
                 % args.nodes)
    if args.reps < 1:
        sys.exit("scale_startup: --reps must be at least 1")
    rows = ["| nodes | start-up (s) | whole job (s) |", "|--:|--:|--:|"]
    print("\n".join(rows), flush=True)
    for n in counts:
        runs = [one_run(n, args.limit) for _ in range(args.reps)]
        row = "| %d | %.2f | %.2f |" % (n, statistics.median(r[0] for r in runs),
                                        statistics.median(r[1] for r in runs))
        print(row, flush=True)
        rows.append(row)
    if args.out:
        note = ("%s, %d cores, load average %.1f at the end (other work shares the cores)"
                % (time.strftime("%Y-%m-%d"), os.cpu_count(), os.getloadavg()[0]))
        with open(args.out, "w") as f:
            f.write("\n".join(rows) + "\n\n" + note + "\n")


if __name__ == "__main__":
    main()
