#!/usr/bin/env bash
# The userfaultfd detection backend (TSR_DETECT=uffd), beyond the
# multi-process suite that tests/matrix runs under it: every application's
# check at 1-4 nodes; `auto`'s choice and its fallback, and `uffd`
# refused where it cannot run; an access to freed memory still a crash.
. tests/lib.sh

if ! TSR_DETECT=uffd $B/tests/mp/lock_counter 10 >"$LOG/probe" 2>&1; then
    skip_all "$(grep -o 'TSR_DETECT=uffd: .*' "$LOG/probe" || tail -n 1 "$LOG/probe")"
fi

for app in $(make -s --no-print-directory print-APPS); do
    args=$(make -s --no-print-directory print-${app}_TEST_ARGS)
    for n in 1 2 3 4; do
        run "apps/$app -n $n TSR_DETECT=uffd" env TSR_DETECT=uffd $TSRUN -n $n $B/apps/$app $args
    done
done

expect_ok "TSR_DETECT=auto picks uffd where it is available" "access detection: uffd" \
    env TSR_DETECT=auto TSR_VERBOSE=1 $TSRUN -n 2 $B/tests/mp/lock_counter 10
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && [ "$(cat /proc/sys/vm/unprivileged_userfaultfd)" = 0 ] &&
    ! setpriv --reuid=65534 --regid=65534 --clear-groups test -r /dev/userfaultfd; then
    expect_ok "TSR_DETECT=auto falls back to segv, saying why (unprivileged user)" \
        "TSR_DETECT=auto: using segv: userfaultfd is not available" \
        setpriv --reuid=65534 --regid=65534 --clear-groups env TSR_DETECT=auto TSR_VERBOSE=1 \
        $B/tests/mp/lock_counter 10
    expect_fail "TSR_DETECT=uffd without userfaultfd stops, naming the variable and why" \
        "TSR_DETECT=uffd: userfaultfd is not available: .* (it needs root" \
        setpriv --reuid=65534 --regid=65534 --clear-groups env TSR_DETECT=uffd $B/tests/mp/lock_counter 10
fi
expect_fail "a read of freed shared memory crashes under uffd" "node 2 was killed by signal 11" \
    env TSR_DETECT=uffd $TSRUN -n 3 $B/tests/mp/detect_syscall freed
finish
