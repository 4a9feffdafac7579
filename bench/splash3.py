#!/usr/bin/env python3
"""The SPLASH-3 suite on Tessera against its own pthreads build.

    SPLASH3=dir bench/splash3.py [program ...]

dir is a SPLASH-3 checkout (the one holding codes/). It is never part of
this repository (its licence forbids redistribution, and CI has no
network): this script builds copies of it under WORK. Tessera is installed
into WORK/prefix (or taken from PREFIX=...), and each program is built
twice with its own Makefile: with SPLASH-3's pthreads macros, and with
MACROS= the installed share/tessera/c.m4.tessera (docs/SPLASH3.md). Each
runs with its recommended input (README's list; RAYTRACE and VOLREND with
the inputs the public checkout has) at each count of NODES, as P threads
and as `tsrun -n P`, and a Markdown table is printed: times, Tessera's
messages and faults (summed over nodes, from tsrun -j), and whether the
results match: the output without its timing lines, compared as a set of
lines (processes print in any order), and the program's own test where it
has one (FFT, LU, RADIX, CHOLESKY run with -t).

SIZE=large runs the inputs of LARGE instead, where the suite's pthreads
build takes seconds: the larger PARSEC inputs the checkout carries, a
larger size argument, or inputs written here (GENERATED: VOLREND's volume
by bench/volrend_phantom.py, CHOLESKY's matrix by bench/cholesky_grid.py,
BARNES', FMM's and WATER-NSQUARED's from the checkout's with a larger
count; RAYTRACE's scene at a larger resolution); docs/SPLASH3.md says
which ended in time.

Environment: NODES (default "1 2 4"), SIZE, STATS_DIR (a folder that keeps
every Tessera run's counters, NAME-INPUT-P.json, as tsrun -j writes them),
WORK (default /tmp/splash3-bench),
PREFIX (an installed Tessera; default: `make install` into WORK/prefix),
TIMEOUT (seconds per run, default 600), TSR_* (passed to every node).
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name, folder under codes/, command ('#' is the process count), standard
# input (a file in the folder or None), the input as the table names it.
PROGRAMS = [
    ("BARNES", "apps/barnes", "./BARNES", "inputs/n16384-p#", "n16384"),
    ("FMM", "apps/fmm", "./FMM", "inputs/input.#.16384", "16384"),
    ("OCEAN-CONT", "apps/ocean/contiguous_partitions", "./OCEAN -p# -n258", None, "258"),
    ("OCEAN-NONCONT", "apps/ocean/non_contiguous_partitions", "./OCEAN -p# -n258", None, "258"),
    ("RADIOSITY", "apps/radiosity", "./RADIOSITY -p # -ae 5000 -bf 0.1 -en 0.05 -room -batch",
     None, "room"),
    ("RAYTRACE", "apps/raytrace", "./RAYTRACE -p# -m64 inputs/teapot.env", None, "teapot"),
    ("VOLREND", "apps/volrend", "./VOLREND # inputs/head-scaleddown4 8", None, "head/4"),
    ("WATER-NSQUARED", "apps/water-nsquared", "./WATER-NSQUARED", "inputs/n512-p#", "512"),
    ("WATER-SPATIAL", "apps/water-spatial", "./WATER-SPATIAL", "inputs/n512-p#", "512"),
    ("CHOLESKY", "kernels/cholesky", "./CHOLESKY -p# -t", "inputs/tk15.O", "tk15.O"),
    ("FFT", "kernels/fft", "./FFT -p# -m16 -t", None, "-m16"),
    ("LU-CONT", "kernels/lu/contiguous_blocks", "./LU -p# -n512 -t", None, "512"),
    ("LU-NONCONT", "kernels/lu/non_contiguous_blocks", "./LU -p# -n512 -t", None, "512"),
    ("RADIX", "kernels/radix", "./RADIX -p# -n1048576 -t", None, "1M keys"),
]

# Larger inputs (SIZE=large), in the same form: for each program the
# smallest of its sizes measured where SPLASH-3's pthreads build ran about
# 4-5 s at 1 thread here, so that 2-8 threads on 2 cores still take 2 s
# (docs/SPLASH3.md). RADIOSITY, RAYTRACE, VOLREND, OCEAN, WATER-NSQUARED
# and RADIX were sized again on a quieter machine, where their first sizes
# ran under 2 s at some count: each with its own knob (RADIOSITY's -bf,
# RAYTRACE's resolution, VOLREND's frame count, OCEAN's grid,
# WATER-NSQUARED's steps, RADIX's keys). The PARSEC inputs are for 1
# process, written for P (stdin_for); BARNES', FMM's and WATER-NSQUARED's
# are the checkout's with another count (GENERATED).
LARGE = {
    "BARNES": ("./BARNES", "inputs/n131072-p#", "n131072"),
    "FMM": ("./FMM", "inputs/input.#.131072", "131072"),
    "OCEAN-CONT": ("./OCEAN -p# -n2050", None, "2050"),
    "OCEAN-NONCONT": ("./OCEAN -p# -n2050", None, "2050"),
    "RADIOSITY": ("./RADIOSITY -p # -ae 5000 -bf 0.0015 -en 0.005 -largeroom -batch", None,
                  "largeroom, -bf 0.0015 -en 0.005"),
    "RAYTRACE": ("./RAYTRACE -p# -m128 inputs/balls4-384.env", None, "balls4, 384x384"),
    "VOLREND": ("./VOLREND # inputs/phantom 40", None, "phantom 256x256x113, 40 frames"),
    "WATER-NSQUARED": ("./WATER-NSQUARED", "inputs/n4096s8-p#", "4096, 8 steps"),
    "WATER-SPATIAL": ("./WATER-SPATIAL", "inputs/parsec_simlarge", "32768 (parsec_simlarge)"),
    "CHOLESKY": ("./CHOLESKY -p# -t", "inputs/grid34.O", "grid 34^3"),
    "FFT": ("./FFT -p# -m22 -t", None, "-m22"),
    "LU-CONT": ("./LU -p# -n2048 -t", None, "2048"),
    "LU-NONCONT": ("./LU -p# -n2048 -t", None, "2048"),
    "RADIX": ("./RADIX -p# -n33554432 -t", None, "32M keys"),
}


def programs():
    """PROGRAMS, with LARGE's inputs under SIZE=large."""
    if os.environ.get("SIZE", "") != "large":
        return PROGRAMS
    return [(name, folder) + LARGE[name] for name, folder, *_ in PROGRAMS]


