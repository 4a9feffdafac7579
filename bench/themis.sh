#!/usr/bin/env bash
# bench/themis.sh - the Themis paper's measurements on this machine
# (docs/THEMIS.md): Figure 4 and Section 3.2.2 (ga_micro, beside the same
# accesses in OpenSHMEM), Figure 5 (ga_barriers) and Section 3.3's
# conjugate gradient (ga_cg), at 2 and 4 nodes. `make bench-themis` runs it
# and keeps the output in bench/results/themis.txt.
#
# THEMIS_NET: the environment of a second Figure 4 pass, by default the
# udp backend with injected reordering (Section 3.2.2's count); empty: none.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
THEMIS_NET=${THEMIS_NET-TSR_TRANSPORT=udp TSR_FAULTS=reorder=0.3,delay=500us,seed=1}
TSRUN=$B/bin/tsrun

section() { printf '\n== %s\n' "$*"; }

tessera() { timeout -k 5 600 "$TSRUN" "$@"; }

# Open MPI 4.1.4 crashes in shmem_finalize after a correct run
# (open-mpi/ompi#11604): keep the rows it printed, say so if it crashed.
openshmem() {
    local n=$1 out rc
    out=$(timeout -k 5 600 oshrun --allow-run-as-root --oversubscribe -n "$n" \
          "$B/bench/ga_micro_shmem" 2>/dev/null)
    rc=$?
    grep '^OpenSHMEM' <<<"$out"
    [ $rc -eq 0 ] || echo "(oshrun exited $rc after printing its rows: Open MPI's shmem_finalize bug)"
}

section "Figure 4: engines x patterns x sizes, 3:1 reads to writes (ms: slowest node; counts: sums over nodes)"
for n in 2 4; do
    tessera -n $n "$B/bench/ga_micro"
    if command -v oshrun >/dev/null && [ -x "$B/bench/ga_micro_shmem" ]; then
        openshmem $n
    else
        echo "(OpenSHMEM rows missing: oshrun or $B/bench/ga_micro_shmem not found)"
    fi
done
if [ -n "${THEMIS_NET:-}" ]; then
    section "Figure 4 again under $THEMIS_NET (Section 3.2.2: reorder = requests that arrived out of order)"
    for n in 2 4; do env $THEMIS_NET timeout -k 5 900 "$TSRUN" -n $n "$B/bench/ga_micro"; done
fi

section "Figure 5: 1,024 tsr_ga_barrier calls against OrderCache size"
for n in 2 4; do tessera -n $n "$B/bench/ga_barriers"; done

section "Section 3.3.1: CG, N = 256, against nodes (v0 through OrderCache of 4 x 2^8 lines; hits: node 0)"
for n in 1 2 4; do tessera -n $n "$B/bench/ga_cg" 256 8; done

section "Section 3.3.2: CG at 4 nodes against N (v0 through OrderCache of 4 x 2^8 lines; hits: node 0)"
for size in 128 256 512 1024; do tessera -n 4 "$B/bench/ga_cg" $size 8; done
