#!/usr/bin/env bash
# Every application built by tsrcc at every CAS-DSM level (build/cas/LEVEL/,
# docs/CAS.md) computes what it computes uninstrumented, at 1-4 nodes: each
# application checks its result against its sequential computation (most
# to the bit, the others to their stated tolerance) and prints PASS or FAIL,
# and exits non-zero on FAIL. The checks may only change where faults
# happen, never a result. Under TSR_DETECT=uffd and TSR_PROTO=lrc too, at 4
# nodes. Built with -tsr-poll too (build/cas/poll/), also with the comm
# thread asleep between messages and every poll looking (TSR_POLL_US=0),
# over each transport, under TSR_PROTO=lrc and under TSR_DETECT=uffd, at 4
# nodes.
. tests/lib.sh
[ -x "$B/bin/tsrcc" ] ||
    missing_all "tsrcc is missing (clang-16 and llvm-16-dev: make deps, then make)"
apps=$(make -s print-APPS)
for level in none basic aghoist agdiscard maxaghoist maxagdiscard poll; do
    for app in $apps; do
        args=$(make -s print-${app}_TEST_ARGS)
        for n in 1 2 3 4; do
            # shellcheck disable=SC2086
            expect_ok "$app $level -n $n" "verified=PASS" $TSRUN -n $n $B/cas/$level/$app $args
        done
    done
done
for app in $apps; do
    args=$(make -s print-${app}_TEST_ARGS)
    for env in TSR_DETECT=uffd TSR_PROTO=lrc; do
        # shellcheck disable=SC2086
        expect_ok "$app maxagdiscard $env -n 4" "verified=PASS" \
            env $env $TSRUN -n 4 $B/cas/maxagdiscard/$app $args
    done
done
# Polling with its comm thread asleep between messages, over each
# transport, under the lazy protocol and under uffd: the handlers run on
# the application thread as often as its polls find a message.
for app in $apps; do
    args=$(make -s print-${app}_TEST_ARGS)
    for env in TSR_TRANSPORT=shm TSR_TRANSPORT=tcp TSR_TRANSPORT=udp TSR_PROTO=lrc TSR_DETECT=uffd; do
        # shellcheck disable=SC2086
        expect_ok "$app poll $env TSR_PROGRESS=block -n 4" "verified=PASS" \
            env $env TSR_PROGRESS=block TSR_POLL_US=0 $TSRUN -n 4 $B/cas/poll/$app $args
    done
done
finish
