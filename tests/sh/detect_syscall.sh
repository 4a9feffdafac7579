#!/usr/bin/env bash
# Shared memory that only the kernel or a second thread touches
# (tests/mp/detect_syscall.c): read(2) into invalid shared pages on non-home
# nodes, write(2) from them to a pipe, and a second user thread reading them
# work under TSR_DETECT=uffd, at 2-4 nodes. Under segv the program says it
# skips each, and why. Where segv's protections split the region page by
# page (vm.max_map_count), uffd splits it only where a run of home pages
# begins (exact write tracking). A read of freed memory crashes under segv too; a bad
# TSR_DETECT is refused.
. tests/lib.sh

expect_fail "TSR_DETECT=fast is refused, naming the variable" "TSR_DETECT='fast' is not one of" \
    env TSR_DETECT=fast $B/tests/mp/lock_counter 10

for m in read write thread; do
    expect_ok "$m under segv: skipped, saying why" "SKIP $m: access detection 'segv' does not serve" \
        env TSR_DETECT=segv $TSRUN -n 2 $B/tests/mp/detect_syscall $m
done
expect_ok "segv splits the shared region into mappings" "node 1: [1-9][0-9] mappings" \
    env TSR_DETECT=segv $TSRUN -n 2 $B/tests/mp/detect_syscall maps
expect_fail "a read of freed shared memory crashes under segv" "node 2 was killed by signal 11" \
    env TSR_DETECT=segv $TSRUN -n 3 $B/tests/mp/detect_syscall freed
if ! TSR_DETECT=uffd $B/tests/mp/lock_counter 10 >"$LOG/probe" 2>&1; then
    echo "# uffd checks skipped: $(grep -o 'TSR_DETECT=uffd: .*' "$LOG/probe")"
    finish
    exit
fi
for m in read write thread; do
    for n in 2 4; do
        expect_ok "$m -n $n under uffd" "node 1: $m PASS" env TSR_DETECT=uffd $TSRUN -n $n $B/tests/mp/detect_syscall $m
    done
done
expect_ok "uffd splits the shared region only at home runs" "node 1: [12] mappings" \
    env TSR_DETECT=uffd $TSRUN -n 2 $B/tests/mp/detect_syscall maps
finish
