#!/usr/bin/env python3
"""One run of bench/tsr_micro, kept: writes its six tables to
bench/results/micro.md with the date, the commit and the load average
around the run, and with --update-docs puts them in docs/PERFORMANCE.md between
the markers <!-- micro:begin --> / <!-- micro:end --> (progress policies),
<!-- micro-transport:begin --> / <!-- micro-transport:end --> (backends)
and <!-- micro-detect:begin --> / <!-- micro-detect:end --> (detection).
The fourth, the lock hand-off's ablation, and the fifth, page fetches asked
for or copied (TSR_FETCH), are kept in micro.md only; the sixth, page
fetches over ucx asked for or read one-sided, goes between
<!-- micro-ucx:begin --> / <!-- micro-ucx:end -->.

    python3 bench/micro_report.py [--update-docs] [--from FILE] [--out FILE]

--from takes the tables from a saved tsr_micro output instead of running it.
All six tables come from one run, so each ratio compares figures measured
under the same load.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The docs/PERFORMANCE.md block of each table, in tsr_micro's order (None:
# not there).
BLOCKS = ("micro", "micro-transport", "micro-detect", None, None, "micro-ucx")


def tables(text):
    """The Markdown tables of tsr_micro's output, in order."""
    found, cur = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cur.append(line)
        elif cur:
            found.append("\n".join(cur))
            cur = []
    if len(found) != len(BLOCKS):
        sys.exit(f"micro_report: expected {len(BLOCKS)} tables from tsr_micro, found {len(found)}")
    return found


def run_micro():
    exe = os.path.join(ROOT, "build/bench/tsr_micro")
    out = subprocess.run([exe], capture_output=True, text=True, timeout=1800)
    if out.returncode:
        sys.exit(f"micro_report: {exe} failed:\n{out.stderr}")
    return out.stdout


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def commit():
    out = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def update_doc(path, found):
    with open(path) as f:
        text = f.read()
    for name, table in zip(BLOCKS, found):
        if name is None:
            continue
        pat = re.compile(rf"(<!-- {name}:begin -->\n).*?(<!-- {name}:end -->)", re.S)
        if not pat.search(text):
            sys.exit(f"micro_report: {path} has no <!-- {name}:begin/end --> markers")
        text = pat.sub(lambda m: m.group(1) + table + "\n" + m.group(2), text)
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--update-docs", action="store_true",
                    help="put the first three tables and the last in docs/PERFORMANCE.md")
    ap.add_argument("--from", dest="source", help="a saved tsr_micro output")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results/micro.md"))
    args = ap.parse_args()
    before = load()
    if args.source:
        with open(args.source) as f:
            output = f.read()
    else:
        output = run_micro()
    found = tables(output)
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with open(args.out, "w") as f:
        f.write(f"# bench/tsr_micro, one run\n\n{when}, commit {commit()}, {os.cpu_count()} cores; "
                f"load average (1, 5, 15 min) {before} before, {load()} after"
                f"{' (the run itself: ' + args.source + ')' if args.source else ''}.\n\n")
        f.write(output)
    print(output, end="")
    if args.update_docs:
        update_doc(os.path.join(ROOT, "docs/PERFORMANCE.md"), found)


if __name__ == "__main__":
    main()
