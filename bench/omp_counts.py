#!/usr/bin/env python3
"""The applications' OpenMP forms against their Tessera API versions.

Runs build/apps/NAME (the Tessera API version) and build/apps/NAME_omp (the
same algorithm in plain OpenMP, apps/NAME/NAME_omp.c, built by tsrcc
-fopenmp -tsr-cas=none as the harness builds it) at 2 and 4 nodes under the
default settings (home-based protocol, cache-only write detection, every
node on this host: shm rings, pages copied straight from their home's
memory, TSR_FETCH=direct), and
prints one Markdown table of the whole runs' counts summed over the nodes:
messages, page fetches, bytes sent, read and write faults, API / OpenMP and
the OpenMP form's difference (docs/OPENMP.md). Every run must verify.

With --rounds R, each pair runs R times, the two forms one after the other
in every round (so that a slower spell of a shared machine falls on both),
and a second table gives each form's median time with its spread (lowest
and highest), the OpenMP form's median over the API version's against the
1.15x target, and the median message and fault counts' differences
against the 10% target, marked "over 10%" above it and "fewer" 10% or
more below (docs/PERFORMANCE.md). The counts table is then the
rounds' medians. --size APP=ARGS (repeatable) replaces an app's input.

    python3 bench/omp_counts.py [--apps lu,cg] [--nodes 2,4] [--rounds 5]
                                [--size lu="1536 32"]
"""
import argparse
import os
import statistics
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
    """Counters of one verified run of prog, summed over its nodes, and its
    seconds (its RESULT line)."""
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
        total["seconds"] = float(p.stdout.split(" seconds=")[1].split()[0])
        return total


def set_sizes(sizes, specs, who):
    """Applies the --size APP=ARGS options to sizes."""
    for spec in specs:
        app, _, words = spec.partition("=")
        if app not in sizes or not words.split():
            sys.exit(f"{who}: --size {spec}: want APP=ARGS, APP one of {', '.join(sizes)}")
        sizes[app] = words.split()


def cell(api, omp):
    change = f" ({(omp - api) * 100 / api:+.0f}%)" if api else ""
    return f"{api:,} / {omp:,}{change}"


def medians(runs):
    """The median of each counter over the runs of one form."""
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def spread(runs):
    secs = sorted(r["seconds"] for r in runs)
    return f"{statistics.median(secs):.2f} ({secs[0]:.2f}-{secs[-1]:.2f})"


def change(api, omp, key):
    """The OpenMP form's difference, marked when it is past 10%: more work
    misses the target, less beats it."""
    diff = round((omp[key] - api[key]) * 100 / api[key]) if api[key] else 0
    return f"{diff:+d}%" + (" (over 10%)" if diff > 10 else " (fewer)" if diff < -10 else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--apps", default="sor,mm,lu,cg,water")
    ap.add_argument("--nodes", default="2,4")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--size", action="append", default=[], metavar="APP=ARGS")
    args = ap.parse_args()
    set_sizes(SIZES, args.size, "omp_counts")
    rows = []
    for app in args.apps.split(","):
        progs = [os.path.join(B, "apps", app + suffix) for suffix in ("", "_omp")]
        for prog in progs:
            if not os.access(prog, os.X_OK):
                sys.exit(f"omp_counts: {prog} is not built (make cas builds the OpenMP forms)")
        for nodes in (int(n) for n in args.nodes.split(",")):
            runs = ([], [])
            for _ in range(args.rounds):
                for form, prog in zip(runs, progs):
                    form.append(counts(prog, nodes, SIZES[app]))
            rows.append((f"{app} {' '.join(SIZES[app])}, {nodes} nodes", runs))
    print("| run | messages (API / OpenMP) | page fetches | bytes | read faults | write faults |")
    print("|---|---|---|---|---|---|")
    for name, (api, omp) in rows:
        api_m, omp_m = medians(api), medians(omp)
        print(f"| {name} | {' | '.join(cell(int(api_m[k]), int(omp_m[k])) for k in COLUMNS)} |")
    if args.rounds < 2:
        return
    print("\n| run | API s, median (range) | OpenMP s | OpenMP / API | messages "
          "| read faults | write faults |")
    print("|---|---|---|---|---|---|---|")
    for name, (api, omp) in rows:
        api_m, omp_m = medians(api), medians(omp)
        ratio = omp_m["seconds"] / api_m["seconds"]
        mark = "" if ratio <= 1.15 else " (over 1.15)"
        counted = " | ".join(change(api_m, omp_m, k)
                             for k in ("messages", "read_faults", "write_faults"))
        print(f"| {name} | {spread(api)} | {spread(omp)} | {ratio:.2f}{mark} | {counted} |")


if __name__ == "__main__":
    main()
