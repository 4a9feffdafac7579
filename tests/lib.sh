# tests/lib.sh - what every scripted test (tests/sh/*.sh) shares.
#
# A scripted test is a bash file under tests/sh/ that the test runner finds
# by itself. It runs from the repository root, sources this file, makes one
# or more checks and reports each as a TAP line ("ok N - name" or
# "not ok N - name"), so it runs alone (`bash tests/sh/x.sh`), under `prove`,
# or under tests/run.sh. It ends with `finish`, which prints the TAP plan and
# exits non-zero if any check failed. `skip_all REASON` skips the whole file
# where the machine cannot run it, `skip REASON` one check (the reason is
# printed); `missing_all` and `missing` do the same for a dependency that
# scripts/deps.sh installs, and fail instead under CI=true.
#
# Environment: B (build directory, default build), TSRUN (default
# $B/bin/tsrun). LOG is a private temporary directory, removed on exit.
B=${B:-build}
TSRUN=${TSRUN:-$B/bin/tsrun}
LOG=$(mktemp -d /tmp/tsr-test.XXXXXX)
trap 'rm -rf "$LOG"' EXIT
_tap_n=0 _tap_failed=0

ok() { _tap_n=$((_tap_n + 1)); printf 'ok %d - %s\n' "$_tap_n" "$1"; }

# bad NAME [FILE]: a failed check; FILE's last lines are shown as diagnostics.
bad() {
    _tap_n=$((_tap_n + 1)) _tap_failed=$((_tap_failed + 1))
    printf 'not ok %d - %s\n' "$_tap_n" "$1"
    [ -n "${2:-}" ] && [ -f "$2" ] && tail -n 15 "$2" | sed 's/^/#   | /'
    return 0
}

skip_all() { printf '1..0 # SKIP %s\n' "$1"; exit 0; }

# skip REASON: one check this machine cannot make (the reason is printed).
skip() { _tap_n=$((_tap_n + 1)); printf 'ok %d # SKIP %s\n' "$_tap_n" "$1"; }

# missing REASON, missing_all REASON: like skip and skip_all, for what
# scripts/deps.sh installs (a compiler, a launcher, a daemon). Under CI
# (CI=true) deps.sh has run, so a missing dependency is a failure: a run
# that skipped every CAS or cluster test must not pass.
missing() {
    if [ "${CI:-}" = true ]; then bad "$1 (CI=true: scripts/deps.sh should have installed it)"
    else skip "$1"; fi
}
missing_all() {
    [ "${CI:-}" = true ] || skip_all "$1"
    bad "$1 (CI=true: scripts/deps.sh should have installed it)"
    finish
    exit 1
}

finish() { printf '1..%d\n' "$_tap_n"; [ "$_tap_failed" -eq 0 ]; }

# run NAME CMD...: passes when CMD exits 0 within TSR_TEST_TIMEOUT seconds.
run() {
    local name=$1; shift
    if timeout -k 2 "${TSR_TEST_TIMEOUT:-120}" "$@" >"$LOG/out" 2>&1; then ok "$name"
    else bad "$name (exit $?)" "$LOG/out"; fi
}

# expect_fail NAME PATTERN CMD...: must exit non-zero within 20 s, printing
# PATTERN (grep regular expression) on stdout or stderr.
expect_fail() {
    local name=$1 pat=$2; shift 2
    timeout -k 2 20 "$@" >"$LOG/out" 2>&1; local rc=$?
    if [ $rc -ne 0 ] && grep -q -- "$pat" "$LOG/out"; then ok "$name (exit $rc)"
    else bad "$name (exit $rc)" "$LOG/out"; fi
}

# expect_ok NAME PATTERN CMD...: must exit 0 within 20 s, printing PATTERN.
expect_ok() {
    local name=$1 pat=$2; shift 2
    timeout -k 2 20 "$@" >"$LOG/out" 2>&1; local rc=$?
    if [ $rc -eq 0 ] && grep -q -- "$pat" "$LOG/out"; then ok "$name"
    else bad "$name (exit $rc)" "$LOG/out"; fi
}

# within NAME WANT PATTERN CMD...: CMD exits with status WANT (0, or "fail"
# for any other) within 10 s, printing PATTERN: what used to hang ends in
# time (the deadlock tests).
within() {
    local name=$1 want=$2 pat=$3; shift 3
    timeout -k 2 10 "$@" >"$LOG/out" 2>&1; local rc=$?
    local good=$([ "$want" = fail ] && [ $rc -ne 0 ] && [ $rc -ne 124 ] || [ "$rc" = "$want" ] && echo 1)
    if [ -n "$good" ] && grep -q -- "$pat" "$LOG/out"; then ok "$name (exit $rc)"
    else bad "$name (exit $rc)" "$LOG/out"; fi
}

# start OUT ERR CMD...: starts CMD in the background, its standard output
# to OUT and its errors to ERR, and sets `job` to its process id. OUT and
# ERR are removed first, so that no line of an earlier job can be read from
# them: the job's redirection empties them only once its shell runs, and on
# a loaded machine wait_ready read the last job's "ready" lines before that
# (sh/kill_node then killed a node of a job already over). A process of an
# earlier job that still writes writes to the removed file.
start() {
    rm -f "$1" "$2"
    "${@:3}" >"$1" 2>"$2" &
    job=$!
}

# wait_gone PID SECONDS: waits until process PID (a job started with
# `start`) has ended, looking every 0.1 s; fails if it still runs after
# SECONDS.
wait_gone() {
    local waited=0
    while kill -0 "$1" 2>/dev/null && [ $waited -lt $(($2 * 10)) ]; do
        sleep 0.1; waited=$((waited + 1))
    done
    ! kill -0 "$1" 2>/dev/null
}

# judge_stop NAME ERR NODES VICTIM T0 CAUSE TSRUN: once the job `start`
# started ($job) has ended, which node VICTIM's failure should have
# ended: passes if it exited non-zero, every other node printed
# "stopping: node VICTIM CAUSE..." on ERR and tsrun "tsrun: node VICTIM
# TSRUN...", and reports the seconds since T0 (date +%s.%N).
judge_stop() {
    wait $job; local rc=$?
    local dt; dt=$(awk -v a="$5" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    local named; named=$(grep -c "^tessera: node [0-9]*: stopping: node $4 $6" "$2")
    if [ $rc -ne 0 ] && [ "$named" -eq $(($3 - 1)) ] && grep -q "tsrun: node $4 $7" "$2"; then
        ok "$1 (all stopped in $dt s, exit $rc)"
    else
        bad "$1 (exit $rc, $named of $(($3 - 1)) nodes named node $4)" "$2"
    fi
}

# wait_ready FILES COUNT: waits (at most 20 s) until COUNT lines of FILES
# (a file, or a pattern of several) start with "ready" (tests/mp/sleeper
# prints "ready NODE PID"). FILES must be new to the job: start it with
# `start`, or remove them first.
wait_ready() {
    for _ in $(seq 200); do
        [ "$(cat $1 2>/dev/null | grep -c '^ready')" -ge "$2" ] && return 0; sleep 0.1
    done
    return 1
}
