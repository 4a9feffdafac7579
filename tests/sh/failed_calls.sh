#!/usr/bin/env bash
# An allocation or a system call that fails is reported, never ignored or
# dereferenced: the process whose malloc returned NULL, or whose mmap,
# mprotect, socket, pipe2, ioctl... failed, stops with a line of its own
# saying what it could not do, and the job ends non-zero without a crash
# or a hang (or, where the C library did without, passes).
#
# As SQLite tests its out-of-memory paths: tests/failcall.c, preloaded,
# makes the Nth call of one family (allocations, or the system calls that
# take memory, descriptors or addresses) of one process fail, and each
# check runs the same job once per N. Every call of tsrun is failed in
# turn (and those its children make between fork and exec); for a node,
# each of its first SETUP (start-up: the transport, the protocols' tables,
# the first messages) and LATER more spread evenly over the rest of the
# run (messages, diffs, lock grants, page protections, userfaultfd
# ioctls): allocations of nodes 0 and 1 over shm, and of one of them over
# tcp, over udp and under the lazy protocol; system calls of node 0 over
# shm, of node 1 over udp and under TSR_DETECT=uffd. FAIL_SETUP and
# FAIL_LATER change the counts; FAIL_LATER=all fails every call (a few
# hundred runs a sweep, a few thousand under the lazy protocol).
. tests/lib.sh

SETUP=${FAIL_SETUP:-50} LATER=${FAIL_LATER:-8}
PROG=$B/tests/mp/producer_consumer
SHIM=$LOG/failcall.so
${CC:-cc} -O2 -shared -fPIC -o "$SHIM" tests/failcall.c -ldl || skip_all "cannot build tests/failcall.c"

# job OF WHO N ENV...: runs the 2-node job with WHO's Nth call of family
# OF (malloc or sys) failing.
job() {
    local of=$1 who=$2 n=$3; shift 3
    env "$@" LD_PRELOAD="$SHIM" FAILCALL_OF="$of" FAILCALL_WHO="$who" FAILCALL_AT="$n" \
        timeout -k 2 30 "$TSRUN" -n 2 "$PROG" >"$LOG/out" 2>&1
}

# calls OF WHO ENV...: how many calls of OF WHO makes in a job that passes.
calls() {
    local of=$1 who=$2; shift 2
    FAILCALL_COUNT=1 job "$of" "$who" 0 "$@"
    sed -n 's/^failcall: \([0-9]*\) calls$/\1/p' "$LOG/out" | head -n 1
}

# judged WHO RC: the run passed, or ended non-zero with WHO's own message
# (tsrun's, or node WHO's other than its stopping for a peer), within the
# time limit (timeout's 124 and 137) and no process killed by a signal.
judged() {
    local who=$1 rc=$2 own='^tsrun: '
    [ "$who" = launcher ] || own="^tessera: node $who: "
    # Counted as words: a node whose stdout could not get a buffer writes
    # unbuffered, and its line may share a line of the output with another.
    if [ "$rc" -eq 0 ]; then [ "$(grep -o PASS "$LOG/out" | wc -l)" -eq 2 ]; return; fi
    [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] && ! grep -q 'killed by signal' "$LOG/out" &&
        grep "$own" "$LOG/out" | grep -vq ': stopping: \|exited with status\|stopping the job'
}

# sweep OF WHO ENV...: one check over the chosen calls of OF (malloc or
# sys) that WHO makes.
sweep() {
    local of=$1 who=$2 total ns runs=0 stopped=0 name made; shift 2
    name="failed_calls/$of, $([ "$who" = launcher ] && echo tsrun || echo "node $who")${*:+ $*}"
    total=$(calls "$of" "$who" "$@")
    if [ -z "$total" ]; then bad "$name: counting its calls" "$LOG/out"; return; fi
    made="its $total calls"
    if [ "$who" = launcher ]; then
        ns=$(seq 1 $((total + 2 * 5))) # each child sets 5 variables (tsrun.c, node_env)
        made="tsrun's $total calls and its children's before exec"
    elif [ "$LATER" = all ] || [ "$total" -le $((SETUP + LATER)) ]; then
        ns=$(seq 1 "$total")
    else
        ns="$(seq 1 "$SETUP") $(seq $((SETUP + 1)) $(((total - SETUP) / LATER)) "$total" | head -n "$LATER")"
    fi
    for n in $ns; do
        job "$of" "$who" "$n" "$@"; local rc=$?
        runs=$((runs + 1))
        if ! judged "$who" $rc; then
            bad "$name: call $n of $total failing (exit $rc)" "$LOG/out"
            return
        fi
        [ $rc -ne 0 ] && stopped=$((stopped + 1))
    done
    ok "$name: $runs runs, each failing one of $made: $stopped stopped the job with its message, $((runs - stopped)) passed"
}

# A thread whose stack cannot be mapped: pthread_create says only EAGAIN,
# so the message names the limits that cause it. (1 GB stacks under a
# 500 MB address space; a 16M region leaves the rest of start-up room.)
expect_fail "failed_calls/no room for the comm thread's stack: the limits named" \
    "^tessera: node [01]: cannot start the communication thread: .*ulimit -v and -s" \
    bash -c "ulimit -s 1000000 -v 500000 && TSR_MEMORY=16M exec $TSRUN -n 2 $PROG"

sweep malloc launcher
sweep malloc 0 TSR_TRANSPORT=shm
sweep malloc 1 TSR_TRANSPORT=shm
sweep malloc 1 TSR_TRANSPORT=tcp
sweep malloc 0 TSR_TRANSPORT=udp
sweep malloc 1 TSR_PROTO=lrc
sweep sys launcher
sweep sys 0 TSR_TRANSPORT=shm
sweep sys 1 TSR_TRANSPORT=udp
sweep sys 1 TSR_DETECT=uffd
finish
