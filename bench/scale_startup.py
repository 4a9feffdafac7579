#!/usr/bin/env python3
"""How long tsrun takes to start N nodes on this host, and their memory.

Runs `tsrun -n N build/tests/mp/scale_job` (issue 42's job: join, take a
lock, two barriers, leave) for each N under TSR_TRANSPORT=--transport and
prints a Markdown table, each figure the median of --reps runs:

  start-up  from launching tsrun until node 0 prints "scale N PASS", that
            is, every node has registered, built the full mesh, passed
            tsr_init's barrier, taken the lock and passed one more
  whole job until tsrun exits (adds tsr_finalize: barrier, BYE to every
            peer, closing N-1 connections in each node)
  memory    each node's peak resident set (VmHWM, which scale_job prints),
            its mean and largest over the nodes; pages of shared mappings
            it touched (the shm rings) included

With --out FILE the table is also written there. Run from the repository
root after `make all`:

  python3 bench/scale_startup.py                  # 64, 128, 256, 512 nodes
  python3 bench/scale_startup.py --nodes 1024 --reps 1 --transport tcp
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

TSRUN = "build/bin/tsrun"
PROG = "build/tests/mp/scale_job"


def one_run(n, limit, transport):
    """Returns (start-up s, whole-job s, mean and max peak RSS MB) of one
    n-node job."""
    env = dict(os.environ, TSR_TRANSPORT=transport)
    t0 = time.monotonic()
    p = subprocess.Popen([TSRUN, "-n", str(n), "-t", str(limit), PROG],
                         stdout=subprocess.PIPE, env=env, text=True)
    started = None
    kb = []
    for line in p.stdout:
        if line.startswith("scale %d PASS" % n) and started is None:
            started = time.monotonic() - t0
        elif line.startswith("memory "):
            kb.append(int(line.split()[2]))
    rc = p.wait()
    total = time.monotonic() - t0
    if rc != 0 or started is None or len(kb) != n:
        sys.exit("scale_startup: TSR_TRANSPORT=%s tsrun -n %d failed (exit %d)"
                 % (transport, n, rc))
    return started, total, sum(kb) / n / 1024, max(kb) / 1024


def node_counts(who, nodes, programs):
    """The comma-separated node counts, once the programs are built; exits
    naming `who` otherwise."""
    for path in programs:
        if not os.access(path, os.X_OK):
            sys.exit("%s: %s is missing: run `make all` first" % (who, path))
    try:
        return [int(x) for x in nodes.split(",")]
    except ValueError:
        sys.exit("%s: --nodes must be integers separated by commas, got '%s'" % (who, nodes))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", default="64,128,256,512", help="comma-separated node counts")
    ap.add_argument("--transport", default="auto", help="TSR_TRANSPORT of the runs")
    ap.add_argument("--reps", type=int, default=3, help="runs per node count (median kept)")
    ap.add_argument("--limit", type=int, default=120, help="tsrun -t for each run, seconds")
    ap.add_argument("--out", help="also write the table to this file")
    args = ap.parse_args()
    counts = node_counts("scale_startup", args.nodes, (TSRUN, PROG))
    if args.reps < 1:
        sys.exit("scale_startup: --reps must be at least 1")
    rows = ["| nodes | start-up (s) | whole job (s) | memory per node, mean (MB) | largest (MB) |",
            "|--:|--:|--:|--:|--:|"]
    print("\n".join(rows), flush=True)
    for n in counts:
        runs = [one_run(n, args.limit, args.transport) for _ in range(args.reps)]
        row = "| %d | %.2f | %.2f | %.1f | %.1f |" % (
            n, *(statistics.median(r[i] for r in runs) for i in range(4)))
        print(row, flush=True)
        rows.append(row)
    if args.out:
        note = ("TSR_TRANSPORT=%s, %s, %d cores, load average %.1f at the end (other work "
                "shares the cores)" % (args.transport, time.strftime("%Y-%m-%d"),
                                       os.cpu_count(), os.getloadavg()[0]))
        with open(args.out, "w") as f:
            f.write("\n".join(rows) + "\n\n" + note + "\n")


if __name__ == "__main__":
    main()
