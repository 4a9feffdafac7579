#!/usr/bin/env bash
# bench/thr_sor.sh - one node per host with threads against one node per
# core (docs/CLUSTER.md, "One node per host or one per core"), counted with
# the threaded SOR of tests/mp/thr_sor.c: bytes sent and pages fetched,
# summed over the nodes, for 1 node x 2 threads, 2 hosts x 1 node x 2
# threads, and 2 hosts x 2 nodes x 1 thread. The two "hosts" are loopback
# addresses reached through tests/loopback_ssh (TSR_HOSTS). Counts, not
# times: they do not depend on the machine's load. In the last line the
# bytes include those two nodes of one host send each other, which the
# threaded run does not need. Then, in seconds (the median of 3 runs; the
# machine's cores may be shared): 1 node x 2 threads against the same
# threads with pthreads and no Tessera (bench/thr_sor_plain.c).
#
# THR_SOR_ARGS: rows cols iterations (default "254 510 20": one page per
# row); THR_SOR_TIME_ARGS: the timed runs' (default "1022 1022 200").
# Needs `make build/tests/mp/thr_sor build/bench/thr_sor_plain build/bin/tsrun`.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
ARGS=${THR_SOR_ARGS:-254 510 20}
TIME_ARGS=${THR_SOR_TIME_ARGS:-1022 1022 200}
export TSR_SSH=tests/loopback_ssh

# count LABEL ENV... CMD...: runs the threaded SOR under CMD, checks every node's
# PASS, and prints LABEL with the summed counts.
count() {
    local label=$1 out
    shift
    out=$(env "$@" "$B/tests/mp/thr_sor" $ARGS 2>&1) ||
        { printf '%s\n' "$out" >&2; echo "bench/thr_sor.sh: $label failed" >&2; exit 1; }
    printf '%s\n' "$out" | awk -v label="$label" '
        / threads, / { nodes++; bytes += $5; pages += $8 }
        /: PASS$/ { pass++ }
        END { if (pass != nodes) { print label ": a node failed" > "/dev/stderr"; exit 1 }
              printf "| %s | %d | %d |\n", label, bytes, pages }'
}

printf '| placement (SOR %s) | bytes sent | pages fetched |\n|---|---|---|\n' "$ARGS"
count "1 node x 2 threads" TSR_THREADS=2 timeout -k 5 300 "$B/bin/tsrun" -n 1
count "2 hosts x 1 node x 2 threads" TSR_THREADS=2 TSR_HOSTS=127.0.0.2:1,127.0.0.3:1 \
    timeout -k 5 300 "$B/bin/tsrun" -n 2
count "2 hosts x 2 nodes x 1 thread" TSR_THREADS=1 TSR_HOSTS=127.0.0.2:2,127.0.0.3:2 \
    timeout -k 5 300 "$B/bin/tsrun" -n 4

# median3 CMD...: the median of three runs' seconds (the word before "s,"
# or the last "s"), each run checked to PASS.
median3() {
    local i out
    for i in 1 2 3; do
        out=$("$@" 2>&1) && printf '%s\n' "$out" | grep -q 'PASS' ||
            { printf '%s\n' "$out" >&2; echo "bench/thr_sor.sh: $* failed" >&2; exit 1; }
        printf '%s\n' "$out" | grep -o '[0-9.]* s\b' | head -1 | cut -d' ' -f1
    done | sort -n | sed -n 2p
}

printf '\n| 2 threads (SOR %s) | seconds |\n|---|---|\n' "$TIME_ARGS"
printf '| pthreads, no Tessera | %s |\n' "$(median3 "$B/bench/thr_sor_plain" $TIME_ARGS 2)"
printf '| 1 node x 2 threads | %s |\n' \
    "$(median3 env TSR_THREADS=2 "$B/bin/tsrun" -n 1 "$B/tests/mp/thr_sor" $TIME_ARGS)"
