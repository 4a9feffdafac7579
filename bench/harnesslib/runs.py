"""Running: one run (its process, its RESULT line and counters, its verdict)
and the sweep over every planned run within the time budget."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .impls import (COUNTERS, MPI_IMPLS, MUNIN_APPS, NAUTILUS_APPS, TESSERA_IMPLS, App,
                    binary, command, shown)

# ---------------------------------------------------------------------------
# One run
# ---------------------------------------------------------------------------

@dataclass
class Run:
    app: str
    impl: str
    nodes: int
    rep: int
    size: str = ""
    seconds: float | None = None
    verified: str = "ERROR"                        # PASS, FAIL, ERROR or TIMEOUT
    counters: dict[str, int] = field(default_factory=dict)
    wall: float = 0.0                              # whole command, launch included
    note: str = ""                                 # why it failed / what was odd
    output_tail: str = ""                          # stderr (or stdout) tail of a failure

    @property
    def ok(self) -> bool:
        return self.verified == "PASS"


RESULT_RE = re.compile(r"^RESULT\s+(.*)$", re.MULTILINE)


def parse_results(stdout: str) -> list[dict[str, str]]:
    """All RESULT lines as key=value dicts (a program may print one per node)."""
    return [dict(kv.split("=", 1) for kv in m.group(1).split() if "=" in kv)
            for m in RESULT_RE.finditer(stdout)]


def read_stats(path: Path) -> tuple[dict[str, int], int]:
    """Sums the per-node JSON Lines of TSR_STATS_JSON; returns (sums, node lines)."""
    if not path.exists():
        return {}, 0
    sums = {col: 0 for col in COUNTERS}
    lines = 0
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue  # a torn line from a node that died mid-write
        lines += 1
        for col, key in COUNTERS.items():
            sums[col] += int(obj.get(key, 0) or 0)
    return (sums if lines else {}), lines


def run_process(cmd: list[str], env: dict[str, str], timeout: float):
    """Runs cmd in its own process group so that a timeout kills the launcher
    and every node or rank it started. Returns (rc or None on timeout, out, err)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True, errors="replace")
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err
    except subprocess.TimeoutExpired:
        out, err = kill_group(proc)
        return None, out, err
    except KeyboardInterrupt:
        # In its own session the group never saw the Ctrl-C: end it here.
        kill_group(proc)
        raise


