#!/usr/bin/env bash
# Threads that misuse the API stop with a message naming the cause, within
# seconds (tests/mp/thr_misuse.c): two threads of each node deadlocked on
# two locks (the report names both threads and both locks), a deadlock
# between the second threads of two nodes (named by node and thread), a lock wait
# behind a thread in tsr_barrier_threads (named under TSR_STALL_ABORT),
# per-node calls (fork/join, replicated sections) from a second thread,
# and Munin's or Themis' memory under TSR_THREADS > 1, which both refuse
# naming the protocol while TSR_THREADS=1 runs them.
. tests/lib.sh
P=$B/tests/mp/thr_misuse

for n in 1 2; do
    within "two threads deadlocked on two locks, $n node(s)" fail \
        "deadlock between 2 threads of node [01]: thread [01] waits for lock [1-4], held by thread [01]; thread [01] waits for lock [1-4], held by thread [01]" \
        $TSRUN -n $n $P locks2
    if grep -q "thread 0 waits for lock \([24]\), held by thread 1" "$LOG/out" &&
        grep -q "thread 1 waits for lock \([13]\), held by thread 0" "$LOG/out"; then
        ok "the report names both threads and what each holds, $n node(s)"
    else bad "the report names both threads and what each holds, $n node(s)" "$LOG/out"; fi
done
within "threads of two nodes deadlocked, each node's waiting thread named" fail \
    "deadlock between nodes 0 and 1: node 0 (thread 1) waits for lock 2, held by node 1; node 1 (thread 1) waits for lock 1, held by node 0" \
    $TSRUN -n 2 $P cross_nodes
within "a lock wait behind tsr_barrier_threads, named by thread" fail \
    "stalled [0-9]* s \(waiting for lock [12] at thread 1; held by thread 0 of this node, which waits in tsr_barrier_threads\|in tsr_barrier_threads at thread 0\)" \
    env TSR_STALL_ABORT=2 $TSRUN -n 2 $P lock_barrier
for call in fork serve replicate; do
    name=tsr_$call; [ $call = replicate ] && name=tsr_replicate_begin
    expect_fail "$name from a second thread" \
        "$name: called from thread [0-9]*, not from thread [0-9]* that called tsr_init" \
        $TSRUN -n 2 $P ${call}_thread
done
for mode in munin_alloc munin_malloc; do
    expect_fail "$mode under TSR_THREADS=2" \
        "protocol munin serves one application thread per node, and TSR_THREADS=2 asks for more" \
        env TSR_THREADS=2 $TSRUN -n 2 $P $mode
    expect_ok "$mode under TSR_THREADS=1" "^done" $TSRUN -n 2 $P $mode
done
expect_fail "Themis under TSR_THREADS=4" \
    "tsr_ga_alloc: Themis serves one application thread per node, and TSR_THREADS=4 asks for more" \
    env TSR_THREADS=4 $TSRUN -n 2 $P themis
expect_ok "Themis under TSR_THREADS=1" "^done" $TSRUN -n 2 $P themis
finish
