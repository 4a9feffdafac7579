#!/usr/bin/env bash
# Runs every test: unit tests, multi-process tests at 1-4 nodes through
# tsrun, failure and security tests, and each application's check at 1-4
# nodes. Prints one line per test and ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
B=build
TSRUN=$B/bin/tsrun
NODES="1 2 3 4"
LIMIT=${TSR_TEST_TIMEOUT:-120}
passed=0 failed=0 failures=()
LOG=$(mktemp -d /tmp/tsr-test.XXXXXX)
trap 'rm -rf "$LOG"' EXIT

ok() { passed=$((passed + 1)); printf 'PASS  %s\n' "$1"; }
bad() {
    failed=$((failed + 1)); failures+=("$1"); printf 'FAIL  %s\n' "$1"
    [ -n "${2:-}" ] && [ -f "$2" ] && sed 's/^/      | /' "$2" | tail -n 15
}

# run NAME CMD...: passes when CMD exits 0 within the time limit.
run() {
    local name=$1; shift
    if timeout "$LIMIT" "$@" >"$LOG/out" 2>&1; then ok "$name"; else bad "$name (exit $?)" "$LOG/out"; fi
}

# ---- Unit tests -------------------------------------------------------------
for t in $B/tests/unit/*; do
    [[ $t == *.d ]] || run "unit/$(basename "$t")" "$t"
done

# ---- Multi-process tests ----------------------------------------------------
MP="lock_counter false_sharing producer_consumer barrier_visibility transitive free_reuse sparse_big am_framing page_states"
for t in $MP; do
    for n in $NODES; do run "mp/$t -n $n" $TSRUN -n "$n" $B/tests/mp/$t; done
done
# Munin's protocols: every annotation, the hints, and the phase-change hint
# that makes a new sharing pattern legal.
MUNIN="munin_write_shared munin_producer_consumer munin_result munin_conventional munin_migratory munin_reduction munin_hints"
for t in $MUNIN; do
    for n in $NODES; do run "mp/$t -n $n" $TSRUN -n "$n" $B/tests/mp/$t; done
done
for n in $NODES; do run "mp/munin_err_pattern phase -n $n" $TSRUN -n "$n" $B/tests/mp/munin_err_pattern phase; done
# The same protocol under the other progress policies and write detection.
for t in lock_counter false_sharing producer_consumer barrier_visibility transitive page_states; do
    run "mp/$t -n 3 TSR_PROGRESS=block" env TSR_PROGRESS=block $TSRUN -n 3 $B/tests/mp/$t
    run "mp/$t -n 2 TSR_PROGRESS=spin" env TSR_PROGRESS=spin $TSRUN -n 2 $B/tests/mp/$t
    run "mp/$t -n 4 TSR_WRITE_DETECT=all" env TSR_WRITE_DETECT=all $TSRUN -n 4 $B/tests/mp/$t
done

# ---- Failures: a node killed, crashed, or gone without tsr_finalize ---------
wait_ready() { # file count: waits (max 20 s) until `count` nodes printed "ready"
    for _ in $(seq 200); do
        [ "$(grep -c '^ready' "$1" 2>/dev/null)" -ge "$2" ] && return 0; sleep 0.1
    done
    return 1
}

kill_test() { # nodes victim
    local n=$1 v=$2 name="failure/kill -9 node $2 of $1"
    $TSRUN -n "$n" $B/tests/mp/sleeper 60 >"$LOG/kout" 2>"$LOG/kerr" &
    local job=$!
    if ! wait_ready "$LOG/kout" "$n"; then kill $job; bad "$name (never ready)" "$LOG/kerr"; return; fi
    local pid; pid=$(awk -v v="$v" '$1=="ready" && $2==v {print $3}' "$LOG/kout")
    local t0; t0=$(date +%s.%N)
    kill -9 "$pid"
    local waited=0
    while kill -0 $job 2>/dev/null && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
    if kill -0 $job 2>/dev/null; then kill -9 $job; bad "$name (tsrun still running after 10 s)" "$LOG/kerr"; return; fi
    wait $job; local rc=$?
    local dt; dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    local named; named=$(grep -c "^tessera: node [0-9]*: stopping: node $v " "$LOG/kerr")
    if [ $rc -ne 0 ] && [ "$named" -eq $((n - 1)) ] && grep -q "tsrun: node $v was killed by signal 9" "$LOG/kerr"; then
        ok "$name (all stopped in $dt s, exit $rc)"
    else
        bad "$name (exit $rc, $named of $((n - 1)) nodes named node $v)" "$LOG/kerr"
    fi
}
kill_test 2 1; kill_test 3 1; kill_test 4 2; kill_test 3 0

expect_fail() { # name pattern cmd...: must exit non-zero within 20 s, printing pattern
    local name=$1 pat=$2; shift 2
    timeout -k 2 20 "$@" >"$LOG/out" 2>&1; local rc=$?
    if [ $rc -ne 0 ] && grep -q -- "$pat" "$LOG/out"; then ok "$name (exit $rc)"; else bad "$name (exit $rc)" "$LOG/out"; fi
}
expect_fail "failure/exit without tsr_finalize" "node 2 exited without calling tsr_finalize" $TSRUN -n 3 $B/tests/mp/early_exit
expect_fail "failure/others name the departed node" "node 1: stopping: node 2 " $TSRUN -n 3 $B/tests/mp/early_exit
expect_fail "failure/access outside shared memory crashes (4 nodes)" "node 3 was killed by signal 11" $TSRUN -n 4 $B/tests/mp/wild_access
expect_fail "failure/access outside shared memory crashes (alone)" "writing to" $B/tests/mp/wild_access
expect_fail "failure/--timeout stops every node" "node 2: stopping: the job exceeded --timeout" $TSRUN -n 3 -t 2 $B/tests/mp/sleeper 30
expect_fail "failure/program that never joins" "exited without calling tsr_finalize" $TSRUN -n 2 /bin/true

for n in 1 2 4; do
    expect_fail "munin/write to read_only stops the job (-n $n)" "write to read-only shared variable at 0x[0-9a-f]* (annotation read_only" $TSRUN -n "$n" $B/tests/mp/munin_err_read_only
done
for n in 3 4; do
    expect_fail "munin/producer_consumer pattern broken stops the job (-n $n)" "access outside the stable sharing pattern (call tsr_hint_phase_change first) to shared variable at 0x[0-9a-f]* (annotation producer_consumer" $TSRUN -n "$n" $B/tests/mp/munin_err_pattern
done

# ---- Launcher options -----------------------------------------------------------
expect_ok() { # name pattern cmd...: must exit 0 within 20 s, printing pattern
    local name=$1 pat=$2; shift 2
    timeout -k 2 20 "$@" >"$LOG/out" 2>&1; local rc=$?
    if [ $rc -eq 0 ] && grep -q -- "$pat" "$LOG/out"; then ok "$name"; else bad "$name (exit $rc)" "$LOG/out"; fi
}
expect_ok "tsrun/-p prefixes each node's lines" "^\[2\] node 2: a=30 b=60 want 30 PASS" $TSRUN -p -n 3 $B/tests/mp/lock_counter 10
expect_ok "tsrun/-s prints each node's statistics" "tessera statistics, node 1 of 2" $TSRUN -s -n 2 $B/tests/mp/lock_counter 10
json_test() {
    rm -f "$LOG/stats.json"
    if timeout 20 $TSRUN -j "$LOG/stats.json" -n 3 $B/tests/mp/lock_counter 10 >/dev/null 2>&1 &&
        python3 -c 'import json,sys; l=[json.loads(x) for x in open(sys.argv[1])]; assert sorted(x["node"] for x in l)==[0,1,2]; assert all(x["lock_acquires"]==20 for x in l)' "$LOG/stats.json"; then
        ok "tsrun/-j writes one JSON object per node with the counters"
    else
        bad "tsrun/-j JSON statistics" "$LOG/stats.json"
    fi
}
json_test

# ---- Bad input ----------------------------------------------------------------
expect_fail "input/-n 0" "-n must be an integer" $TSRUN -n 0 $B/tests/mp/sleeper
expect_fail "input/missing -n" "-n N is required" $TSRUN $B/tests/mp/sleeper
expect_fail "input/missing program" "cannot execute '/no/such/program'" $TSRUN -n 2 /no/such/program
expect_fail "input/bad TSR_MEMORY" "TSR_MEMORY='lots' is not a size" env TSR_MEMORY=lots $TSRUN -n 2 $B/tests/mp/sleeper 1
expect_fail "input/bad TSR_PROGRESS" "TSR_PROGRESS='fast' is not one of" env TSR_PROGRESS=fast $B/tests/mp/sleeper 1
expect_fail "input/lock id out of range" "tsr_lock(5000): lock id out of range" $B/tests/mp/lock_counter -1
expect_fail "input/allocation larger than TSR_MEMORY" "raise TSR_MEMORY" env TSR_MEMORY=1G $TSRUN -n 2 $B/tests/mp/sparse_big

# ---- Scripted tests: every tests/sh/*.sh, each reporting TAP lines ----------
for t in tests/sh/*.sh; do
    B=$B TSRUN=$TSRUN bash "$t" >"$LOG/tap" 2>&1
    while IFS= read -r line; do
        case $line in
            "ok "*) ok "sh/$(basename "$t" .sh): ${line#ok * - }" ;;
            "not ok "*) bad "sh/$(basename "$t" .sh): ${line#not ok * - }" "$LOG/tap" ;;
        esac
    done <"$LOG/tap"
    grep -q '^1\.\.[0-9]' "$LOG/tap" || bad "sh/$(basename "$t" .sh) (no TAP plan: the script died)" "$LOG/tap"
done

# ---- Installation: make install, then build a program with pkg-config ---------
install_test() {
    local prefix="$LOG/prefix"
    if make -s --no-print-directory install PREFIX="$prefix" >"$LOG/out" 2>&1 &&
        cc tests/mp/lock_counter.c -o "$LOG/counter" \
            $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tessera) >>"$LOG/out" 2>&1 &&
        timeout 60 "$prefix/bin/tsrun" -n 3 "$LOG/counter" 100 >>"$LOG/out" 2>&1; then
        ok "install/make install + pkg-config build + installed tsrun -n 3"
    else
        bad "install" "$LOG/out"
    fi
}
install_test

# ---- Applications: each checks itself against the sequential computation ------
for app in ${APPS:-}; do
    args=$(make -s --no-print-directory print-${app}_TEST_ARGS)
    run "apps/$app sequential" $B/apps/${app}_seq $args
    for n in $NODES; do run "apps/$app -n $n" $TSRUN -n "$n" $B/apps/$app $args; done
done

echo
if [ $failed -gt 0 ]; then printf 'failed: %s\n' "${failures[@]}"; fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
