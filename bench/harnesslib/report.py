"""The Markdown report, and the README section it rewrites."""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
from pathlib import Path

from .results import Cell, Key, seq_medians
from .runs import Run

README_BEGIN = "<!-- results:begin -->"
README_END = "<!-- results:end -->"


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
            f"Linux {m['kernel']}; {m['mpi']}; commit {m.get('commit', 'unknown')}.  ",
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

    def tcp_mpi(self) -> str:
        """Tessera over TCP (the tessera runs) against Open MPI over TCP
        (mpi-tcp): medians with the fastest and slowest run, since a shared
        machine spreads them, and the counts, which it does not."""
        rows = []
        for app in self.apps:
            for n in self.node_counts(app):
                t, m = self.cells.get((app, "tessera", n)), self.cells.get((app, "mpi-tcp", n))
                if not (t and m and t.seconds and m.seconds):
                    continue
                span = lambda c: f"{c.seconds:.3f} ({c.spread[0]:.3f}-{c.spread[1]:.3f})"
                msgs = t.counters.get("messages")
                fetches = t.counters.get("page_fetches")
                rows.append([app, self.star(n, str(n)), span(t), span(m),
                             f"{t.seconds / m.seconds:.2f}",
                             f"{t.spread[0] / m.spread[1]:.2f}-{t.spread[1] / m.spread[0]:.2f}",
                             f"{msgs:.0f}" if msgs is not None else "—",
                             f"{fetches:.0f}" if fetches is not None else "—"])
        if not rows:
            return ""
        return ("**Between hosts: Tessera over TCP against Open MPI over TCP.** Seconds: "
                "median (fastest-slowest); ratio = Tessera / MPI medians, and its range "
                "from the two spreads; Tessera's messages and page fetches (medians, all "
                "nodes).\n\n"
                + table(["application", "nodes", "Tessera tcp s", "MPI tcp s", "ratio",
                         "ratio range", "messages", "page fetches"], rows, "l"))

    def transport(self) -> str:
        """The transport backends (TSR_TRANSPORT): the figures that choose
        the default."""
        tables = [self.versus("tessera-shm", ("tcp", "shm"),
                              "**Transport across the suite: TCP (the harness's tessera "
                              "runs) against shared-memory rings (TSR_TRANSPORT=shm, what "
                              "auto, the default, gives a job on one host).**"),
                  self.versus("tessera-udp", ("tcp", "udp"),
                              "**Transport across the suite: TCP (the harness's tessera "
                              "runs) against UDP with Tessera's own reliability "
                              "(TSR_TRANSPORT=udp).**")]
        return "\n\n".join(t for t in tables if t)

    def fetch(self) -> str:
        """Pages asked of their home against copied from its memory
        (TSR_FETCH=direct), both over shm, beside MPI over shared memory: a
        run of tessera-direct without tessera-shm has its row too, the
        asking columns empty, or its times would be in no table."""
        keys = sorted((a, n) for (a, i, n) in self.cells if i == "tessera-direct")
        if not keys:
            return ""
        rows = []
        for a, n in keys:
            t, td, tm = (self.secs(a, i, n) for i in ("tessera-shm", "tessera-direct", "mpi-shm"))
            rows.append([a, self.star(n, str(n)), fmt_s(t), fmt_s(td), fmt_s(tm),
                         fmt_x(ratio(t, tm)), fmt_x(ratio(td, tm)),
                         fmt_n(self.counter(a, n, "page_fetches", "tessera-shm")
                               or self.counter(a, n, "page_fetches", "tessera-direct")),
                         fmt_n(self.counter(a, n, "messages", "tessera-shm")),
                         fmt_n(self.counter(a, n, "messages", "tessera-direct"))])
        return ("**Page fetches over shm: asked of the home (TSR_FETCH=message) "
                "against copied from its memory (TSR_FETCH=direct), beside MPI over shared "
                "memory.** ratios = Tessera time / MPI-shm time.\n\n"
                + table(["application", "nodes", "message s", "direct s", "MPI-shm s",
                         "message/MPI-shm", "direct/MPI-shm", "page fetches",
                         "messages (message)", "messages (direct)"], rows, "l"))

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
                              self.access(), self.tcp_mpi(), self.transport(),
                              self.fetch()) if s]
        parts += [f"{h} Verification", self.failures()]
        if self.oversubscribed:
            parts.append(f"\\* more nodes (processes) than the machine's {self.cores} cores: "
                         "the processes time-share cores, so these figures measure "
                         "oversubscription, not parallel speedup.")
        return "\n\n".join(parts) + "\n"


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
