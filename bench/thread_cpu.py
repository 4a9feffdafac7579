#!/usr/bin/env python3
"""Where a job's CPU goes, thread by thread: runs a command (a tsrun or
mpirun job) and samples /proc/PID/task/*/ of every process below it until
it exits, keeping each thread's last CPU time (utime + stime) and context
switches, so the comm threads' share shows beside the computing ones'.

    python3 bench/thread_cpu.py [--interval S] [--match NAME] -- COMMAND...

Prints to stderr one line per thread of the processes whose name contains
NAME (default: the name of the last executable file in COMMAND, the
program tsrun or mpirun starts), the main thread marked: CPU seconds,
voluntary and involuntary context switches. A thread's figures are those
of its last sample, up to --interval before it exited."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def children(root: int) -> list[int]:
    """Every process below root (ppid chains), read from /proc."""
    parent = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        parent[int(name)] = int(stat[stat.rindex(")") + 2:].split()[1])
    below, todo = [], [root]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        below += kids
        todo += kids
    return below


def comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def sample_thread(pid: int, tid: int) -> tuple[float, int, int] | None:
    try:
        with open(f"/proc/{pid}/task/{tid}/stat") as f:
            stat = f.read()
        with open(f"/proc/{pid}/task/{tid}/status") as f:
            status = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICK  # utime, stime
    sw = {k: int(v) for k, v in (line.split(":\t") for line in status.splitlines()
                                 if line.startswith(("voluntary_ctxt", "nonvoluntary_ctxt")))}
    return cpu, sw["voluntary_ctxt_switches"], sw["nonvoluntary_ctxt_switches"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--interval", type=float, default=0.05)
    ap.add_argument("--match", help="only processes whose name contains this")
    ap.add_argument("command", nargs="+")
    cfg = ap.parse_args()
    match = cfg.match or os.path.basename(next(
        (a for a in reversed(cfg.command) if os.path.isfile(a) and os.access(a, os.X_OK)),
        cfg.command[0]))[:15]
    last: dict[tuple[int, int], tuple[float, int, int]] = {}
    job = subprocess.Popen(cfg.command)
    while job.poll() is None:
        for pid in children(job.pid):
            if match not in comm(pid):
                continue
            try:
                tids = sorted(int(t) for t in os.listdir(f"/proc/{pid}/task"))
            except OSError:
                continue
            for tid in tids:
                s = sample_thread(pid, tid)
                if s:
                    last[(pid, tid)] = s
        time.sleep(cfg.interval)
    print(f"# thread CPU of '{match}' processes (sampled every {cfg.interval} s)", file=sys.stderr)
    print(f"# {'pid':>7} {'tid':>7} {'role':<6} {'cpu_s':>7} {'vol_cs':>8} {'invol_cs':>8}",
          file=sys.stderr)
    for (pid, tid), (cpu, vol, invol) in sorted(last.items()):
        role = "main" if pid == tid else "other"
        print(f"  {pid:>7} {tid:>7} {role:<6} {cpu:7.2f} {vol:8d} {invol:8d}", file=sys.stderr)
    return job.returncode


if __name__ == "__main__":
    sys.exit(main())
