#!/usr/bin/env bash
# An allocation that fails is reported, never dereferenced: the process
# whose malloc returned NULL stops with a line of its own saying what it
# could not do, and the job ends non-zero without a crash or a hang (or,
# where the allocation was the C library's and it did without, passes).
#
# As SQLite tests its out-of-memory paths: tests/failmalloc.c, preloaded,
# makes the Nth allocation of one process fail, and each check runs the
# same job once per N. Every allocation of tsrun is failed in turn (and
# those its children make between fork and exec); for a node, each of its
# first SETUP (start-up: the transport, the protocols' tables, the first
# messages) and LATER more spread evenly over the rest of the run
# (messages, diffs, lock grants): nodes 0 and 1 over shm, and one of
# them over tcp, over udp and under the lazy protocol. OOM_SETUP and
# OOM_LATER change the counts; OOM_LATER=all fails every allocation (about
# 11,000 runs a node).
. tests/lib.sh

SETUP=${OOM_SETUP:-60} LATER=${OOM_LATER:-12}
PROG=$B/tests/mp/lock_counter
SHIM=$LOG/failmalloc.so
${CC:-cc} -O2 -shared -fPIC -o "$SHIM" tests/failmalloc.c || skip_all "cannot build tests/failmalloc.c"

# job WHO N ENV...: runs the 2-node job with WHO's Nth allocation failing.
job() {
    local who=$1 n=$2; shift 2
    env "$@" LD_PRELOAD="$SHIM" FAILMALLOC_WHO="$who" FAILMALLOC_AT="$n" \
        timeout -k 2 30 "$TSRUN" -n 2 "$PROG" >"$LOG/out" 2>&1
}

# calls WHO ENV...: how many allocations WHO makes in a job that passes.
calls() {
    local who=$1; shift
    FAILMALLOC_COUNT=1 job "$who" 0 "$@"
    sed -n 's/^failmalloc: \([0-9]*\) calls$/\1/p' "$LOG/out" | head -n 1
}

# judged WHO RC: the run passed, or ended non-zero with WHO's own message
# (tsrun's, or node WHO's other than its stopping for a peer), within the
# time limit (timeout's 124 and 137) and no process killed by a signal.
judged() {
    local who=$1 rc=$2 own='^tsrun: '
    [ "$who" = launcher ] || own="^tessera: node $who: "
    if [ "$rc" -eq 0 ]; then [ "$(grep -c PASS "$LOG/out")" -eq 2 ]; return; fi
    [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] && ! grep -q 'killed by signal' "$LOG/out" &&
        grep "$own" "$LOG/out" | grep -vq ': stopping: \|exited with status\|stopping the job'
}

# sweep WHO ENV...: one check over the chosen allocations of WHO.
sweep() {
    local who=$1 total ns runs=0 stopped=0 name made; shift
    name="out_of_memory/$([ "$who" = launcher ] && echo tsrun || echo "node $who")${*:+ $*}"
    total=$(calls "$who" "$@")
    if [ -z "$total" ]; then bad "$name: counting its allocations" "$LOG/out"; return; fi
    made="its $total allocations"
    if [ "$who" = launcher ]; then
        ns=$(seq 1 $((total + 2 * 5))) # each child sets 5 variables (tsrun.c, node_env)
        made="tsrun's $total allocations and its children's before exec"
    elif [ "$LATER" = all ] || [ "$total" -le $((SETUP + LATER)) ]; then
        ns=$(seq 1 "$total")
    else
        ns="$(seq 1 "$SETUP") $(seq $((SETUP + 1)) $(((total - SETUP) / LATER)) "$total" | head -n "$LATER")"
    fi
    for n in $ns; do
        job "$who" "$n" "$@"; local rc=$?
        runs=$((runs + 1))
        if ! judged "$who" $rc; then
            bad "$name: allocation $n of $total failing (exit $rc)" "$LOG/out"
            return
        fi
        [ $rc -ne 0 ] && stopped=$((stopped + 1))
    done
    ok "$name: $runs runs, each failing one of $made: $stopped stopped the job with its message, $((runs - stopped)) passed"
}

# A thread whose stack cannot be mapped: pthread_create says only EAGAIN,
# so the message names the limits that cause it. (1 GB stacks under a
# 500 MB address space; a 16M region leaves the rest of start-up room.)
expect_fail "out_of_memory/no room for the comm thread's stack: the limits named" \
    "^tessera: node [01]: cannot start the communication thread: .*ulimit -v and -s" \
    bash -c "ulimit -s 1000000 -v 500000 && TSR_MEMORY=16M exec $TSRUN -n 2 $PROG"

sweep launcher
sweep 0 TSR_TRANSPORT=shm
sweep 1 TSR_TRANSPORT=shm
sweep 1 TSR_TRANSPORT=tcp
sweep 0 TSR_TRANSPORT=udp
sweep 1 TSR_PROTO=lrc
finish
