#!/usr/bin/env python3
"""Lock acquire+release latency after a node has written 0, 1, 16 and 128 MiB
of its home pages, at 1 and 2 nodes, under both home write detection modes,
side by side in one run (bench/release_cost.c does the timing).

    python3 bench/release_cost.py [--iters N] [--reps R] [--out FILE]

Each cell is the median of R runs. The ratio column is cache-only over
`all`; the counts (messages and bytes node 0 sent and received, pages its
releases examined, notices it made, per pair) do not depend on noise.
"""
import argparse
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = ("all", "cache-only")
SIZES = (0, 1, 16, 128)
NODES = (1, 2)


def run_once(nodes, mode, mib, iters):
    env = dict(os.environ, TSR_WRITE_DETECT=mode)
    cmd = [os.path.join(ROOT, "build/bin/tsrun"), "-n", str(nodes),
           os.path.join(ROOT, "build/bench/release_cost"), str(mib), str(iters)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if out.returncode:
        sys.exit(f"release_cost: {' '.join(cmd)} failed:\n{out.stderr}")
    return {f[1]: float(f[2]) for f in (l.split() for l in out.stdout.splitlines()) if f[:1] == ["M"]}


def measure(nodes, mode, mib, iters, reps):
    runs = [run_once(nodes, mode, mib, iters) for _ in range(reps)]
    cell = {k: runs[0][k] for k in runs[0]}
    cell["us_per_pair"] = statistics.median(r["us_per_pair"] for r in runs)
    return cell


def table(results):
    lines = ["| written | nodes | `all` µs | cache-only µs | ratio | msgs/pair | bytes/pair "
             "(all, cache-only) | pages examined/pair (all, cache-only) | notices/pair |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for nodes in NODES:
        for mib in SIZES:
            a, c = results[(nodes, "all", mib)], results[(nodes, "cache-only", mib)]
            lines.append(
                f"| {mib} MiB | {nodes} | {a['us_per_pair']:.2f} | {c['us_per_pair']:.2f} | "
                f"{c['us_per_pair'] / a['us_per_pair']:.2f} | {c['msgs_per_pair']:.0f} | "
                f"{a['bytes_per_pair']:.0f}, {c['bytes_per_pair']:.0f} | "
                f"{a['walked_per_pair']:.1f}, {c['walked_per_pair']:.1f} | "
                f"{a['notices_per_pair']:.1f}, {c['notices_per_pair']:.1f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results/release_cost.md"))
    args = ap.parse_args()
    results = {(n, m, s): measure(n, m, s, args.iters, args.reps)
               for n in NODES for m in MODES for s in SIZES}
    text = (f"Lock acquire+release after writing home pages: median of {args.reps} runs of "
            f"{args.iters} pairs, {os.cpu_count()} cores.\n\n{table(results)}\n")
    print(text)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
