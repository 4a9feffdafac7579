#!/usr/bin/env bash
# Misuse that used to hang ends with a message within 10 s, with the
# default settings: a deadlock between a lock and a barrier, and among the
# locks of several nodes (12 of them: two levels of the barrier tree the
# questions pass), names every node of the cycle (sync/deadlock.c);
# tsr_finalize while holding a lock names the lock; a Tessera call from a
# child made by fork() is refused, naming the call, and the job goes on. A
# lock held long while others wait is no deadlock. A node that stops on an
# error while another thread holds stdout's lock still says why and ends;
# the program's unflushed output still comes out at an ordinary exit.
. tests/lib.sh
P=$B/tests/mp/misuse

LB="deadlock between nodes 0 and 1: node 0 waits for lock 1, held by node 1; node 1 waits in call #3 tsr_barrier() for node 0, which has not entered it"
for n in 2 4; do
    within "lock against barrier, $n nodes" fail "stopping: $LB" $TSRUN -n $n $P deadlock_lock_barrier
done
within "a cycle of locks, 2 nodes" fail \
    "stopping: deadlock between nodes 0 and 1: node 0 waits for lock 1, held by node 1; node 1 waits for lock 0, held by node 0" \
    $TSRUN -n 2 $P deadlock_locks
within "a cycle of locks, 3 nodes" fail \
    "stopping: deadlock between nodes 0, 1 and 2: node 0 waits for lock 1, held by node 1; node 1 waits for lock 2, held by node 2; node 2 waits for lock 0, held by node 0" \
    $TSRUN -n 3 $P deadlock_locks
# 12 nodes: the questions pass two levels of the barrier tree
# (sync/where_tree.c), and the cycle needs every node's answer.
within "a cycle of locks, 12 nodes" fail \
    "stopping: deadlock between nodes 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 11: node 0 waits for lock 1, held by node 1; .* node 11 waits for lock 0, held by node 0" \
    env TSR_TRANSPORT=tcp $TSRUN -n 12 $P deadlock_locks
within "a cycle of locks over udp" fail "stopping: deadlock between nodes 0, 1 and 2" \
    env TSR_TRANSPORT=udp $TSRUN -n 3 $P deadlock_locks
if grep -q "node 0 waits.*node [1-3] waits" "$LOG/out"; then ok "every node of the cycle named"
else bad "every node of the cycle named" "$LOG/out"; fi
within "tsr_finalize holding a lock another node waits for" fail \
    "node 2: tsr_finalize: called while holding lock 1 (1 held in all)" $TSRUN -n 3 $P finalize_holding
within "tsr_finalize holding a lock, alone" fail "tsr_finalize: called while holding lock 1" \
    $P finalize_holding
within "tsr_barrier from a forked child refused" 0 \
    "tsr_barrier: called in process [0-9]*, a child that process [0-9]* made with fork()" \
    $TSRUN -n 2 $P fork_call
if grep -q "^child exit 1" "$LOG/out" && [ "$(grep -c '^done' "$LOG/out")" = 2 ]; then
    ok "the child exits 1, the job goes on"
else bad "the child exits 1, the job goes on" "$LOG/out"; fi
within "a lock held 3 s is no deadlock" 0 "^done" $TSRUN -n 3 $P long_hold
if grep -q deadlock "$LOG/out"; then bad "no deadlock reported for a long hold" "$LOG/out"
else ok "no deadlock reported for a long hold"; fi
within "an error while another thread holds stdout's lock" fail \
    "node 0: tsr_lock(-1): lock id out of range" $TSRUN -n 2 $P die_stdio_held
within "unflushed output at an ordinary exit" 0 "^unflushed line" $TSRUN -n 2 $P buffered_exit
finish
