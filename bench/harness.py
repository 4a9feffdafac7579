#!/usr/bin/env python3
"""Tessera benchmark harness: every application, side by side.

Runs each application registered under apps/ as

    seq      the plain sequential C program              (1 process)
    tessera  the Tessera version under build/bin/tsrun    (1, 2, 4 nodes)
             (variants: tessera-v, tessera-munin, tessera-uffd, and
             tessera-shm and tessera-udp, over the shared-memory and
             datagram transports)
    mpi-shm  the MPI version, MPI's default transports    (2, 4 ranks)
    mpi-tcp  the MPI version, forced over TCP loopback    (2, 4 ranks)

several times each, and writes to bench/results/:

    <name>.csv           one row per run (columns: CSV_COLUMNS)
    <name>.md            medians, speedups, Tessera/MPI and Tessera/seq ratios,
                         and tables shaped like Munin's Tables 3 and 5 and
                         Nautilus' Table 1
    <name>-speedup.png   speedup per application   (needs matplotlib)
    <name>-traffic.png   Tessera traffic per application

Invoked from the repository root by `make bench` (--full) and
`make bench-quick` (--quick); see bench/README.md. Only the Python standard
library is required; matplotlib is optional and only draws the plots.

Every program prints one line

    RESULT app=sor impl=tessera nodes=4 size=1024x1024x50 seconds=1.234567 verified=PASS

whose `seconds` is the timed parallel section; that is the figure reported.
Tessera nodes append one JSON object each to $TSR_STATS_JSON, summed here for
the traffic columns. A run that prints no RESULT line, exits non-zero or times
out is recorded as FAIL/ERROR/TIMEOUT; the harness goes on with the other runs
and exits 1 at the end.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import math
import os
import platform
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

CSV_COLUMNS = ["app", "impl", "nodes", "size", "seconds", "speedup", "messages", "bytes",
               "read_faults", "write_faults", "page_fetches", "diffs", "diff_requests",
               "verified"]

# CSV column -> key of the per-node TSR_STATS_JSON object (summed over nodes).
COUNTERS = {
    "messages": "messages_sent",
    "bytes": "bytes_sent",
    "read_faults": "read_faults",
    "write_faults": "write_faults",
    "page_fetches": "page_fetches",
    "diffs": "diffs_created",
    "diff_requests": "diff_requests",
}

IMPLS = ("seq", "tessera", "tessera-v", "tessera-lrc", "tessera-munin", "tessera-uffd",
         "tessera-shm", "tessera-udp", "mpi-shm", "mpi-tcp")
MPI_IMPLS = ("mpi-shm", "mpi-tcp")
# Tessera variants: (TSR_WRITE_DETECT, extra program arguments, TSR_DETECT,
# TSR_TRANSPORT, TSR_PROTO).
#   tessera        the default: home-based LRC with Nautilus' cache-only
#                  write detection ("NautCO")
#   tessera-v      every home write detected ("NautV"), which Nautilus'
#                  Table 1 compares; its applications only, largest node count
#   tessera-lrc    TreadMarks' homeless lazy protocol (TSR_PROTO=lrc), the
#                  system Nautilus compared itself with; its applications only
#   tessera-munin  the app's data under Munin's annotations (--munin), which
#                  Munin's Tables 3 and 5 compare with message passing
#   tessera-uffd   the default with access detection by userfaultfd, and so
#                  exact home write detection, against SIGSEGV (TSR_DETECT)
#   tessera-shm    the default over the shared-memory transport, against TCP
#                  (TSR_TRANSPORT): the backend column
#   tessera-udp    the default over UDP with Tessera's own reliability
TESSERA_IMPLS = {"tessera": ("cache-only", [], "segv", "tcp", "hlrc"),
                 "tessera-v": ("all", [], "segv", "tcp", "hlrc"),
                 "tessera-lrc": ("cache-only", [], "segv", "tcp", "lrc"),
                 "tessera-munin": ("cache-only", ["--munin"], "segv", "tcp", "hlrc"),
                 "tessera-uffd": ("cache-only", [], "uffd", "tcp", "hlrc"),
                 "tessera-shm": ("cache-only", [], "segv", "shm", "hlrc"),
                 "tessera-udp": ("cache-only", [], "segv", "udp", "hlrc")}
NAUTILUS_APPS = ("lu", "water", "sor")
MUNIN_APPS = ("mm", "sor")

README_BEGIN = "<!-- results:begin -->"
README_END = "<!-- results:end -->"

REPO_ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------

def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Run every Tessera application as seq, Tessera and MPI and "
                    "write bench/results/<name>.{csv,md,png}.")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true",
                      help="small inputs (NAME_QUICK_ARGS), aims at < 3 minutes")
    mode.add_argument("--full", action="store_true",
                      help="benchmark inputs (NAME_BENCH_ARGS); the default")
    p.add_argument("--reps", type=int, help="repetitions of every run "
                   "(default: 3 full, 2 quick, cut to what fits --budget)")
    p.add_argument("--apps", help="comma-separated applications (default: all in `make print-APPS`)")
    p.add_argument("--nodes", default="1,2,4", help="Tessera node counts (default 1,2,4)")
    p.add_argument("--mpi-nodes", help="MPI rank counts (default: the --nodes above 1)")
    p.add_argument("--impls", default=",".join(IMPLS),
                   help=f"implementations to run (default {','.join(IMPLS)})")
    p.add_argument("--detect-both", action="store_true",
                   help="run tessera-v for every application at every Tessera node count "
                        "(not only Nautilus' three at the largest), for choosing the default "
                        "write detection")
    p.add_argument("--name", help="results base name (default: quick or full)")
    p.add_argument("--timeout", type=float, help="seconds per run (default 300 full, 60 quick)")
    p.add_argument("--budget", type=float,
                   help="seconds for the whole sweep: after the first repetition, no run is "
                        "started that would end past it (default 150 quick, none full)")
    p.add_argument("--from-csv", action="store_true",
                   help="run nothing: rebuild the report, plots (and with --update-readme the "
                        "README section) from bench/results/NAME.csv of an earlier run")
    p.add_argument("--update-readme", action="store_true",
                   help=f"rewrite bench/README.md between {README_BEGIN} and {README_END}")
    # Where things are; overridable so the harness can be tried on fake programs.
    p.add_argument("--root", type=Path, default=REPO_ROOT,
                   help="repository root whose Makefile lists the apps (default: this checkout)")
    p.add_argument("--bin-dir", type=Path, help="application binaries (default ROOT/build/apps)")
    p.add_argument("--tsrun", type=Path, help="Tessera launcher (default ROOT/build/bin/tsrun)")
    p.add_argument("--mpirun", default="mpirun", help="MPI launcher (default mpirun)")
    p.add_argument("--out-dir", type=Path, help="results directory (default ROOT/bench/results)")
    p.add_argument("--readme", type=Path, help="README to update (default ROOT/bench/README.md)")
    p.add_argument("--make", default=os.environ.get("MAKE", "make"), help="make program")
    args = p.parse_args(argv)

    args.quick = bool(args.quick)
    args.name = args.name or ("quick" if args.quick else "full")
    if args.reps is None:
        args.reps = 2 if args.quick else 3
    if args.timeout is None:
        args.timeout = 60.0 if args.quick else 300.0
    if args.budget is None and args.quick:
        args.budget = 150.0
    args.nodes = parse_int_list(args.nodes, "--nodes")
    args.mpi_nodes = (parse_int_list(args.mpi_nodes, "--mpi-nodes") if args.mpi_nodes
                      else [n for n in args.nodes if n > 1])
    args.impls = [i for i in args.impls.split(",") if i]
    unknown = set(args.impls) - set(IMPLS)
    if unknown:
        p.error(f"unknown --impls {','.join(sorted(unknown))}; choose from {','.join(IMPLS)}")
    args.apps = [a for a in args.apps.split(",") if a] if args.apps else None
    args.root = args.root.resolve()
    args.bin_dir = (args.bin_dir or args.root / "build" / "apps").resolve()
    args.tsrun = (args.tsrun or args.root / "build" / "bin" / "tsrun").resolve()
    args.out_dir = (args.out_dir or args.root / "bench" / "results").resolve()
    args.readme = (args.readme or args.root / "bench" / "README.md").resolve()
    if args.reps < 1:
        p.error("--reps must be at least 1")
    return args


def parse_int_list(text: str, what: str) -> list[int]:
    try:
        values = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        sys.exit(f"harness: {what} wants comma-separated integers, got '{text}'")
    if not values or values[0] < 1:
        sys.exit(f"harness: {what} wants positive integers, got '{text}'")
    return values


# ---------------------------------------------------------------------------
# Applications, as the Makefile registers them
# ---------------------------------------------------------------------------

@dataclass
class App:
    name: str
    args: list[str]   # command-line arguments for this mode (quick or full)
    has_mpi: bool     # NAME_MPI_SRCS is non-empty


def make_vars(cfg: argparse.Namespace, names: list[str]) -> list[str]:
    """Values of make variables, read through the Makefile's `print-VAR` rule,
    so the harness sees exactly what the build sees (one make call for all)."""
    if not names:
        return []
    cmd = [cfg.make, "-s", "--no-print-directory", "-C", str(cfg.root)]
    cmd += [f"print-{n}" for n in names]
    # Under `make bench` the parent's flags and jobserver would leak into this
    # make (directory banners, jobserver warnings): read the Makefile afresh.
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    if out.returncode != 0:
        sys.exit(f"harness: `{' '.join(cmd)}` failed:\n{out.stderr}")
    lines = out.stdout.split("\n")
    if len(lines) < len(names):
        sys.exit(f"harness: `{' '.join(cmd)}` printed {len(lines)} lines for {len(names)} variables")
    return [line.strip() for line in lines[:len(names)]]


def discover_apps(cfg: argparse.Namespace) -> list[App]:
    registered = make_vars(cfg, ["APPS"])[0].split()
    names = registered
    if cfg.apps:
        unknown = [a for a in cfg.apps if a not in registered]
        if unknown:
            sys.exit(f"harness: --apps {','.join(unknown)}: not registered in apps/*/app.mk "
                     f"(registered: {' '.join(registered) or 'none'})")
        names = cfg.apps
    suffix = "QUICK_ARGS" if cfg.quick else "BENCH_ARGS"
    wanted = []
    for n in names:
        wanted += [f"{n}_{suffix}", f"{n}_MPI_SRCS"]
    values = make_vars(cfg, wanted)
    return [App(n, shlex.split(values[2 * i]), bool(values[2 * i + 1]))
            for i, n in enumerate(names)]


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


def binary(cfg: argparse.Namespace, app: App, impl: str) -> Path:
    suffix = "_seq" if impl == "seq" else "" if impl in TESSERA_IMPLS else "_mpi"
    return cfg.bin_dir / f"{app.name}{suffix}"


def command(cfg: argparse.Namespace, app: App, impl: str, nodes: int) -> list[str]:
    exe = str(binary(cfg, app, impl))
    if impl == "seq":
        return [exe, *app.args]
    if impl in TESSERA_IMPLS:
        return [str(cfg.tsrun), "-n", str(nodes), exe, *TESSERA_IMPLS[impl][1], *app.args]
    mpi = [cfg.mpirun, "--allow-run-as-root", "--oversubscribe", "-np", str(nodes)]
    if impl == "mpi-tcp":
        # Only the TCP byte transfer layer (plus self); pinned to loopback so
        # the traffic stays on this machine and the route is the same each run.
        mpi += ["--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo"]
    return [*mpi, exe, *app.args]


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
                                                "tessera-uffd", "tessera-shm", "tessera-udp")
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


# ---------------------------------------------------------------------------
# Medians
# ---------------------------------------------------------------------------

@dataclass
class Cell:
    """Medians of the passing runs of one (app, impl, nodes)."""
    seconds: float | None
    counters: dict[str, float]
    size: str
    passed: int
    total: int


Key = tuple[str, str, int]


def summarize(runs: list[Run]) -> dict[Key, Cell]:
    groups: dict[Key, list[Run]] = {}
    for r in runs:
        groups.setdefault((r.app, r.impl, r.nodes), []).append(r)
    cells = {}
    for key, group in groups.items():
        good = [r for r in group if r.ok]  # a wrong answer's time means nothing
        secs = [r.seconds for r in good if r.seconds is not None]
        counters = {}
        for col in COUNTERS:
            vals = [r.counters[col] for r in good if col in r.counters]
            if vals:
                counters[col] = statistics.median(vals)
        size = next((r.size for r in group if r.size), "")
        cells[key] = Cell(statistics.median(secs) if secs else None, counters, size,
                          len(good), len(group))
    return cells


def seq_medians(cells: dict[Key, Cell]) -> dict[str, float]:
    return {app: c.seconds for (app, impl, _), c in cells.items()
            if impl == "seq" and c.seconds}


# ---------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------

def read_csv(path: Path) -> list[Run]:
    """The runs a CSV written by write_csv records (what --from-csv reports on)."""
    with path.open(newline="") as f:
        return [Run(row["app"], row["impl"], int(row["nodes"]), 0, row["size"],
                    float(row["seconds"]) if row["seconds"] else None, row["verified"],
                    {col: int(row[col]) for col in COUNTERS if row[col]})
                for row in csv.DictReader(f)]


def write_csv(path: Path, runs: list[Run], seq: dict[str, float]) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLUMNS)
        for r in runs:
            speedup = (seq[r.app] / r.seconds
                       if r.app in seq and r.seconds and r.ok else None)
            w.writerow([r.app, r.impl, r.nodes, r.size,
                        "" if r.seconds is None else f"{r.seconds:.6f}",
                        "" if speedup is None else f"{speedup:.3f}",
                        *[r.counters.get(col, "") for col in COUNTERS],
                        r.verified])


# ---------------------------------------------------------------------------
# The machine
# ---------------------------------------------------------------------------

def machine_info(cfg: argparse.Namespace) -> dict[str, str | int]:
    info: dict[str, str | int] = {
        "cores": os.cpu_count() or 1,
        "kernel": platform.release(),
        "cpu": platform.processor() or platform.machine(),
        "memory": "",
        "mpi": "",
        "python": platform.python_version(),
    }
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                info["memory"] = f"{int(line.split()[1]) / 2**20:.1f} GiB"
                break
    except OSError:
        pass
    try:
        out = subprocess.run([cfg.mpirun, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
        info["mpi"] = out.strip().splitlines()[0] if out.strip() else ""
    except (OSError, subprocess.SubprocessError):
        info["mpi"] = "not found"
    return info


# ---------------------------------------------------------------------------
# Markdown report
# ---------------------------------------------------------------------------

def fmt_s(x: float | None) -> str:
    """Seconds to four significant digits: quick runs take milliseconds."""
    if x is None:
        return "—"
    text = f"{x:#.4g}"  # '#' keeps trailing zeros so that columns line up
    return text.rstrip(".") if "e" not in text else text


def fmt_x(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def fmt_n(x: float | None) -> str:
    return "—" if x is None else f"{int(round(x)):,}"


def fmt_bytes(x: float | None) -> str:
    if x is None:
        return "—"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if x >= scale:
            return f"{x / scale:.1f} {unit}"
    return f"{int(x)} B"


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def pct_diff(a: float | None, b: float | None) -> str:
    return "—" if not (a and b) else f"{100.0 * (a - b) / b:+.1f}"


def table(header: list[str], rows: list[list[str]], align: str = "") -> str:
    """A Markdown table; `align` has one letter per column (l or r, default r)."""
    if not rows:
        return "_(nothing measured)_"
    align = align.ljust(len(header), "r")
    sep = ["---" if a == "l" else "--:" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


class Report:
    """Builds the Markdown from the medians; `star(n)` marks oversubscription."""

    def __init__(self, cfg, machine, cells: dict[Key, Cell], runs: list[Run],
                 apps: list[str], skipped: list[str]):
        self.cfg = cfg
        self.skipped = skipped
        self.machine = machine
        self.cells = cells
        self.runs = runs
        self.apps = apps
        self.cores = int(machine["cores"])
        self.seq = seq_medians(cells)
        self.oversubscribed = False

    def secs(self, app: str, impl: str, nodes: int) -> float | None:
        c = self.cells.get((app, impl, nodes))
        return c.seconds if c else None

    def counter(self, app: str, nodes: int, col: str, impl: str = "tessera") -> float | None:
        c = self.cells.get((app, impl, nodes))
        return c.counters.get(col) if c else None

    def star(self, nodes: int, text: str) -> str:
        """Marks a figure taken with more nodes (processes) than cores."""
        if nodes > self.cores:
            self.oversubscribed = True
            return text + "*" if text != "—" else text
        return text

    def node_counts(self, app: str) -> list[int]:
        return sorted({n for (a, impl, n) in self.cells if a == app and impl != "seq"} | {1})

    def has(self, app: str, impl: str) -> bool:
        return any(a == app and i == impl for (a, i, _) in self.cells)

    def repetitions(self) -> str:
        counts = [c.total for c in self.cells.values()] or [0]
        lo, hi = min(counts), max(counts)
        if lo == hi:
            return str(lo)
        return f"{lo} to {hi} (the time budget cut the last repetition short)"

    # -- sections ------------------------------------------------------------

    def header(self) -> str:
        m = self.machine
        mode = "quick (small inputs)" if self.cfg.quick else "full"
        return "\n".join([
            f"Machine: {m['cores']} cores ({m['cpu']}), {m['memory']} memory, "
            f"Linux {m['kernel']}; {m['mpi']}.  ",
            f"Mode: {mode}; repetitions of each run: {self.repetitions()}; figures are "
            f"medians of the passing runs; {dt.datetime.now().strftime('%Y-%m-%d %H:%M')}.  ",
            "Times are the timed parallel section each program reports (seconds). "
            "speedup = t(seq) / t; ratios above 1 mean Tessera is slower.",
        ])

    def summary(self) -> str:
        rows = []
        for app in self.apps:
            seq = self.seq.get(app)
            for i, n in enumerate(self.node_counts(app)):
                t = self.secs(app, "tessera", n)
                shm = self.secs(app, "mpi-shm", n)
                tcp = self.secs(app, "mpi-tcp", n)
                size = self.cells.get((app, "seq", 1)) or self.cells.get((app, "tessera", n))
                rows.append([
                    app if i == 0 else "", (size.size if size else "") if i == 0 else "",
                    self.star(n, str(n)),
                    fmt_s(seq) if n == 1 else "",
                    self.star(n, fmt_s(t)), self.star(n, fmt_s(shm)), self.star(n, fmt_s(tcp)),
                    self.star(n, fmt_x(ratio(seq, t))), self.star(n, fmt_x(ratio(seq, shm))),
                    self.star(n, fmt_x(ratio(seq, tcp))),
                    self.star(n, fmt_x(ratio(t, shm))), self.star(n, fmt_x(ratio(t, tcp))),
                    self.star(n, fmt_x(ratio(t, seq))),
                ])
        return table(["app", "size", "nodes", "seq s", "Tessera s", "MPI-shm s", "MPI-tcp s",
                      "speedup Tessera", "speedup MPI-shm", "speedup MPI-tcp",
                      "Tessera/MPI-shm", "Tessera/MPI-tcp", "Tessera/seq"], rows, "lll")

    def traffic(self) -> str:
        rows = []
        for app in self.apps:
            for n in self.node_counts(app):
                c = self.cells.get((app, "tessera", n))
                if not c:
                    continue
                g = c.counters.get
                rows.append([app, self.star(n, str(n)), fmt_n(g("messages")),
                             fmt_bytes(g("bytes")), fmt_n(g("read_faults")),
                             fmt_n(g("write_faults")), fmt_n(g("page_fetches")),
                             fmt_n(g("diffs")), f"{c.passed}/{c.total}"])
        return table(["app", "nodes", "messages", "bytes", "read faults", "write faults",
                      "page fetches", "diffs", "passed"], rows, "ll")

    def munin(self, app: str, number: int, title: str) -> str:
        """Munin's Tables 3 (MM) and 5 (SOR): message passing vs DSM time for
        1..N processors and their difference. The 1-processor row holds the
        sequential program in the message-passing column, as in the paper."""
        if not (self.has(app, "tessera") or self.has(app, "seq")):
            return ""
        rows = []
        for n in self.node_counts(app):
            if n == 1:
                mp_tcp = mp_shm = self.seq.get(app)
            else:
                mp_tcp, mp_shm = self.secs(app, "mpi-tcp", n), self.secs(app, "mpi-shm", n)
            t, tm = self.secs(app, "tessera", n), self.secs(app, "tessera-munin", n)
            rows.append([self.star(n, str(n)), self.star(n, fmt_s(mp_tcp)),
                         self.star(n, fmt_s(mp_shm)), self.star(n, fmt_s(t)),
                         self.star(n, fmt_s(tm)), self.star(n, pct_diff(tm, mp_tcp)),
                         self.star(n, pct_diff(tm, mp_shm)), self.star(n, pct_diff(t, mp_shm))])
        size = self.cells.get((app, "seq", 1))
        cap = (f"**Munin Table {number} shape: performance of {title} "
               f"({app}{', ' + size.size if size and size.size else ''}), seconds.** "
               "Munin compared its annotated DSM against hand-coded message passing over "
               "Ethernet; here Tessera-Munin is the app under the paper's annotations "
               "(--munin), Tessera the same app under the default home-based protocol, and "
               "MPI-tcp the closest analogue of the paper's message passing. "
               "% diff = (DSM − MP) / MP. At 1 processor MP is the sequential program.")
        return cap + "\n\n" + table(["# of procs", "MP total (MPI-tcp)", "MP total (MPI-shm)",
                                     "Tessera total", "Tessera-Munin total",
                                     "Munin % diff vs tcp", "Munin % diff vs shm",
                                     "Tessera % diff vs shm"], rows)

    def nautilus(self) -> str:
        """Nautilus' Table 1: t(1) sequential, then per node count and protocol
        (home-based cache-only, home-based all-writes, TreadMarks' lazy LRC)
        t(N), speedup, SIGSEGVs (our write faults), remote page or diff
        requests, messages and bytes, side by side."""
        apps = [a for a in ("lu", "water", "sor") if a in self.apps]
        if not apps:
            return ""
        nodes = sorted({n for a in apps for n in self.node_counts(a) if n > 1})
        rows = [["t(1) seq"] + [fmt_s(self.seq.get(a)) for a in apps]]
        variants = (("tessera", "Tessera"), ("tessera-v", "Tessera-V"), ("tessera-lrc", "LRC"))
        for n in nodes:
            rows.append([self.star(n, f"t({n}) MPI-shm")]
                        + [self.star(n, fmt_s(self.secs(a, "mpi-shm", n))) for a in apps])
            for impl, name in variants:
                t = {a: self.secs(a, impl, n) for a in apps}
                if not any(t.values()):
                    continue
                requests = "diff_requests" if impl == "tessera-lrc" else "page_fetches"

                def line(label: str, cell) -> list[str]:
                    return [self.star(n, f"{label}({n}) {name}")] + [self.star(n, cell(a)) for a in apps]
                rows.append(line("t", lambda a: fmt_s(t[a])))
                rows.append(line("Sp", lambda a: fmt_x(ratio(self.seq.get(a), t[a]))))
                rows.append(line("SG", lambda a: fmt_n(self.counter(a, n, "write_faults", impl))))
                rows.append(line("gp", lambda a: fmt_n(self.counter(a, n, requests, impl))))
                rows.append(line("msgs", lambda a: fmt_n(self.counter(a, n, "messages", impl))))
                rows.append(line("bytes", lambda a: fmt_n(self.counter(a, n, "bytes", impl))))
        cap = ("**Nautilus Table 1 shape: sequential time, then per protocol the time, "
               "speedup, write faults (Nautilus' SG, local SIGSEGVs on writes), remote "
               "requests (gp: page fetches of the home-based protocol, diff requests of the "
               "lazy one), messages and bytes, summed over nodes.** Tessera rows use the "
               "home-based protocol with cache-only write detection (Nautilus' NautCO, "
               "Tessera's default); Tessera-V rows detect every home write (NautV, "
               "TSR_WRITE_DETECT=all); LRC rows run TreadMarks' homeless lazy protocol "
               "(TSR_PROTO=lrc), the system Nautilus measured itself against. Nautilus "
               "reported 8 nodes; the MPI-shm row is the message-passing reference.")
        return cap + "\n\n" + table(["application"] + apps, rows, "l")

    def versus(self, other: str, names: tuple[str, str], caption: str) -> str:
        """The default Tessera against the variant `other` over every application
        measured under both (named names[0] and names[1] in the columns)."""
        keys = sorted((a, n) for (a, i, n) in self.cells if i == other
                      and (a, "tessera", n) in self.cells)
        if len({a for a, _ in keys}) < 2:
            return ""
        rows = []
        for a, n in keys:
            t, to = self.secs(a, "tessera", n), self.secs(a, other, n)
            rows.append([a, self.star(n, str(n)), fmt_s(t), fmt_s(to), fmt_x(ratio(t, to)),
                         fmt_n(self.counter(a, n, "write_faults")),
                         fmt_n(self.counter(a, n, "write_faults", other))])
        rs = [ratio(self.secs(a, "tessera", n), self.secs(a, other, n)) for a, n in keys]
        rs = [r for r in rs if r]
        geo = math.exp(sum(math.log(r) for r in rs) / len(rs)) if rs else None
        cap = caption + (f" ratio = {names[0]} time / {names[1]} time; geometric mean "
                         f"{fmt_x(geo)}.")
        return cap + "\n\n" + table(["application", "nodes", f"{names[0]} s", f"{names[1]} s",
                                      "ratio", f"write faults {names[0]}",
                                      f"write faults {names[1]}"], rows, "l")

    def detection(self) -> str:
        """Both home write detection modes: the figures that choose the default
        (TSR_WRITE_DETECT)."""
        return self.versus("tessera-v", ("cache-only", "all"),
                           "**Write detection across the suite: cache-only (the default, "
                           "Nautilus' NautCO) against every home write detected "
                           "(TSR_WRITE_DETECT=all, NautV).**")

    def access(self) -> str:
        """Both access detection backends (TSR_DETECT): the figures that choose
        the default."""
        return self.versus("tessera-uffd", ("segv", "uffd"),
                           "**Access detection across the suite: SIGSEGV and mprotect (the "
                           "default) against userfaultfd with exact home write detection "
                           "(TSR_DETECT=uffd).**")

    def transport(self) -> str:
        """The transport backends (TSR_TRANSPORT): the figures that choose
        the default."""
        tables = [self.versus("tessera-shm", ("tcp", "shm"),
                              "**Transport across the suite: TCP (the default) against "
                              "shared-memory rings (TSR_TRANSPORT=shm).**"),
                  self.versus("tessera-udp", ("tcp", "udp"),
                              "**Transport across the suite: TCP (the default) against "
                              "UDP with Tessera's own reliability (TSR_TRANSPORT=udp).**")]
        return "\n\n".join(t for t in tables if t)

    def failures(self) -> str:
        bad = [r for r in self.runs if not r.ok]
        lines = []
        if self.skipped:
            lines += ["Not run: " + "; ".join(self.skipped) + ".", ""]
        if not bad:
            return "\n".join(lines + [f"All {len(self.runs)} runs verified (PASS)."])
        lines += [f"{len(bad)} of {len(self.runs)} runs did not pass:", ""]
        for r in bad:
            lines.append(f"- {r.app} {r.impl} n={r.nodes} rep {r.rep}: {r.verified}"
                         + (f" ({r.note})" if r.note else ""))
        return "\n".join(lines)

    def render(self, level: int = 2) -> str:
        h = "#" * level
        parts = [self.header(),
                 f"{h} Times, speedups and ratios", self.summary(),
                 f"{h} Tessera traffic (medians, all nodes together)", self.traffic(),
                 f"{h} Against the papers"]
        parts += [s for s in (self.munin("mm", 3, "Matrix Multiply"),
                              self.munin("sor", 5, "SOR"), self.nautilus(), self.detection(),
                              self.access(), self.transport()) if s]
        parts += [f"{h} Verification", self.failures()]
        if self.oversubscribed:
            parts.append(f"\\* more nodes (processes) than the machine's {self.cores} cores: "
                         "the processes time-share cores, so these figures measure "
                         "oversubscription, not parallel speedup.")
        return "\n\n".join(parts) + "\n"


# ---------------------------------------------------------------------------
# Plots (optional: matplotlib)
# ---------------------------------------------------------------------------

def load_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")  # no display on a benchmark machine
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print("harness: note: matplotlib not installed (pip install matplotlib); plots skipped")
        return None


HEADER_IN = 0.45  # inches above the panels for the title and the shared legend


def legend_entries(axes) -> tuple[list, list[str]]:
    """Legend entries of all panels, once each: a panel may lack a line (an
    application without an MPI version), so no single panel has them all."""
    seen: dict[str, object] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    labels = sorted(seen, key=lambda label: label == "ideal")  # the reference line last
    return [seen[label] for label in labels], labels


def place_header(fig, height: float, handles, labels) -> None:
    """Title and one legend for all panels above them, where it hides no data;
    placed in inches so that it looks the same for one row or many."""
    fig.legend(handles, labels, loc="upper center", ncol=max(1, len(labels)),
               fontsize="small", bbox_to_anchor=(0.5, 1 - 0.3 / height))
    fig.tight_layout(rect=(0, 0, 1, 1 - HEADER_IN / height))


def plot_speedup(plt, path: Path, cells: dict[Key, Cell], apps: list[str], cores: int) -> None:
    seq = seq_medians(cells)
    cols = min(4, max(1, len(apps)))
    rows = (len(apps) + cols - 1) // cols
    height = 3.0 * rows + HEADER_IN
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, height), squeeze=False)
    styles = {"tessera": ("o-", "C0", "Tessera"), "tessera-munin": ("d-", "C3", "Tessera-Munin"),
              "tessera-uffd": ("v-", "C4", "Tessera (TSR_DETECT=uffd)"),
              "tessera-shm": ("x-", "C5", "Tessera (TSR_TRANSPORT=shm)"),
              "tessera-udp": ("+-", "C6", "Tessera (TSR_TRANSPORT=udp)"),
              "mpi-shm": ("s--", "C1", "MPI-shm"), "mpi-tcp": ("^:", "C2", "MPI-tcp")}
    for ax, app in zip(axes.flat, apps):
        all_n = sorted({n for (a, _, n) in cells if a == app} | {1})
        for impl, (style, color, label) in styles.items():
            pts = [(n, seq[app] / cells[(app, impl, n)].seconds) for n in all_n
                   if app in seq and (app, impl, n) in cells and cells[(app, impl, n)].seconds]
            if pts:
                ax.plot(*zip(*pts), style, color=color, label=label)
        ax.plot(all_n, all_n, color="0.7", linewidth=0.8, label="ideal")
        if all_n[-1] > cores:  # the shaded part ran with more processes than cores
            ax.axvspan(cores + 0.5, all_n[-1] + 0.5, color="0.92", zorder=0)
        ax.set_title(app)
        ax.set_xticks(all_n)
        ax.set_xlabel("nodes / ranks")
        ax.set_ylabel("speedup over seq")
        ax.set_ylim(bottom=0)
    for ax in list(axes.flat)[len(apps):]:
        ax.axis("off")
    # One legend for all panels, above them, where it hides no data.
    handles, labels = legend_entries(axes.flat)
    fig.suptitle(f"Speedup over sequential (medians; shaded: more processes than the "
                 f"{cores} cores)")
    place_header(fig, height, handles, labels)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_traffic(plt, path: Path, cells: dict[Key, Cell], apps: list[str]) -> None:
    nodes = sorted({n for (_, impl, n) in cells if impl == "tessera"})
    panels = [("messages", "messages sent", 1), ("bytes", "MiB sent", 2**20),
              ("page_fetches", "page fetches", 1), ("write_faults", "write faults", 1)]
    height = 3.6 + HEADER_IN
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), height))
    width = 0.8 / max(1, len(nodes))
    for ax, (col, label, scale) in zip(axes, panels):
        for j, n in enumerate(nodes):
            vals = [(cells[(a, "tessera", n)].counters.get(col, 0) / scale
                     if (a, "tessera", n) in cells else 0) for a in apps]
            ax.bar([i + (j - (len(nodes) - 1) / 2) * width for i in range(len(apps))], vals,
                   width, label=f"{n} node{'s' if n > 1 else ''}")
        ax.set_xticks(range(len(apps)))
        ax.set_xticklabels(apps, rotation=45, ha="right")
        ax.set_title(label)
        if any(c.counters.get(col, 0) > 0 for c in cells.values()):
            # Apps differ by orders of magnitude; symlog keeps zeros drawable.
            ax.set_yscale("symlog", linthresh=1)
            ax.set_ylim(bottom=0)
    handles, labels = legend_entries(axes)
    fig.suptitle("Tessera traffic per application (medians, all nodes together)")
    place_header(fig, height, handles, labels)
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------
# README
# ---------------------------------------------------------------------------

def update_readme(path: Path, body: str, cfg: argparse.Namespace) -> None:
    if not path.exists():
        print(f"harness: note: {path} missing; README not updated")
        return
    text = path.read_text()
    b, e = text.find(README_BEGIN), text.find(README_END)
    if b < 0 or e < b:
        print(f"harness: note: {path} lacks {README_BEGIN} ... {README_END}; not updated")
        return
    plots = ""
    for kind in ("speedup", "traffic"):
        png = cfg.out_dir / f"{cfg.name}-{kind}.png"
        if png.exists():
            plots += f"![{kind}]({os.path.relpath(png, path.parent)})\n\n"
    gen = (f"_Written by `python3 bench/harness.py {'--quick' if cfg.quick else '--full'} "
           f"--update-readme`; CSV: `bench/results/{cfg.name}.csv`._\n\n")
    path.write_text(text[:b + len(README_BEGIN)] + "\n" + gen + body + "\n" + plots
                    + text[e:])
    print(f"harness: updated {path}")


# ---------------------------------------------------------------------------

def shown(path: Path) -> str:
    """A path relative to the working directory when it lies below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def write_plots(cfg: argparse.Namespace, cells: dict[Key, Cell], apps: list[str],
                cores: int) -> list[Path]:
    """Draws the PNGs; returns those written. Old ones of this name are removed
    first, so that a run without matplotlib leaves no stale picture behind."""
    paths = {kind: cfg.out_dir / f"{cfg.name}-{kind}.png" for kind in ("speedup", "traffic")}
    for png in paths.values():
        png.unlink(missing_ok=True)
    plt = load_pyplot() if apps else None
    if not plt:
        return []
    written = []
    for kind, draw in (("speedup", lambda p: plot_speedup(plt, p, cells, apps, cores)),
                       ("traffic", lambda p: plot_traffic(plt, p, cells, apps))):
        try:
            draw(paths[kind])
            written.append(paths[kind])
        except Exception as exc:  # a plot must never cost the results
            print(f"harness: note: {kind} plot failed: {exc}")
    return written


def write_outputs(cfg: argparse.Namespace, machine: dict, apps: list[App], runs: list[Run],
                  skipped: list[str]) -> Report:
    """CSV, Markdown, plots and (with --update-readme) the README section."""
    cells = summarize(runs)
    ran_apps = [a.name for a in apps if any(r.app == a.name for r in runs)]
    cfg.out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = cfg.out_dir / f"{cfg.name}.csv"
    write_csv(csv_path, runs, seq_medians(cells))
    report = Report(cfg, machine, cells, runs, ran_apps, skipped)
    md_path = cfg.out_dir / f"{cfg.name}.md"
    md_path.write_text(f"# Tessera benchmark: {cfg.name}\n\n" + report.render(level=2))
    written = [csv_path, md_path] + write_plots(cfg, cells, ran_apps, report.cores)
    if cfg.update_readme:
        update_readme(cfg.readme, report.render(level=3), cfg)
    print()
    print(report.render(level=2))
    print("harness: wrote " + ", ".join(shown(p) for p in written))
    return report


def main(argv: list[str]) -> int:
    cfg = parse_args(argv)
    apps = discover_apps(cfg)
    if not apps:
        print("harness: no applications registered (apps/*/app.mk); nothing to run")
    todo, skipped = plan(cfg, apps)
    machine = machine_info(cfg)
    print(f"harness: {len(todo)} runs x {cfg.reps} repetition(s); {machine['cores']} cores, "
          f"Linux {machine['kernel']}; timeout {cfg.timeout:g} s per run"
          + (f", budget {cfg.budget:g} s" if cfg.budget else ""), flush=True)

    t0 = time.monotonic()
    if cfg.from_csv:
        runs, interrupted = read_csv(cfg.out_dir / f"{cfg.name}.csv"), False
    else:
        runs, interrupted = sweep(cfg, todo)
    write_outputs(cfg, machine, apps, runs, skipped)

    per_app: dict[str, float] = {}
    for r in runs:  # to tune NAME_QUICK_ARGS against the budget
        per_app[r.app] = per_app.get(r.app, 0.0) + r.wall
    print(f"harness: {len(runs)} runs in {time.monotonic() - t0:.0f} s; wall per application: "
          + ", ".join(f"{a} {w:.1f} s" for a, w in per_app.items()))
    failed = [r for r in runs if not r.ok]
    if interrupted:
        return 130
    if failed:
        print(f"harness: {len(failed)} run(s) failed", file=sys.stderr)
        return 1
    if not runs:
        print("harness: nothing ran", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
