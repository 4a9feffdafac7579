#!/usr/bin/env python3
"""The transport's round-trip target, over several runs: runs tsr_micro's
2-node shm node run RUNS times (default 10) and prints, for each, the 64 B
raw shared-memory ping-pong, the fast box and the AM round trip, which
bench/micro/paired.c times in turn, and the AM's ratio to each; then the
median and the range of the ratios, and how many runs kept the AM round
trip within LIMIT (default 1.5) times the raw ping-pong.

    python3 bench/am_ratio.py [--runs N] [--limit X] > bench/results/am-ratio.md

One tsr_micro run gives one figure of each; the host's placement of the two
cores moves between runs (bench/README.md, "The two cores move"), so a
target is judged on several. Needs `make all`. Exits non-zero only when a
run fails, not when the target is missed: it measures, it does not test.
"""
import argparse
import datetime
import os
import statistics
import subprocess
import sys

from micro_report import ROOT, commit, load
ROWS = ("shm_busy_64", "shm_box_64", "am_echo_64")


def one_run():
    """The three paired figures of one node run, in microseconds."""
    env = dict(os.environ, TSR_TRANSPORT="shm", TSR_FETCH="message")
    cmd = [os.path.join(ROOT, "build/bin/tsrun"), "-n", "2",
           os.path.join(ROOT, "build/bench/tsr_micro"), "--node-run"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if out.returncode:
        sys.exit(f"am_ratio: {' '.join(cmd)} failed ({out.returncode}):\n{out.stderr}")
    got = {}
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[0] == "M" and f[1] in ROWS:
            got[f[1]] = float(f[2])
    if len(got) != len(ROWS):
        sys.exit(f"am_ratio: tsr_micro printed {sorted(got)}, not all of {ROWS}")
    return got


def heading():
    """The run's date, commit and load, as micro_report.py gives them."""
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f"# bench/am_ratio.py: the 64 B AM round trip over shm against the raw "
            f"ping-pong\n\n{when}, commit {commit()}, {os.cpu_count()} cores; load average "
            f"(1, 5, 15 min) {load()} before.\n")


def spread(xs):
    return f"median {statistics.median(xs):.2f}x, {min(xs):.2f}-{max(xs):.2f}x"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--limit", type=float, default=1.5)
    a = ap.parse_args()
    if a.runs < 1 or a.limit <= 0:
        sys.exit("am_ratio: --runs must be at least 1 and --limit positive")
    print(heading())
    print("| run | raw shm us | fast box us | AM us | AM/raw | AM/box |")
    print("|--:|--:|--:|--:|--:|--:|")
    to_raw, to_box = [], []
    for i in range(a.runs):
        g = one_run()
        to_raw.append(g["am_echo_64"] / g["shm_busy_64"])
        to_box.append(g["am_echo_64"] / g["shm_box_64"])
        print(f"| {i + 1} | {g['shm_busy_64']:.3f} | {g['shm_box_64']:.3f} | "
              f"{g['am_echo_64']:.3f} | {to_raw[-1]:.2f} | {to_box[-1]:.2f} |", flush=True)
    within = sum(r <= a.limit for r in to_raw)
    print(f"\nAM/raw: {spread(to_raw)}; AM/box: {spread(to_box)}; "
          f"{within} of {a.runs} runs within {a.limit}x raw")


if __name__ == "__main__":
    main()
