"""Plots (optional: matplotlib): speedup and traffic per application."""

from __future__ import annotations

import argparse
from pathlib import Path

from .results import Cell, Key, seq_medians

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
              "tessera-direct": ("*-", "C7", "Tessera (shm, TSR_FETCH=direct)"),
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
