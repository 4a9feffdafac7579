#!/usr/bin/env python3
"""tests/trace_check.py TRACE NODES [--stats STATS_JSON] [--kinds K,...] [--killed]

Checks a job timeline that tsrun wrote (docs/TRACE.md) against the Chrome
trace event format and what Tessera promises of it: one process per node
0..NODES-1 named by metadata, each with a named main and comm thread; every
event on a named thread, with numeric times; every flow start ("s") paired
with exactly one end ("f") of the same id on another node, and no end
without a start; the clock offsets of every node said in otherData. With
--stats (TSR_STATS_JSON's lines), the flows are at least the messages the
nodes counted as received. With --kinds, each named slice appears. With
--killed (a job that was killed), sends whose receiver died may lack an end,
but every end still has its start. Prints what it found; exits 1 on the
first broken promise."""
import json
import sys
from collections import Counter, defaultdict


def fail(why):
    print("trace_check: " + why)
    sys.exit(1)


def main():
    args = sys.argv[1:]
    path, nodes = args[0], int(args[1])
    stats = args[args.index("--stats") + 1] if "--stats" in args else None
    kinds = args[args.index("--kinds") + 1].split(",") if "--kinds" in args else []
    killed = "--killed" in args
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    procs, threads = {}, defaultdict(dict)
    for e in events:
        if e["ph"] == "M" and e["name"] == "process_name":
            procs[e["pid"]] = e["args"]["name"]
        if e["ph"] == "M" and e["name"] == "thread_name":
            threads[e["pid"]][e["tid"]] = e["args"]["name"]
    if sorted(procs) != list(range(nodes)):
        fail("processes %s, not nodes 0..%d" % (sorted(procs), nodes - 1))
    for pid in range(nodes):
        names = set(threads[pid].values())
        if not {"main", "comm"} <= names:
            fail("node %d has threads %s, not main and comm" % (pid, sorted(names)))
    starts, ends = {}, Counter()
    names = Counter()
    for e in events:
        if e["ph"] == "M":
            continue
        if e["tid"] not in threads[e["pid"]]:
            fail("event on an unnamed thread: %s" % e)
        if not isinstance(e["ts"], (int, float)) or e.get("dur", 0) < 0:
            fail("bad time: %s" % e)
        names[e["name"]] += 1
        if e["ph"] == "s":
            if e["id"] in starts:
                fail("flow id %s starts twice" % e["id"])
            starts[e["id"]] = e["pid"]
        elif e["ph"] == "f":
            ends[e["id"]] += 1
    for fid, n in ends.items():
        if n != 1 or fid not in starts:
            fail("flow %s has %d ends and %s start" % (fid, n, "a" if fid in starts else "no"))
    dangling = [fid for fid in starts if fid not in ends]
    if dangling and not killed:
        fail("%d of %d flows have no end" % (len(dangling), len(starts)))
    clock = doc["otherData"]["clock"]
    if [c["node"] for c in clock] != list(range(nodes)) or \
            any("offset_ns" not in c for c in clock):
        fail("clock offsets missing: %s" % clock)
    for k in kinds:
        if not names[k]:
            fail("no '%s' slice" % k)
    received = 0
    if stats:
        with open(stats) as f:
            received = sum(json.loads(line)["messages_received"] for line in f)
        if len(ends) < received:
            fail("%d flows for %d messages received" % (len(ends), received))
    print("trace_check: %d nodes, %d threads, %d events, %d flows (%d received by the "
          "counters), %d without an end" % (nodes, sum(len(t) for t in threads.values()),
                                           len(events), len(ends), received, len(dangling)))


main()
