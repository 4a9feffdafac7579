#!/usr/bin/env python3
"""OpenMP/NOW's experiment on an unmodified OpenMP program.

Runs build/apps/barnes_omp (apps/barnes/barnes_omp.c, built by tsrcc
-fopenmp) at 2 and 4 nodes, under the home-based protocol and TreadMarks'
lazy one, with its sequential code (the tree built every step) on node 0
alone (TSR_OMP_SEQUENTIAL=master) and replicated on every node
(TSR_OMP_SEQUENTIAL=replicate), the comparison of the paper's Tables 1
and 2 (docs/OPENMP.md). Prints one Markdown table: the timed part's
seconds (the machine may be shared: prefer the counts) and, summed over
the nodes for the whole run, messages, bytes, page fetches (diff requests
under the lazy protocol) and read faults. Every run must verify.

    python3 bench/ompnow_omp.py [--bodies N] [--steps S]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.environ.get("B", os.path.join(ROOT, "build"))
TSRUN = os.path.join(B, "bin", "tsrun")
PROG = os.path.join(B, "apps", "barnes_omp")
COUNTERS = ("messages_sent", "bytes_sent", "page_fetches", "diff_requests", "read_faults")


def run(proto, nodes, mode, bodies, steps):
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.jsonl")
        env = dict(os.environ, TSR_PROTO=proto, TSR_OMP_SEQUENTIAL=mode, TSR_STATS_JSON=stats)
        p = subprocess.run([TSRUN, "-n", str(nodes), PROG, str(bodies), str(steps)],
                           env=env, capture_output=True, text=True, timeout=600)
        m = re.search(r"seconds=([0-9.]+) verified=PASS", p.stdout)
        if p.returncode or not m:
            sys.exit(f"ompnow_omp: {proto} {mode} -n {nodes} failed:\n{p.stdout}{p.stderr}")
        total = dict.fromkeys(COUNTERS, 0)
        with open(stats) as f:
            for line in f:
                node = json.loads(line)
                for k in COUNTERS:
                    total[k] += node.get(k, 0)
        return float(m.group(1)), total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bodies", type=int, default=8192)
    ap.add_argument("--steps", type=int, default=3)
    args = ap.parse_args()
    if not os.access(PROG, os.X_OK):
        sys.exit(f"ompnow_omp: {PROG} is not built (make cas builds it where clang-16 is)")
    print(f"barnes_omp {args.bodies} bodies, {args.steps} steps\n")
    print("| protocol | nodes | sequential code | seconds | messages | bytes | requests | read faults |")
    print("|---|--:|---|--:|--:|--:|--:|--:|")
    for proto in ("hlrc", "lrc"):
        for nodes in (2, 4):
            for mode in ("master", "replicate"):
                secs, c = run(proto, nodes, mode, args.bodies, args.steps)
                req = c["diff_requests"] if proto == "lrc" else c["page_fetches"]
                print(f"| {proto} | {nodes} | {mode} | {secs:.3f} | {c['messages_sent']:,} | "
                      f"{c['bytes_sent']:,} | {req:,} | {c['read_faults']:,} |")


if __name__ == "__main__":
    main()