# Settings a program needs: OCEAN-NONCONT G_MALLOCs 15 GB of structures
# sized for its largest grid (untouched, so pthreads' malloc costs nothing),
# and the master allocates them alone, from node 0's share of
# TSR_MALLOC_MEMORY. Its large grid (2050) is thousands of row allocations
# whose pages differ in protection: under TSR_DETECT=segv a node passes the
# kernel's 65,530 mappings (vm.max_map_count) and stops, saying so; uffd
# leaves the region whole.
def settings(name, p):
    if name != "OCEAN-NONCONT":
        return ""
    uffd = "TSR_DETECT=uffd " if os.environ.get("SIZE", "") == "large" else ""
    return f"{uffd}TSR_MALLOC_MEMORY={32 * p}G TSR_MEMORY={32 * p + 32}G "


# Lines that differ from run to run whatever the runtime: times, and the
# debugging prints and per-process tables of times some programs make.
NOISE = re.compile(r"time|clock|start|end\b|finish|elapsed|COMPUTE|Step|iter_num|Transpose|"
                   r"FFt1DOnce|Proc", re.I)
# The programs' own verdicts.
FAILED = re.compile(r"TEST FAILED|^FAILED|ERROR|Fatal|mismatch", re.M)


def sh(cmd, cwd=None, log=None):
    with open(log or os.devnull, "w") as out:
        return subprocess.call(cmd, shell=True, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)


def build(work, prefix):
    src = os.path.join(os.environ["SPLASH3"], "codes")
    pc = f"PKG_CONFIG_PATH={prefix}/lib/pkgconfig pkg-config"
    flavours = {
        "pthreads": "make -k",
        "tessera": f"make -k MACROS={prefix}/share/tessera/c.m4.tessera "
                   f"CC=\"cc $({pc} --cflags tessera)\" LDFLAGS=\"-lm $({pc} --libs tessera)\"",
    }
    for flavour, make in flavours.items():
        dst = os.path.join(work, flavour)
        if flavour == "tessera":
            # SPLASH-3's Makefiles know nothing of the macro file and its
            # header: a build left from another Tessera would be kept.
            shutil.rmtree(dst, ignore_errors=True)
        if not os.path.isdir(dst):
            shutil.copytree(src, dst, symlinks=True)
        for _, folder, *_ in PROGRAMS:
            sh(make, cwd=os.path.join(dst, folder), log=os.path.join(work, f"build-{flavour}.log"))


