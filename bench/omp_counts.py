#!/usr/bin/env python3
"""The applications' OpenMP forms against their Tessera API versions.

Runs build/apps/NAME (the Tessera API version) and build/apps/NAME_omp (the
same algorithm in plain OpenMP, apps/NAME/NAME_omp.c, built by tsrcc
-fopenmp -tsr-cas=none as the harness builds it) at 2 and 4 nodes under the
default settings (home-based protocol, TCP, pages asked of their home), and
prints one Markdown table of the whole runs' counts summed over the nodes:
messages, page fetches, bytes sent, read and write faults, API / OpenMP and
the OpenMP form's difference (docs/OPENMP.md). Times are not printed: the
development machine is shared. Every run must verify.

    python3 bench/omp_counts.py [--apps lu,cg] [--nodes 2,4]
"""
import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from harnesslib.runs import read_stats

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.environ.get("B", os.path.join(ROOT, "build"))
TSRUN = os.path.join(B, "bin", "tsrun")
# Sizes a few seconds long on a 2-core machine; SOR and MM as in the first
# table of docs/OPENMP.md.
SIZES = {"sor": ["2048", "2048", "100"], "mm": ["512"], "lu": ["512", "32"],
         "cg": ["256", "100"], "water": ["512", "5"]}
# Columns, as bench/harnesslib names the counters.
COLUMNS = ("messages", "page_fetches", "bytes", "read_faults", "write_faults")


def counts(prog, nodes, args):
    """Counters of one verified run of prog, summed over its nodes."""
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.jsonl")
        env = dict(os.environ, TSR_STATS_JSON=stats)
        p = subprocess.run([TSRUN, "-n", str(nodes), prog] + args, env=env,
                           capture_output=True, text=True, timeout=600)
        if p.returncode or "verified=PASS" not in p.stdout:
            sys.exit(f"omp_counts: {prog} -n {nodes} failed:\n{p.stdout}{p.stderr}")
        total, lines = read_stats(Path(stats))
        if lines != nodes:
            sys.exit(f"omp_counts: {prog} -n {nodes}: {lines} nodes reported counters")
        return total


def cell(api, omp):
    change = f" ({(omp - api) * 100 / api:+.0f}%)" if api else ""
    return f"{api:,} / {omp:,}{change}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--apps", default="sor,mm,lu,cg,water")
    ap.add_argument("--nodes", default="2,4")
    args = ap.parse_args()
    print("| run | messages (API / OpenMP) | page fetches | bytes | read faults | write faults |")
    print("|---|---|---|---|---|---|")
    for app in args.apps.split(","):
        progs = [os.path.join(B, "apps", app + suffix) for suffix in ("", "_omp")]
        for prog in progs:
            if not os.access(prog, os.X_OK):
                sys.exit(f"omp_counts: {prog} is not built (make cas builds the OpenMP forms)")
        for nodes in (int(n) for n in args.nodes.split(",")):
            api, omp = (counts(prog, nodes, SIZES[app]) for prog in progs)
            row = " | ".join(cell(api[k], omp[k]) for k in COLUMNS)
            print(f"| {app} {' '.join(SIZES[app])}, {nodes} nodes | {row} |")


if __name__ == "__main__":
    main()
