"""What the harness runs: the implementations, the applications the
Makefile registers, and the command line of each run."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
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
         "tessera-shm", "tessera-direct", "tessera-udp", "tessera-omp", "omp-native", "mpi-shm",
         "mpi-tcp")
MPI_IMPLS = ("mpi-shm", "mpi-tcp")
# Tessera variants: (TSR_WRITE_DETECT, extra program arguments, TSR_DETECT,
# TSR_TRANSPORT, TSR_PROTO, TSR_FETCH).
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
#                  (TSR_TRANSPORT): the backend column, and the transport
#                  tsrun gives a one-host job by default (auto); the other
#                  variants name tcp so that they compare with earlier runs,
#                  and all but the next ask for pages (TSR_FETCH=message)
#   tessera-direct tessera-shm with pages copied straight from their home's
#                  memory (TSR_FETCH=direct) instead of asked for: what
#                  tsrun gives a one-host job by default
#   tessera-udp    the default over UDP with Tessera's own reliability
#   tessera-omp    the app's OpenMP form (NAME_OMP_SRCS) built by tsrcc -fopenmp,
#                  under the default's settings (docs/OPENMP.md); beside it
#                  omp-native, the same source built with libomp, on one host
#                  with OMP_NUM_THREADS threads
TESSERA_IMPLS = {"tessera": ("cache-only", [], "segv", "tcp", "hlrc", "message"),
                 "tessera-v": ("all", [], "segv", "tcp", "hlrc", "message"),
                 "tessera-lrc": ("cache-only", [], "segv", "tcp", "lrc", "message"),
                 "tessera-munin": ("cache-only", ["--munin"], "segv", "tcp", "hlrc", "message"),
                 "tessera-uffd": ("cache-only", [], "uffd", "tcp", "hlrc", "message"),
                 "tessera-shm": ("cache-only", [], "segv", "shm", "hlrc", "message"),
                 "tessera-direct": ("cache-only", [], "segv", "shm", "hlrc", "direct"),
                 "tessera-udp": ("cache-only", [], "segv", "udp", "hlrc", "message"),
                 "tessera-omp": ("cache-only", [], "segv", "tcp", "hlrc", "message")}
# The binary's suffix of the implementations that are not the Tessera API's.
SUFFIXES = {"seq": "_seq", "tessera-omp": "_omp", "omp-native": "_ompnative",
            "mpi-shm": "_mpi", "mpi-tcp": "_mpi"}
NAUTILUS_APPS = ("lu", "water", "sor")
MUNIN_APPS = ("mm", "sor")


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


def binary(cfg: argparse.Namespace, app: App, impl: str) -> Path:
    return cfg.bin_dir / f"{app.name}{SUFFIXES.get(impl, '')}"


def command(cfg: argparse.Namespace, app: App, impl: str, nodes: int) -> list[str]:
    exe = str(binary(cfg, app, impl))
    if impl in ("seq", "omp-native"):
        return [exe, *app.args]
    if impl in TESSERA_IMPLS:
        return [str(cfg.tsrun), "-n", str(nodes), exe, *TESSERA_IMPLS[impl][1], *app.args]
    mpi = [cfg.mpirun, "--allow-run-as-root", "--oversubscribe", "-np", str(nodes)]
    if impl == "mpi-tcp":
        # Only the TCP byte transfer layer (plus self); pinned to loopback so
        # the traffic stays on this machine and the route is the same each run.
        mpi += ["--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo"]
    return [*mpi, exe, *app.args]


def shown(path: Path) -> str:
    """A path relative to the working directory when it lies below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