# Inputs written into a program's inputs/ folder before it runs: file name,
# and the command (run there) that writes it if it is missing.
GENERATED = {
    "BARNES": ("n131072-p1", "sed 's/^16384$/131072/' n16384-p1 > n131072.tmp && "
                             "mv n131072.tmp n131072-p1"),
    "FMM": ("input.1.131072", "sed 's/^65536$/131072/' parsec_simmedium > i131072.tmp && "
                              "mv i131072.tmp input.1.131072"),
    "WATER-NSQUARED": ("n4096s8-p1", "sed 's/  3375  3 /  4096  8 /' parsec_simmedium > n4096.tmp && "
                                     "mv n4096.tmp n4096s8-p1"),
    "VOLREND": ("phantom.den", f"{ROOT}/bench/volrend_phantom.py phantom.den 256 256 113"),
    "CHOLESKY": ("grid34.O", f"{ROOT}/bench/cholesky_grid.py 34 34 34 > grid34.O.tmp && "
                             "mv grid34.O.tmp grid34.O"),
}


def prepare(name, folder, cmd):
    """balls4-N.env (N from the command) is balls4.env rendering N x N
    pixels in place of 128 x 128, and naming its geometry from the
    program's folder, as the other inputs do (balls4.env names it relative
    to inputs/). GENERATED's inputs are written if missing."""
    inputs = os.path.join(folder, "inputs")
    env = os.path.join(inputs, "balls4.env")
    size = re.search(r"balls4-(\d+)\.env", cmd)
    if os.path.exists(env) and size:
        text = open(env).read().replace("\tballs4.geo", "\tinputs/balls4.geo")
        res = f"resolution\t{size[1]}\t{size[1]}"
        with open(os.path.join(inputs, size[0]), "w") as out:
            out.write(re.sub(r"^resolution.*$", res, text, flags=re.M))
    if name in GENERATED and not os.path.exists(os.path.join(inputs, GENERATED[name][0])):
        if sh(GENERATED[name][1], cwd=inputs):
            sys.exit(f"splash3.py: could not write {name}'s input: {GENERATED[name][1]}")


def stdin_for(folder, pattern, p):
    """The input file for p processes; FMM's and BARNES' are written from
    the one for 1 when the checkout has none for p (only the count differs),
    as are those of the PARSEC inputs, which are for 1 process (WATER's
    count ends its last line)."""
    if pattern is None:
        return None
    parsec = os.path.basename(pattern).startswith("parsec_")
    if "#" not in pattern and not parsec:
        return os.path.join(folder, pattern)
    one_path = os.path.join(folder, pattern.replace("#", "1"))
    path = os.path.join(folder, f"{pattern}-tessera-p{p}" if parsec
                        else pattern.replace("#", str(p)))
    if not os.path.exists(path):
        one = open(one_path).read().split("\n")
        hits = [i for i, line in enumerate(one) if line.strip() == "1"]
        last = max(i for i, line in enumerate(one) if line.strip())
        if not hits and one[last].split()[0] == "1" and len(one[last].split()) == 2:
            hits = [last]
        if len(hits) != 1:
            return None
        words = one[hits[0]].split()
        one[hits[0]] = " ".join([str(p)] + words[1:])
        with open(path, "w") as f:
            f.write("\n".join(one))
    return path


def run(cmd, cwd, stdin):
    """A run past TIMEOUT is killed with all it started (its own session):
    killing the shell alone left tsrun running, to load the machine and
    write its counters into a later run's file."""
    start = time.time()
    with open(stdin or os.devnull) as inp:
        p = subprocess.Popen(cmd, shell=True, cwd=cwd, stdin=inp, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, errors="replace",
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=int(os.environ.get("TIMEOUT", 600)))
            return p.returncode, out, err, time.time() - start
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return "timeout", "", "", time.time() - start


