#!/usr/bin/env python3
"""CAS-DSM's tables on this machine (docs/CAS.md; the paper's Tables 4-8).

Runs each application built by tsrcc at every level (build/cas/LEVEL/APP,
`make cas`) at 2 and 4 nodes, and writes bench/results/cas.md:

  time     seconds of the uninstrumented build (tsrcc -tsr-cas=none: the same
           compiler, without checks), and each level's time relative to it
           (Tables 4 and 5; above 1 is slower);
  faults   % of the page faults reaching the protocols that the checks
           eliminated (Table 6), from the named counter faults_taken;
  checks   range checks executed, summed over the nodes, and the % that did
           protocol work, "useful calls" (Tables 7 and 8: cas_checks,
           cas_useful);
  traffic  messages and pages fetched, uninstrumented and per level: checks
           fetch runs of pages in one exchange per home;
  polling  the build with -tsr-poll (maxagdiscard and tsr_poll before inner
           loops, build/cas/poll/APP) against maxagdiscard alone: relative
           speedups (Tables 11 and 12), the average holdup time, and its
           ratio at aghoist to the uninstrumented build's (Table 13), and the
           holdup histogram of SOR at 2 nodes (Figure 11) from the holdup_*
           counters (the time from a message's sending to its handler).

Each figure is the run with the median time of --reps repetitions. The
runs inherit the environment: TSR_PROGRESS=block, for instance, measures
polling with comm threads that always sleep. Usage:
  python3 bench/cas_table.py [--quick] [--reps N] [--apps a,b] [--nodes 2,4]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

LEVELS = ["none", "basic", "aghoist", "agdiscard", "maxaghoist", "maxagdiscard"]
BUILDS = LEVELS + ["poll"]
HISTOGRAM = [("< 10 us", "holdup_lt_10us"), ("10-100 us", "holdup_lt_100us"),
             ("0.1-1 ms", "holdup_lt_1ms"), ("1-10 ms", "holdup_lt_10ms"),
             (">= 10 ms", "holdup_ge_10ms")]
# Inputs: each uninstrumented run about a second (full) or a fraction (quick)
# at 2 nodes on the 2-core development machine.
SIZES = {
    "full": {"sor": "2048 2048 50", "lu": "1024 32", "fft": "20",
             "radix": "4194304 8 32", "water": "512 5"},
    "quick": {"sor": "1024 1024 20", "lu": "512 32", "fft": "18",
              "radix": "1048576 8 32", "water": "216 3"},
}
COUNTERS = ["faults_taken", "cas_checks", "cas_useful", "cas_pages", "messages_sent",
            "page_fetches", "holdup_msgs", "holdup_us", "polled_messages"] + [c for _, c in HISTOGRAM]


def run_once(build, app, level, nodes, args):
    """Seconds the application reports, and its counters summed over the nodes."""
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, "stats.json")
        cmd = [f"{build}/bin/tsrun", "-n", str(nodes), "-j", js, "-t", "600",
               f"{build}/cas/{level}/{app}"] + args.split()
        out = subprocess.run(cmd, capture_output=True, text=True)
        result = [l for l in out.stdout.splitlines() if l.startswith("RESULT ")]
        if out.returncode or not result or "verified=PASS" not in result[0]:
            sys.exit(f"cas_table: {' '.join(cmd)} failed:\n{out.stdout}{out.stderr}")
        fields = dict(f.split("=", 1) for f in result[0].split()[1:])
        sums = dict.fromkeys(COUNTERS, 0)
        with open(js) as f:
            for line in f:
                node = json.loads(line)
                for c in COUNTERS:
                    sums[c] += node.get(c, 0)
        return float(fields["seconds"]), sums


def measure(build, app, level, nodes, args, reps):
    runs = sorted((run_once(build, app, level, nodes, args) for _ in range(reps)),
                  key=lambda r: r[0])
    return runs[len(runs) // 2]


def pct(part, whole):
    return f"{100.0 * part / whole:.1f}" if whole else "-"


def tables(results, apps, nodes_list):
    """The four tables as Markdown lines. A table may lead with a column of
    the uninstrumented run (first: header, cell of that run)."""
    out = []

    def table(title, cell, first=None):
        lead = ["app", "nodes"] + ([first[0]] if first else [])
        out.extend(["", f"### {title}", "",
                     "| " + " | ".join(lead + LEVELS[1:]) + " |",
                     "|" + "---|" * (len(lead) + len(LEVELS) - 1)])
        for app in apps:
            for n in nodes_list:
                base = results[(app, n, "none")]
                row = [app, str(n)] + ([first[1](base)] if first else [])
                row += [cell(results[(app, n, l)], base) for l in LEVELS[1:]]
                out.append("| " + " | ".join(row) + " |")

    def traffic(r):
        return f"{r[1]['messages_sent']} / {r[1]['page_fetches']}"

    table("Time relative to the uninstrumented build (paper's Tables 4 and 5)",
          lambda r, b: f"{r[0] / b[0]:.2f}", first=("none", lambda b: f"{b[0]:.3f} s"))
    table("Page faults eliminated, % (Table 6)",
          lambda r, b: pct(b[1]["faults_taken"] - r[1]["faults_taken"], b[1]["faults_taken"]))
    table("Checks executed, and % useful (Tables 7 and 8)",
          lambda r, b: f"{r[1]['cas_checks']} ({pct(r[1]['cas_useful'], r[1]['cas_checks'])}%)")
    table("Messages sent / pages fetched", lambda r, b: traffic(r), first=("none", traffic))
    return out + polling(results, apps, nodes_list)


def holdup(r):
    """Average holdup of a run's messages, in microseconds."""
    return r[1]["holdup_us"] / r[1]["holdup_msgs"] if r[1]["holdup_msgs"] else 0.0


