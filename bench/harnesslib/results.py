"""Results: medians per (application, implementation, nodes), the CSV, and
the machine they were measured on."""

from __future__ import annotations

import argparse
import csv
import os
import platform
import statistics
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .impls import COUNTERS, CSV_COLUMNS
from .runs import Run

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
    spread: tuple[float, float] | None = None  # fastest and slowest passing run


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
                          len(good), len(group), (min(secs), max(secs)) if secs else None)
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
    # The commit measured, so that a report says which code its figures are of.
    try:
        out = subprocess.run(["git", "-C", str(cfg.root), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=30).stdout
        info["commit"] = out.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        info["commit"] = "unknown"
    return info