def numbers(line):
    """A row of a per-process table of times: numbers only (nan included)."""
    try:
        [float(w.rstrip(":")) for w in line.split()]
        return True
    except ValueError:
        return False


def results(out):
    return sorted(line.strip() for line in out.splitlines()
                  if line.strip() and not NOISE.search(line) and not numbers(line))


def counts(path, keep=None):
    """Messages and faults summed over the nodes; the nodes' counters are
    then moved to `keep` if given (STATS_DIR), else removed."""
    msgs = faults = 0
    if os.path.exists(path):
        for line in open(path):
            o = json.loads(line)
            msgs += o["messages_sent"]
            faults += o["read_faults"] + o["write_faults"]
        if keep:
            os.makedirs(os.path.dirname(keep), exist_ok=True)
            shutil.move(path, keep)
        else:
            os.unlink(path)
    return msgs, faults


def verdict(prc, pout, pout2, trc, tout, terr):
    """Standard outputs compared (the runtime's warnings go to standard
    error); pout2: a second pthreads run, which shows how much the
    program's own output varies (RADIOSITY's statistics depend on the
    schedule)."""
    if prc != 0:
        return f"pthreads build failed ({prc})"
    if trc != 0:
        last = [l for l in (tout + terr).splitlines() if l.strip()][-1:] or [""]
        return f"FAILED ({trc}: {last[0][:80]})"
    if FAILED.search(tout + terr):
        return "FAILED (own test)"
    a, a2, b = results(pout), results(pout2), results(tout)
    if a == b:
        return "match"
    if a != a2:
        return (f"varies as pthreads does ({len(set(a) ^ set(b))} lines differ; "
                f"{len(set(a) ^ set(a2))} between two pthreads runs)")
    return f"differs ({len(set(a) ^ set(b))} lines)"


def main():
    if "SPLASH3" not in os.environ:
        sys.exit("splash3.py: set SPLASH3 to a SPLASH-3 checkout (the folder holding codes/)")
    work = os.environ.get("WORK", "/tmp/splash3-bench")
    os.makedirs(work, exist_ok=True)
    prefix = os.environ.get("PREFIX")
    if not prefix:
        prefix = os.path.join(work, "prefix")
        if sh(f"make -s install PREFIX={prefix}", cwd=ROOT, log=os.path.join(work, "install.log")):
            sys.exit(f"splash3.py: make install failed: see {work}/install.log")
    build(work, prefix)
    wanted = set(sys.argv[1:])
    nodes = [int(n) for n in os.environ.get("NODES", "1 2 4").split()]
    print("| program | input | nodes | pthreads s | Tessera s | messages | faults | result |")
    print("|---|---|---|---|---|---|---|---|")
    for name, folder, cmd, inp, label in programs():
        if wanted and name not in wanted:
            continue
        for p in nodes:
            row = f"| {name} | {label} | {p} |"
            pdir, tdir = (os.path.join(work, f, folder) for f in ("pthreads", "tessera"))
            exe = cmd.split()[0]
            if not (os.path.exists(os.path.join(pdir, exe)) and os.path.exists(os.path.join(tdir, exe))):
                print(row + " | | | | did not build |", flush=True)
                continue
            prepare(name, pdir, cmd)
            prepare(name, tdir, cmd)
            stdin_p, stdin_t = stdin_for(pdir, inp, p), stdin_for(tdir, inp, p)
            if inp and not (stdin_p and stdin_t):
                print(row + " | | | | no input for this count |", flush=True)
                continue
            argv = cmd.replace("#", str(p))
            prc, pout, _, pt = run(argv, pdir, stdin_p)
            pout2 = run(argv, pdir, stdin_p)[1]
            stats = os.path.join(work, "stats.json")
            if os.path.exists(stats):
                os.unlink(stats)
            trc, tout, terr, tt = run(f"{settings(name, p)}{prefix}/bin/tsrun -n {p} -j {stats} {argv}",
                                tdir, stdin_t)
            keep = os.environ.get("STATS_DIR")
            msgs, faults = counts(stats, keep and os.path.join(keep, f"{name}-{label}-{p}.json"
                                                                   .replace("/", "_")))
            print(row + f" {pt:.2f} | {tt:.2f} | {msgs} | {faults} | {verdict(prc, pout, pout2, trc, tout, terr)} |",
                  flush=True)


if __name__ == "__main__":
    main()