def polling(results, apps, nodes_list):
    """The polling tables (Section 6.3) as Markdown lines."""
    out = ["", "### Polling: speedup over the uninstrumented build, holdup (Tables 11-13)", "",
           "| app | nodes | none | maxagdiscard | with polling | speedup without / with "
           "| avg holdup none / maxagdiscard / with polling (us) | polled messages "
           "| holdup ratio aghoist / none (Table 13) |",
           "|---|---|---|---|---|---|---|---|---|"]
    for app in apps:
        for n in nodes_list:
            b, m, p = (results[(app, n, v)] for v in ("none", "maxagdiscard", "poll"))
            ratio = holdup(results[(app, n, "aghoist")]) / holdup(b) if holdup(b) else 0.0
            out.append(f"| {app} | {n} | {b[0]:.3f} s | {m[0]:.3f} s | {p[0]:.3f} s "
                       f"| {b[0] / m[0]:.2f} / {b[0] / p[0]:.2f} "
                       f"| {holdup(b):.0f} / {holdup(m):.0f} / {holdup(p):.0f} "
                       f"| {p[1]['polled_messages']} | {ratio:.2f} |")
    for app, n in [("sor", 2)]:
        if (app, n, "none") not in results:
            continue
        out += ["", f"### Holdup histogram, {app} at {n} nodes: messages per holdup "
                "(Figure 11)", "",
                "| build | " + " | ".join(h for h, _ in HISTOGRAM) + " |",
                "|---|" + "---|" * len(HISTOGRAM)]
        for v in ("none", "maxagdiscard", "poll"):
            r = results[(app, n, v)][1]
            out.append(f"| {v} | " + " | ".join(str(r[c]) for _, c in HISTOGRAM) + " |")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small inputs")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--apps", default="sor,lu,fft,radix,water")
    ap.add_argument("--nodes", default="2,4")
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="bench/results/cas.md")
    o = ap.parse_args()
    if o.reps < 1:
        sys.exit("cas_table: --reps must be at least 1")
    if not os.path.exists(f"{o.build}/bin/tsrcc"):
        sys.exit("cas_table: build/bin/tsrcc is missing: clang-16 and llvm-16-dev "
                 "(make deps), then make")
    sizes = SIZES["quick" if o.quick else "full"]
    apps = o.apps.split(",")
    nodes_list = [int(n) for n in o.nodes.split(",")]
    results = {}
    for app in apps:
        if app not in sizes:
            sys.exit(f"cas_table: no input for app {app} (known: {', '.join(sizes)})")
        for n in nodes_list:
            for level in BUILDS:
                results[(app, n, level)] = measure(o.build, app, level, n, sizes[app], o.reps)
                t, c = results[(app, n, level)]
                print(f"{app} -n {n} {level}: {t:.3f} s, faults {c['faults_taken']}, "
                      f"checks {c['cas_checks']} ({c['cas_useful']} useful), "
                      f"holdup {holdup(results[(app, n, level)]):.0f} us", flush=True)
    lines = [f"# CAS-DSM on this machine ({'quick' if o.quick else 'full'} inputs, "
             f"median of {o.reps}, TSR_PROGRESS={os.environ.get('TSR_PROGRESS', 'hybrid')})", "",
             "Inputs: " + ", ".join(f"{a} `{sizes[a]}`" for a in apps) + "."]
    lines += tables(results, apps, nodes_list)
    os.makedirs(os.path.dirname(o.out), exist_ok=True)
    with open(o.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
