#!/usr/bin/env python3
"""TCP connections per node on demand against the mesh, for SOR, and the
start-up time (issue 42, point 2).

For each node count and each TSR_CONNECT (start: the mesh; demand: a link
when a node first sends to a peer), under TSR_TRANSPORT=tcp:

  SOR       `build/apps/sor ROWS COLS ITERS` (--sor), the nodes' counters
            in TSR_STATS_JSON: peer_connections at node 0 (the barrier
            tree's root, which reads every band at the end to check the
            result) and the median and largest at the other nodes;
            crossed_connections summed over the job
  stencil   tests/mp/conn_neighbours (a stencil over ring neighbours and
            barriers, whose nodes count their own links): node 0's links
            and the most at another node, where node 0 reads nothing but
            its neighbours' pages
  start-up  bench/scale_startup.py's job (join, a lock, two barriers):
            seconds until node 0 prints its PASS, and each node's peak
            resident memory, mean (every link holds a 256 KiB receive
            buffer)

Counts do not depend on the machine's load; the times and memory do, so the
output notes the load. One run per cell. Run from the repository root after
`make all`:

  python3 bench/connections.py                     # 64, 128, 256 nodes
  python3 bench/connections.py --nodes 32 --out /tmp/t.md
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scale_startup  # noqa: E402

SOR = "build/apps/sor"
STENCIL = "build/tests/mp/conn_neighbours"


def sor_counts(n, mode, sor_args, limit):
    """(node 0's links, median and largest of the others', crossings)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "stats.json")
        env = dict(os.environ, TSR_TRANSPORT="tcp", TSR_CONNECT=mode, TSR_STATS_JSON=path)
        rc = subprocess.run([scale_startup.TSRUN, "-n", str(n), "-t", str(limit), SOR] +
                            sor_args.split(), env=env, stdout=subprocess.DEVNULL).returncode
        nodes = {}
        if os.path.exists(path):
            for line in open(path):
                d = json.loads(line)
                nodes[d["node"]] = d
    if rc != 0 or len(nodes) != n:
        sys.exit("connections: SOR at %d nodes, TSR_CONNECT=%s failed (exit %d, %d of %d "
                 "nodes' counters)" % (n, mode, rc, len(nodes), n))
    others = [nodes[j]["peer_connections"] for j in range(1, n)]
    crossed = sum(d["crossed_connections"] for d in nodes.values())
    return nodes[0]["peer_connections"], statistics.median(others), max(others), crossed


def stencil_counts(n, mode, limit):
    """(node 0's links, the most at another node) in the ring stencil."""
    env = dict(os.environ, TSR_TRANSPORT="tcp", TSR_CONNECT=mode)
    out = subprocess.run([scale_startup.TSRUN, "-n", str(n), "-t", str(limit), STENCIL, "ring"],
                         env=env, stdout=subprocess.PIPE, text=True)
    links = {}
    for line in out.stdout.splitlines():
        words = line.split()
        if len(words) > 2 and words[0] == "node" and words[2].isdigit():
            links[int(words[1].rstrip(":"))] = int(words[2])
    if out.returncode != 0 or len(links) != n:
        sys.exit("connections: the stencil at %d nodes, TSR_CONNECT=%s failed (exit %d, %d of "
                 "%d nodes' counts)" % (n, mode, out.returncode, len(links), n))
    return links[0], max(links[j] for j in range(1, n))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", default="64,128,256", help="comma-separated node counts")
    ap.add_argument("--sor", default="512 512 10", help="SOR's rows, columns, iterations")
    ap.add_argument("--limit", type=int, default=300, help="tsrun -t for each run, seconds")
    ap.add_argument("--heartbeat", default="30",
                    help="TSR_HEARTBEAT of the runs: a shared machine starves nodes of hundreds "
                         "for longer than the default 5 s (issue 42, point 1)")
    ap.add_argument("--out", help="also write the table to this file")
    args = ap.parse_args()
    os.environ["TSR_HEARTBEAT"] = args.heartbeat
    counts = scale_startup.node_counts("connections", args.nodes,
                                       (scale_startup.TSRUN, scale_startup.PROG, SOR, STENCIL))
    rows = ["| nodes | TSR_CONNECT | SOR: node 0 | others, median | others, largest | "
            "crossed | stencil: node 0 | others, largest | start-up (s) | "
            "memory per node (MB) |",
            "|--:|--|--:|--:|--:|--:|--:|--:|--:|--:|"]
    print("\n".join(rows), flush=True)
    for n in counts:
        for mode in ("start", "demand"):
            zero, median, most, crossed = sor_counts(n, mode, args.sor, args.limit)
            st_zero, st_most = stencil_counts(n, mode, args.limit)
            os.environ["TSR_CONNECT"] = mode
            start, _, mem, _ = scale_startup.one_run(n, args.limit, "tcp")
            row = "| %d | %s | %d | %g | %d | %d | %d | %d | %.2f | %.1f |" % (
                n, mode, zero, median, most, crossed, st_zero, st_most, start, mem)
            print(row, flush=True)
            rows.append(row)
    note = ("TSR_TRANSPORT=tcp, TSR_HEARTBEAT=%s, SOR %s, %s, %d cores, load average %.1f at "
            "the end (other work shares the cores)" % (args.heartbeat, args.sor,
                                                     time.strftime("%Y-%m-%d"), os.cpu_count(),
                                                     os.getloadavg()[0]))
    print("\n" + note)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(rows) + "\n\n" + note + "\n")


if __name__ == "__main__":
    main()
