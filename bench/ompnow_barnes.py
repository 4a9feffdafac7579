#!/usr/bin/env python3
"""Barnes-Hut as OpenMP/NOW runs it: the shape of the paper's Tables 1 and 2.

Runs build/bench/ompnow_barnes at 2 and 4 nodes, under the home-based
protocol (the default) and TreadMarks' lazy one (TSR_PROTO=lrc, the
paper's): tree built by node 0 alone (master), and replicated on every
node with TSR_MULTICAST=off, tree and ip (ip runs over the udp backend,
whose IP multicast it uses; the others over the default transport, shm).
Writes bench/results/ompnow_barnes.md: times of the sequential and parallel
sections, and per section the requests (page fetches, or diff requests
under the lazy protocol), the data received and the average response time
of a request. Every run's final positions must have
the same checksum (the same trees are built from the same bodies).

    python3 bench/ompnow_barnes.py [--bodies N] [--steps S] [--reps R]
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.environ.get("B", os.path.join(ROOT, "build"))
TSRUN = os.path.join(B, "bin", "tsrun")
PROG = os.path.join(B, "bench", "ompnow_barnes")
CONFIGS = [("master", None), ("replicated", "off"), ("replicated", "tree"),
           ("replicated", "ip")]
PROTOS = ("hlrc", "lrc")


def run(proto, nodes, mode, multicast, bodies, steps):
    env = dict(os.environ)
    env.pop("TSR_MULTICAST", None)
    env.pop("TSR_TRANSPORT", None)
    env["TSR_PROTO"] = proto
    if multicast:
        env["TSR_MULTICAST"] = multicast
    if multicast == "ip":
        env["TSR_TRANSPORT"] = "udp"
    p = subprocess.run([TSRUN, "-n", str(nodes), PROG, mode, str(bodies), str(steps)],
                       env=env, capture_output=True, text=True, timeout=600)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return dict(kv.split("=", 1) for kv in line.split()[1:])
    return {"error": (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[0]}


def best(results):
    """The run with the least total time, of the repetitions."""
    ok = [r for r in results if "error" not in r]
    return min(ok, key=lambda r: float(r["seconds"])) if ok else results[0]


def kib(x):
    return "%.0f" % (float(x) / 1024)


def response_us(r, phase):
    req = float(r[phase + "_requests"])
    return "%.0f" % (float(r[phase + "_wait_us"]) / req) if req else "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bodies", type=int, default=16384)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "ompnow_barnes.md"))
    a = ap.parse_args()
    rows = []
    for proto in PROTOS:
        for nodes in (2, 4):
            for mode, mc in CONFIGS:
                r = best([run(proto, nodes, mode, mc, a.bodies, a.steps)
                          for _ in range(a.reps)])
                name = mode if mode == "master" else "replicated, multicast %s" % mc
                if mc == "ip":
                    name += " (udp)"
                rows.append((proto, nodes, name, r))
                print(proto, nodes, name, r.get("seconds", r.get("error")), file=sys.stderr)
    sums = {r["checksum"] for _, _, _, r in rows if "error" not in r}
    t1 = ["| protocol | nodes | sequential section | total s | sequential s | parallel s |",
          "|---|---|---|---|---|---|"]
    t2 = ["| protocol | nodes | sequential section | seq. requests | seq. data KiB "
          "| seq. response us | par. requests | par. data KiB | par. response us |",
          "|---|---|---|---|---|---|---|---|---|"]
    for proto, nodes, name, r in rows:
        if "error" in r:
            t1.append("| %s | %d | %s | not run: %s | | |" % (proto, nodes, name, r["error"]))
            continue
        t1.append("| %s | %d | %s | %s | %s | %s |" % (proto, nodes, name, r["seconds"],
                                                       r["seq_s"], r["par_s"]))
        t2.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            proto, nodes, name, r["seq_requests"], kib(r["seq_bytes"]), response_us(r, "seq"),
            r["par_requests"], kib(r["par_bytes"]), response_us(r, "par")))
    with open(a.out, "w") as f:
        f.write("# Barnes-Hut with replicated sequential sections (OpenMP/NOW)\n\n")
        f.write("`python3 bench/ompnow_barnes.py --bodies %d --steps %d --reps %d` "
                "(`make bench-ompnow`); the best of the repetitions. Times are node 0's; "
                "requests, data received and waiting are summed over the nodes. "
                "Final positions: %s.\n\n" % (a.bodies, a.steps, a.reps,
                                              "the same checksum in every run"
                                              if len(sums) == 1 else "CHECKSUMS DIFFER"))
        f.write("Table 1 (times)\n\n" + "\n".join(t1) + "\n\n")
        f.write("Table 2 (requests: page fetches under hlrc, diff requests under lrc; data "
                "and response time per section)\n\n" +
                "\n".join(t2) + "\n")
    print(open(a.out).read())
    return 0 if len(sums) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
