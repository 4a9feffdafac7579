#!/usr/bin/env python3
"""Tessera benchmark harness: every application, side by side.

Runs each application registered under apps/ as

    seq      the plain sequential C program              (1 process)
    tessera  the Tessera version under build/bin/tsrun    (1, 2, 4 nodes)
             (variants: tessera-v, tessera-munin, tessera-uffd, and
             tessera-shm and tessera-udp, over the shared-memory and
             datagram transports, and tessera-direct, over shm with
             pages copied from their home's memory: TSR_FETCH=direct)
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
import os
import sys
import time
from pathlib import Path

from harnesslib.impls import IMPLS, App, discover_apps, shown
from harnesslib.plots import write_plots
from harnesslib.report import README_BEGIN, README_END, Report, update_readme
from harnesslib.results import machine_info, read_csv, seq_medians, summarize, write_csv
from harnesslib.runs import Run, plan, sweep

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
    p.add_argument("--timeout", type=float, help="seconds per run (default 1500 full: SOR under TSR_PROTO=lrc takes minutes; 60 quick)")
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
        args.timeout = 60.0 if args.quick else 1500.0
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