def kill_group(proc: subprocess.Popen) -> tuple[str, str]:
    """SIGTERM, then SIGKILL, to the process group that proc leads; returns
    whatever output could still be collected."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            out, err = proc.communicate(timeout=5)
            return out or "", err or ""
        except subprocess.TimeoutExpired:
            continue
    return "", ""


def execute(cfg: argparse.Namespace, app: App, impl: str, nodes: int, rep: int) -> Run:
    """Runs one configuration once and records what it printed and counted."""
    run = Run(app.name, impl, nodes, rep)
    stat_lines = 0
    with tempfile.TemporaryDirectory(prefix="tsr-bench-") as tmp:
        stats_path = Path(tmp) / "stats.jsonl"  # fresh: nodes append to it
        env = dict(os.environ)
        env.pop("TSR_STATS", None)  # no stats table on stderr: the JSON has it all
        if impl in TESSERA_IMPLS:
            env["TSR_STATS_JSON"] = str(stats_path)
            env["TSR_WRITE_DETECT"] = TESSERA_IMPLS[impl][0]
            env["TSR_DETECT"] = TESSERA_IMPLS[impl][2]
            env["TSR_TRANSPORT"] = TESSERA_IMPLS[impl][3]
            env["TSR_PROTO"] = TESSERA_IMPLS[impl][4]
            env["TSR_FETCH"] = TESSERA_IMPLS[impl][5]
        if impl == "omp-native":
            env["OMP_NUM_THREADS"] = str(nodes)
        start = time.monotonic()
        rc, out, err = run_process(command(cfg, app, impl, nodes), env, cfg.timeout)
        run.wall = time.monotonic() - start
        if impl in TESSERA_IMPLS:
            run.counters, stat_lines = read_stats(stats_path)
    judge(run, rc, parse_results(out), cfg.timeout)
    if impl in TESSERA_IMPLS and run.ok and stat_lines != nodes:
        run.note = f"counters from {stat_lines} of {nodes} nodes"
    if not run.ok:
        # The program's own words may be on either stream (a launcher adds
        # its own on stderr), so show the end of both.
        run.output_tail = "\n".join(tail(text, n) for text, n in ((out, 5), (err, 12))
                                    if text.strip()) or tail("", 1)
    return run


def judge(run: Run, rc: int | None, results: list[dict[str, str]], timeout: float) -> None:
    """Sets run.seconds/size/verified/note from the exit status and RESULT lines."""
    if results:
        # With several RESULT lines (one per node) the slowest node's time is
        # the parallel time, and any FAIL fails the run.
        times = [float(r["seconds"]) for r in results if _is_float(r.get("seconds"))]
        run.seconds = max(times) if times else None
        run.size = results[0].get("size", "")
        verdicts = {r.get("verified", "") for r in results}
        run.verified = "PASS" if verdicts == {"PASS"} else "FAIL"
    if rc is None:
        run.verified, run.note = "TIMEOUT", f"killed after {timeout:g} s"
    elif not results:
        run.verified, run.note = "ERROR", f"exit {rc}, no RESULT line"
    elif rc != 0:
        # A FAIL exits 1 by convention; a PASS with a non-zero exit is a crash
        # after the check (in finalize, say), which is an error all the same.
        if run.verified == "PASS":
            run.verified = "ERROR"
        run.note = f"exit {rc}"
    elif run.seconds is None:
        run.verified, run.note = "ERROR", "RESULT line without seconds"


def _is_float(text: str | None) -> bool:
    try:
        float(text)  # type: ignore[arg-type]
        return True
    except (TypeError, ValueError):
        return False


def tail(text: str, n: int) -> str:
    lines = text.rstrip().splitlines()[-n:]
    return "\n".join("    | " + line for line in lines) if lines else "    | (no output)"


# ---------------------------------------------------------------------------
# The sweep
# ---------------------------------------------------------------------------

def userfaultfd_allowed() -> bool:
    """Whether TSR_DETECT=uffd may open a userfaultfd here (the kernel's
    features are checked by the run itself)."""
    try:
        unprivileged = Path("/proc/sys/vm/unprivileged_userfaultfd").read_text().strip() == "1"
    except OSError:
        unprivileged = False
    return (os.geteuid() == 0 or unprivileged
            or os.access("/dev/userfaultfd", os.R_OK | os.W_OK))


def plan(cfg: argparse.Namespace, apps: list[App]) -> tuple[list[tuple[App, str, int]], list[str]]:
    """(app, impl, nodes) of one repetition, and a note for each implementation
    that cannot run (binary not built, no MPI version): the rest still runs,
    so a half-built tree still gives the figures it can."""
    todo, skipped = [], []
    for app in apps:
        for impl in cfg.impls:
            if impl in MPI_IMPLS and not app.has_mpi:
                reason = "no MPI version"
            elif not os.access(binary(cfg, app, impl), os.X_OK):
                reason = f"{shown(binary(cfg, app, impl))} not built"
            elif impl in TESSERA_IMPLS and not os.access(cfg.tsrun, os.X_OK):
                reason = f"{shown(cfg.tsrun)} not built"
            elif impl == "tessera-uffd" and not userfaultfd_allowed():
                reason = ("userfaultfd not allowed (needs root, /dev/userfaultfd access or "
                          "vm.unprivileged_userfaultfd=1)")
            else:
                reason = ""
            if reason:
                # Both MPI transports share one binary: one note for the two.
                label = "MPI" if impl in MPI_IMPLS else impl
                note = f"{app.name} {label}: {reason}"
                if note not in skipped:
                    skipped.append(note)
                continue
            if (impl == "tessera-v" and app.name not in NAUTILUS_APPS and not cfg.detect_both
                    or impl == "tessera-lrc" and app.name not in NAUTILUS_APPS
                    or impl == "tessera-munin" and app.name not in MUNIN_APPS):
                continue
            nodes = ([1] if impl == "seq"
                     else cfg.nodes if impl in ("tessera", "tessera-lrc", "tessera-munin",
                                                "tessera-uffd", "tessera-shm", "tessera-direct",
                                                "tessera-udp", "tessera-omp", "omp-native")
                     else (cfg.nodes if cfg.detect_both else [max(cfg.nodes)])
                     if impl == "tessera-v" else cfg.mpi_nodes)
            todo += [(app, impl, n) for n in nodes]
    for note in skipped:
        print(f"harness: note: skipped {note}")
    return todo, skipped


def sweep(cfg: argparse.Namespace,
          todo: list[tuple[App, str, int]]) -> tuple[list[Run], bool]:
    """Runs every repetition of `todo`, repetition by repetition, so that noise
    (other load, thermal state) spreads over all configurations alike and a
    cut-short sweep still has every configuration. Returns (runs, interrupted);
    on Ctrl-C the runs so far are kept."""
    runs: list[Run] = []
    start = time.monotonic()
    total = len(todo) * cfg.reps
    last_wall: dict[tuple[str, str, int], float] = {}  # per configuration, last time
    try:
        for rep in range(1, cfg.reps + 1):
            for app, impl, nodes in todo:
                key = (app.name, impl, nodes)
                if over_budget(cfg, time.monotonic() - start, last_wall.get(key, 0.0), rep):
                    return runs, False
                runs.append(execute(cfg, app, impl, nodes, rep))
                last_wall[key] = runs[-1].wall
                report_progress(runs[-1], len(runs), total)
    except KeyboardInterrupt:
        print(f"\nharness: interrupted; writing the {len(runs)} runs so far")
        return runs, True
    return runs, False


def over_budget(cfg: argparse.Namespace, elapsed: float, expected: float, rep: int) -> bool:
    """Whether a run of repetition `rep`, taking as long as it did last time,
    would end past --budget. The first repetition always runs whole, so every
    configuration has at least one figure; later ones stop part-way."""
    if rep == 1 or cfg.budget is None or elapsed + expected <= cfg.budget:
        return False
    print(f"harness: note: {elapsed:.0f} s of the {cfg.budget:g} s budget used; "
          f"stopping in repetition {rep}")
    return True


def report_progress(run: Run, done: int, total: int) -> None:
    secs = f"{run.seconds:10.4f} s" if run.seconds is not None else " " * 12
    print(f"[{done:3d}/{total}] rep {run.rep} {run.app:<8} {run.impl:<8} n={run.nodes:<2} "
          f"{secs}  {run.verified:<7} (wall {run.wall:5.1f} s)", flush=True)
    if run.note:
        print(f"    {run.note}", flush=True)
    if run.output_tail:
        print(run.output_tail, flush=True)
