#!/usr/bin/env bash
# The harness itself: T selects tests by name, one line of the matrix adds a
# configuration to every program of its sets, a failing test is reported
# with its output and a non-zero status, prove runs the planned tests, a
# test that runs too long is stopped, bad settings are refused by name, and
# a job started in the background is never taken for an earlier one.
. tests/lib.sh
export TSR_TEST_JOBS=1
# Its checks are about the repository's matrix, whatever matrix the run
# that started it was given.
unset TSR_TEST_MATRIX TSR_TEST_TIER

# lock_counter is in the suite set: one run per node count of every
# configuration whose sets include `suite`.
want=$(awk '!/^#/ && NF >= 3 && index("," $2 ",", ",suite,") { n += split($3, x, ",") } END { print n }' tests/matrix)
T=lock_counter tests/run.sh --list >"$LOG/list" 2>&1
if [ "$(wc -l <"$LOG/list")" -eq "$want" ] && grep -qx "mp/lock_counter block -n 3" "$LOG/list" &&
    ! grep -qv lock_counter "$LOG/list"; then
    ok "harness/T=lock_counter lists lock_counter under every configuration and node count ($want)"
else
    bad "harness/T=lock_counter lists $want lock_counter tests" "$LOG/list"
fi

{ cat tests/matrix; echo "bogus suite,hlrc 1 TSR_PROGRESS=bogus"; } >"$LOG/matrix"
TSR_TEST_MATRIX=$LOG/matrix T="lock_counter*bogus" tests/run.sh >"$LOG/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && [ "$(tail -n 1 "$LOG/out")" = "0 passed, 1 failed" ] &&
    grep -q "^not ok 1 - mp/lock_counter bogus -n 1" "$LOG/out" && grep -q "TSR_PROGRESS='bogus'" "$LOG/out"; then
    ok "harness/a matrix line joins the suite; its failure shows the output, exit $rc"
else
    bad "harness/a failing configuration is reported (exit $rc)" "$LOG/out"
fi

T=unit/diff_roundtrip tests/run.sh >"$LOG/out" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ "$(tail -n 1 "$LOG/out")" = "1 passed, 0 failed" ]; then
    ok "harness/a passing test ends with '1 passed, 0 failed'"
else
    bad "harness/a passing test (exit $rc)" "$LOG/out"
fi

if T=unit/diff_roundtrip tests/plan.sh "$LOG/t" >/dev/null && prove -r "$LOG/t" >"$LOG/out" 2>&1; then
    ok "harness/prove runs the planned tests"
else
    bad "harness/prove runs the planned tests" "$LOG/out"
fi

TSR_TEST_TIMEOUT=1 T=sh/failures tests/run.sh >"$LOG/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "^not ok .* - sh/failures (timed out after TSR_TEST_TIMEOUT=1 s" "$LOG/out"; then
    ok "harness/a scripted test that outlives TSR_TEST_TIMEOUT is stopped and fails"
else
    bad "harness/TSR_TEST_TIMEOUT stops a scripted test (exit $rc)" "$LOG/out"
fi

# start (tests/lib.sh): a job's files hold no line of an earlier job's,
# neither one left in them nor one a process of that job writes later (a
# line longer than the new job's, which would not overwrite all of it);
# wait_ready sees the new job's alone. The job waits on a fifo until this
# shell has looked.
echo "ready 1 1" >"$LOG/ready"
exec {earlier}>>"$LOG/ready"
mkfifo "$LOG/go"
start "$LOG/ready" "$LOG/ready.err" sh -c 'read go <"$1"; echo "ready 0 $$"' sh "$LOG/go"
left=$(cat "$LOG/ready" 2>/dev/null | grep -c '^ready')
echo "ready 2 2, a late line of a node of the earlier job" >&$earlier
exec {earlier}>&-
echo go >"$LOG/go"
if wait_ready "$LOG/ready" 1 && wait $job && [ "$left" -eq 0 ] &&
    [ "$(cat "$LOG/ready")" = "ready 0 $job" ]; then
    ok "harness/start: wait_ready reads the new job's lines only"
else
    bad "harness/start: wait_ready reads the new job's lines only ($left left)" "$LOG/ready"
fi

expect_fail "harness/bad TSR_TEST_JOBS" "TSR_TEST_JOBS='two' is not a positive integer" env TSR_TEST_JOBS=two tests/run.sh
expect_fail "harness/bad TSR_TEST_TIMEOUT" "TSR_TEST_TIMEOUT='1m' is not a positive integer" env TSR_TEST_TIMEOUT=1m tests/run.sh
echo "broken suite x" >"$LOG/matrix"
expect_fail "harness/bad matrix line" "matrix:1: NODES 'x' of 'broken'" env TSR_TEST_MATRIX="$LOG/matrix" tests/run.sh
expect_fail "harness/no test matches T" "no test matches T='no-such-test'" env T=no-such-test tests/run.sh
finish
