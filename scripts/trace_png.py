#!/usr/bin/env python3
"""scripts/trace_png.py TRACE.json OUT.png [--from MS] [--to MS] [--flows N]

Draws a Tessera job timeline (tsrun --trace, docs/TRACE.md) as a picture:
one row per thread of each node, a bar per slice coloured by its kind,
and up to N (default 200) message arrows from send to receipt. --from and
--to cut a window, in milliseconds from the job's first event. Needs
matplotlib."""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

COLOURS = {
    "read fault": "#4e79a7", "write fault": "#f28e2b", "page fetch": "#76b7b2",
    "diff made": "#e15759", "diff applied": "#ff9da7", "lock wait": "#b07aa1",
    "lock held": "#9c755f", "barrier": "#bab0ac", "parallel region": "#59a14f",
    "replicated section": "#edc948", "range check": "#af7aa1",
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("trace")
    p.add_argument("out")
    p.add_argument("--from", dest="lo", type=float, default=None)
    p.add_argument("--to", dest="hi", type=float, default=None)
    p.add_argument("--flows", type=int, default=200)
    a = p.parse_args()
    with open(a.trace) as f:
        events = json.load(f)["traceEvents"]
    names = {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = "node %d %s" % (e["pid"], e["args"]["name"])
    rows = sorted(names, key=lambda k: (k[0], names[k] != "node %d main" % k[0], k[1]))
    row = {k: i for i, k in enumerate(rows)}
    lo = a.lo * 1e3 if a.lo is not None else float("-inf")
    hi = a.hi * 1e3 if a.hi is not None else float("inf")
    fig, ax = plt.subplots(figsize=(14, 1 + 0.6 * len(rows)))
    bars = {}
    starts = {}
    arrows = []
    for e in events:
        if e["ph"] == "X" and e["name"] in COLOURS and lo <= e["ts"] <= hi:
            bars.setdefault(e["name"], []).append((row[(e["pid"], e["tid"])], e["ts"], e["dur"]))
        elif e["ph"] == "s":
            starts[e["id"]] = e
        elif e["ph"] == "f" and e["id"] in starts and lo <= e["ts"] <= hi:
            arrows.append((starts[e["id"]], e))
    for name, spans in bars.items():
        for r, ts, dur in spans:
            ax.broken_barh([(ts / 1e3, max(dur, 0.5) / 1e3)], (r - 0.4, 0.8),
                           facecolors=COLOURS[name], linewidth=0)
    for s, f in arrows[: a.flows]:
        ax.annotate("", xy=(f["ts"] / 1e3, row[(f["pid"], f["tid"])]),
                    xytext=(s["ts"] / 1e3, row[(s["pid"], s["tid"])]),
                    arrowprops=dict(arrowstyle="->", lw=0.4, color="#555555", alpha=0.6))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([names[k] for k in rows])
    ax.invert_yaxis()
    ax.set_xlabel("milliseconds (node 0's clock, from the job's first event)")
    ax.legend(handles=[Patch(color=COLOURS[n], label=n) for n in COLOURS if n in bars],
              loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.3 / len(rows)), ncol=6,
              fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


main()
