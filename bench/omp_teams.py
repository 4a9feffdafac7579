#!/usr/bin/env python3
"""One OpenMP team, spread two ways over two hosts: one node per host running
two threads of the team, or two nodes per host of one thread each.

Runs build/apps/NAME_omp (tsrcc -fopenmp, docs/OPENMP.md) with a team of 4
on two "hosts" that are loopback addresses of this machine (tests/loopback_ssh,
as tests/sh/host_bytes.sh does): 2 nodes x 2 threads (TSR_THREADS=2) and
4 nodes x 1 thread. Prints one Markdown table of the runs' counters summed
over the nodes, medians of --rounds runs: messages, page fetches, bytes,
bytes sent between hosts (host_bytes_sent), read and write faults, and the
locks handed between threads of a node (lock_local_handoffs). Every run
must verify.

    python3 bench/omp_teams.py [--apps sor,mm] [--rounds 3] [--size sor="1024 1024 50"]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import omp_counts

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.environ.get("B", os.path.join(ROOT, "build"))
TSRUN = os.path.join(B, "bin", "tsrun")
# omp_counts.py's inputs, SOR's smaller.
SIZES = dict(omp_counts.SIZES, sor=["1024", "1024", "50"])
COUNTERS = ("messages_sent", "page_fetches", "bytes_sent", "host_bytes_sent",
            "read_faults", "write_faults", "lock_local_handoffs")
HEADS = ("messages", "page fetches", "bytes", "bytes between hosts", "read faults",
         "write faults", "local lock hand-offs")
# (label, nodes, TSR_THREADS, TSR_HOSTS): a team of 4 either way.
SHAPES = (("2 nodes x 2 threads", 2, 2, "127.0.0.2:1,127.0.0.3:1"),
          ("4 nodes x 1 thread", 4, 1, "127.0.0.2:2,127.0.0.3:2"))


def run(prog, args, nodes, threads, hosts):
    """The counters of one verified run, summed over its nodes."""
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.jsonl")
        env = dict(os.environ, TSR_STATS_JSON=stats, TSR_THREADS=str(threads),
                   TSR_HOSTS=hosts, TSR_SSH=os.path.join(ROOT, "tests", "loopback_ssh"))
        env.pop("OMP_NUM_THREADS", None)
        p = subprocess.run([TSRUN, "-n", str(nodes), prog] + args, env=env, cwd=ROOT,
                           capture_output=True, text=True, timeout=600)
        if p.returncode or "verified=PASS" not in p.stdout:
            sys.exit(f"omp_teams: {prog} -n {nodes} TSR_THREADS={threads} failed:\n"
                     f"{p.stdout}{p.stderr}")
        total = dict.fromkeys(COUNTERS, 0)
        lines = 0
        with open(stats) as f:
            for line in f:
                lines += 1
                node = json.loads(line)
                for k in COUNTERS:
                    total[k] += node.get(k, 0)
        if lines != nodes:
            sys.exit(f"omp_teams: {prog} -n {nodes}: {lines} nodes reported counters")
        return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--apps", default="sor,mm")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--size", action="append", default=[], metavar="APP=ARGS")
    args = ap.parse_args()
    omp_counts.set_sizes(SIZES, args.size, "omp_teams")
    print("| run | " + " | ".join(HEADS) + " |")
    print("|---" * (len(HEADS) + 1) + "|")
    for app in args.apps.split(","):
        prog = os.path.join(B, "apps", app + "_omp")
        if not os.access(prog, os.X_OK):
            sys.exit(f"omp_teams: {prog} is not built (make cas builds the OpenMP forms)")
        for label, nodes, threads, hosts in SHAPES:
            runs = [run(prog, SIZES[app], nodes, threads, hosts) for _ in range(args.rounds)]
            cells = (f"{int(statistics.median(r[k] for r in runs)):,}" for k in COUNTERS)
            print(f"| {app} {' '.join(SIZES[app])}, {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
