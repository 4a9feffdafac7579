#!/usr/bin/env python3
"""bench/thr_apps.py - the applications with several threads per node
(apps/common/tsr_app.h: TSR_THREADS workers per node), two tables:

1. Times: 1 node x 2 threads (tsrun -n 1, TSR_THREADS=2) against the same
   source linked to plain pthreads without Tessera (build/apps/NAME_native,
   apps/common/tsr_native.c), run in turn, ROUNDS rounds, the order swapped
   each round; the median and the range of each, their ratio, and what the
   Tessera run did meanwhile (faults that reached a protocol, twins,
   messages), which is where a gap comes from.
2. Counts: one node per host with 2 threads against one node per core, on
   two loopback "hosts" (TSR_HOSTS, tests/loopback_ssh, as the `hosts` line
   of tests/matrix): bytes sent between hosts (host_bytes_sent), bytes sent
   in all, page copies stored (page_fetches) and those brought by a message
   rather than copied from a home on the same host (page_fetches -
   pages_copied_direct: all of them when a host has one node, since they
   then cross between hosts), summed over the nodes, for
   2 hosts x 1 node x 1 thread (one reader per host: the least a host can
   fetch), 2 hosts x 1 node x 2 threads and 2 hosts x 2 nodes x 1 thread.
   Counts do not depend on the machine's load.

Usage: python3 bench/thr_apps.py [--apps sor,mm,...] [--rounds N]
       [--times-only | --counts-only] [--args APP=ARGS ...] [--out FILE]
Each app runs on its quick input (NAME_QUICK_ARGS) unless --args says.
Prints the tables and writes them, with the date, commit and load average,
to FILE (default bench/results/thr_apps.md). Needs `make lib
build/bin/tsrun` and build/apps/NAME, NAME_native.
"""
import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.environ.get("B", os.path.join(ROOT, "build"))
TSRUN = os.path.join(B, "bin", "tsrun")
APPS = ["sor", "mm", "lu", "cg", "water", "barnes"]
TIMEOUT = 600
LINES = []  # what emit printed, for --out


def emit(line=""):
    print(line, flush=True)
    LINES.append(line)


def quick_args(app):
    out = subprocess.run(["make", "-s", "--no-print-directory", f"print-{app}_QUICK_ARGS"],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.split()


def run(cmd, env_extra, label):
    """Runs cmd; returns its RESULT seconds, dying unless it passed."""
    env = dict(os.environ, **env_extra)
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    m = re.search(r"^RESULT .* seconds=([0-9.]+) verified=PASS$", p.stdout, re.M)
    if p.returncode or not m:
        sys.exit(f"bench/thr_apps.py: {label} failed (exit {p.returncode}):\n"
                 f"{p.stdout}{p.stderr}")
    return float(m.group(1))


def tessera(app, args, nodes, env_extra, label):
    """One Tessera run under tsrun; returns (seconds, counters summed over nodes)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as js:
        seconds = run([TSRUN, "-n", str(nodes), "-j", js.name, os.path.join(B, "apps", app)]
                      + args, env_extra, label)
        total = {}
        for line in open(js.name):
            for k, v in json.loads(line).items():
                if isinstance(v, (int, float)):
                    total[k] = total.get(k, 0) + v
    return seconds, total


def spread(xs):
    return f"{statistics.median(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})"


def times(apps, args, rounds):
    emit(f"| app (input) | pthreads, no Tessera: s, median (range) | Tessera 1 node x 2 threads "
         f"| Tessera / pthreads | faults | twins | messages |")
    emit("|---|---|---|---|---|---|---|")
    for app in apps:
        native, tsr, counts = [], [], {}
        for r in range(rounds):
            for which in (("native", "tessera") if r % 2 == 0 else ("tessera", "native")):
                if which == "native":
                    native.append(run([os.path.join(B, "apps", app + "_native")] + args[app],
                                      {"TSR_THREADS": "2"}, f"{app}_native"))
                else:
                    s, counts = tessera(app, args[app], 1, {"TSR_THREADS": "2"}, app)
                    tsr.append(s)
        ratio = statistics.median(tsr) / statistics.median(native)
        emit(f"| {app} ({' '.join(args[app])}) | {spread(native)} | {spread(tsr)} | "
             f"{ratio:.2f} | {counts['faults_taken']} | {counts['twins']} | "
             f"{counts['messages_sent']} |")


PLACEMENTS = [
    ("2 hosts x 1 node x 1 thread", 2, {"TSR_THREADS": "1", "TSR_HOSTS": "127.0.0.2:1,127.0.0.3:1"}),
    ("2 hosts x 1 node x 2 threads", 2, {"TSR_THREADS": "2", "TSR_HOSTS": "127.0.0.2:1,127.0.0.3:1"}),
    ("2 hosts x 2 nodes x 1 thread", 4, {"TSR_THREADS": "1", "TSR_HOSTS": "127.0.0.2:2,127.0.0.3:2"}),
]


def counts(apps, args):
    emit("| app (input) | placement | bytes between hosts | bytes sent | pages stored "
         "| pages by message |")
    emit("|---|---|---|---|---|---|")
    for app in apps:
        for label, nodes, env in PLACEMENTS:
            env = dict(env, TSR_SSH="tests/loopback_ssh")
            _, c = tessera(app, args[app], nodes, env, f"{app} {label}")
            across = c["page_fetches"] - c.get("pages_copied_direct", 0)
            emit(f"| {app} ({' '.join(args[app])}) | {label} | {c['host_bytes_sent']} | "
                 f"{c['bytes_sent']} | {c['page_fetches']} | {across} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--apps", default=",".join(APPS))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--times-only", action="store_true")
    ap.add_argument("--counts-only", action="store_true")
    ap.add_argument("--args", action="append", default=[], metavar="APP=ARGS")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "thr_apps.md"))
    o = ap.parse_args()
    apps = o.apps.split(",")
    args = {a: quick_args(a) for a in apps}
    for spec in o.args:
        app, _, words = spec.partition("=")
        args[app] = words.split()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    start = f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}, " \
            f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start"
    if not o.counts_only:
        times(apps, args, o.rounds)
        emit()
    if not o.times_only:
        counts(apps, args)
    with open(o.out, "w") as f:
        f.write(f"# bench/thr_apps.py {shlex.join(sys.argv[1:])}\n\n{start}, "
                f"{os.getloadavg()[0]:.1f} at the end.\n\n" + "\n".join(LINES) + "\n")


if __name__ == "__main__":
    main()
