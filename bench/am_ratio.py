#!/usr/bin/env python3
"""The transport's round-trip target, over several runs: runs tsr_micro's
2-node shm node run RUNS times (default 10) and prints, for each, the 64 B
raw shared-memory ping-pong, the fast box and the AM round trip, which
bench/micro/paired.c times in turn, and the AM's ratio to each; then the
median and the range of the ratios, and how many runs kept the AM round
trip within LIMIT (default 1.5) times the raw ping-pong.

    python3 bench/am_ratio.py [--runs N] [--limit X] > bench/results/am-ratio.md

With --tcp, the same over TCP (TSR_TRANSPORT=tcp, pages asked of their
home): each run's raw busy-polled TCP ping-pong of 64 B and 4 KiB, the AM
round trips, a one-page fetch, a remote lock acquire+release and a 2-node
barrier, the AM's ratios to raw TCP; with --against DIR, each run is
followed by one of the build in DIR (its bin/tsrun and bench/tsr_micro),
so that two builds are compared under the same load.

    python3 bench/am_ratio.py --tcp --runs 6 --against /tmp/main/build

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
TCP_ROWS = ("tcp_busy_64", "am_echo_64", "tcp_busy_4096", "am_echo_4096", "page_fetch",
            "lock_remote", "barrier_2")


def one_run(rows=ROWS, transport="shm", build=os.path.join(ROOT, "build")):
    """The figures `rows` of one node run, in microseconds."""
    env = dict(os.environ, TSR_TRANSPORT=transport, TSR_FETCH="message")
    cmd = [os.path.join(build, "bin/tsrun"), "-n", "2",
           os.path.join(build, "bench/tsr_micro"), "--node-run"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if out.returncode:
        sys.exit(f"am_ratio: {' '.join(cmd)} failed ({out.returncode}):\n{out.stderr}")
    got = {}
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[0] == "M" and f[1] in rows:
            got[f[1]] = float(f[2])
    if len(got) != len(rows):
        sys.exit(f"am_ratio: tsr_micro printed {sorted(got)}, not all of {rows}")
    return got


def heading(medium):
    """The run's date, commit and load, as micro_report.py gives them."""
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f"# bench/am_ratio.py: the 64 B AM round trip over {medium} against the raw "
            f"ping-pong\n\n{when}, commit {commit()}, {os.cpu_count()} cores; load average "
            f"(1, 5, 15 min) {load()} before.\n")


def spread(xs):
    return f"median {statistics.median(xs):.2f}x, {min(xs):.2f}-{max(xs):.2f}x"


def tcp_main(a):
    """--tcp: the TCP rows, of this build and, alternately, of --against's."""
    builds = [("this", os.path.join(ROOT, "build"))]
    if a.against:
        builds.append(("against", a.against))
    print("| run | build | raw 64 B | AM 64 B | AM/raw | raw 4 KiB | AM 4 KiB | AM/raw | "
          "page fetch | remote lock | barrier, 2 nodes |")
    print("|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    ratios = {name: [] for name, _ in builds}
    for i in range(a.runs):
        for name, build in builds:
            g = one_run(TCP_ROWS, "tcp", build)
            ratios[name].append(g["am_echo_64"] / g["tcp_busy_64"])
            print(f"| {i + 1} | {name} | {g['tcp_busy_64']:.2f} | {g['am_echo_64']:.2f} | "
                  f"{ratios[name][-1]:.2f} | {g['tcp_busy_4096']:.2f} | "
                  f"{g['am_echo_4096']:.2f} | {g['am_echo_4096'] / g['tcp_busy_4096']:.2f} | "
                  f"{g['page_fetch']:.2f} | {g['lock_remote']:.2f} | {g['barrier_2']:.2f} |",
                  flush=True)
    for name, xs in ratios.items():
        within = sum(r <= a.limit for r in xs)
        print(f"\n{name}: AM 64 B / raw TCP: {spread(xs)}; {within} of {a.runs} runs within "
              f"{a.limit}x raw")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--limit", type=float, default=1.5)
    ap.add_argument("--tcp", action="store_true", help="the TCP rows (see above)")
    ap.add_argument("--against", help="with --tcp: another build directory, run alternately")
    a = ap.parse_args()
    if a.runs < 1 or a.limit <= 0:
        sys.exit("am_ratio: --runs must be at least 1 and --limit positive")
    print(heading("TCP" if a.tcp else "shm"))
    if a.tcp:
        tcp_main(a)
        return
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
