#!/usr/bin/env bash
# tests/run.sh [--list] - runs every test whose name matches $T (see
# tests/plan.sh, which finds them), TSR_TEST_JOBS at a time (default: the
# number of cores), and reports each check as a TAP line as its test ends:
# "ok N - name", or "not ok N - name" followed by the test's last output
# lines. Ends with the plan line and "N passed, N failed"; the exit status
# is non-zero if any check failed. --list prints the names only.
#
# Environment: T (patterns), B (build directory), TSR_TEST_JOBS,
# TSR_TEST_TIMEOUT (seconds one test may run), TSR_TEST_MATRIX.
set -u
cd "$(dirname "$0")/.."
positive() { # VARIABLE VALUE
    [[ $2 =~ ^[1-9][0-9]*$ ]] && return 0
    echo "tests/run.sh: $1='$2' is not a positive integer" >&2
    exit 2
}
jobs=${TSR_TEST_JOBS:-$(nproc)}
positive TSR_TEST_JOBS "$jobs"
positive TSR_TEST_TIMEOUT "${TSR_TEST_TIMEOUT:-120}"
work=$(mktemp -d /tmp/tsr-run.XXXXXX)
trap 'rm -rf "$work"' EXIT
tests/plan.sh "$work/t" >"$work/plan" || exit 2
if [ "${1:-}" = --list ]; then
    cut -f2 "$work/plan"
    exit 0
fi
[ -s "$work/plan" ] || { echo "tests/run.sh: no test matches T='${T:-}'" >&2; exit 2; }

checks=0 passed=0 failed=0 skipped=0 failures=()

pass() { checks=$((checks + 1)) passed=$((passed + 1)); printf 'ok %d - %s\n' "$checks" "$1"; }
fail() {
    checks=$((checks + 1)) failed=$((failed + 1)) failures+=("$1")
    printf 'not ok %d - %s\n' "$checks" "$1"
}

# report NAME OUTPUT STATUS: the checks of one finished test. A test that
# timed out (status 124, from timeout(1) in its source), stopped before its
# plan line, or ran a different number of checks than it planned fails with
# its last output lines.
report() {
    local name=$1 out=$2 status=$3 prefix= line plan= ran=0 diag=0
    [[ $name == sh/* ]] && prefix="$name: "
    while IFS= read -r line; do
        case $line in
            "ok "*" # SKIP "*) ran=$((ran + 1)) diag=0 skipped=$((skipped + 1))
                printf '# skipped %s:%s\n' "$name" "${line#ok * # SKIP}" ;;
            "ok "*) ran=$((ran + 1)) diag=0; pass "$prefix${line#ok * - }" ;;
            "not ok "*) ran=$((ran + 1)) diag=1; fail "$prefix${line#not ok * - }" ;;
            "1..0 # SKIP"*) plan=0 skipped=$((skipped + 1)); printf '# skipped %s:%s\n' "$name" "${line#1..0 # SKIP}" ;;
            "1.."*) plan=${line#1..} ;;
            "#"*) [ $diag -eq 1 ] && printf '%s\n' "$line" ;;
        esac
    done <"$out"
    if [ "$status" -eq 124 ]; then
        fail "$name (timed out after TSR_TEST_TIMEOUT=${TSR_TEST_TIMEOUT:-120} s, $ran checks done)"
        tail -n 15 "$out" | sed 's/^/#   | /'
    elif [ "$plan" != "$ran" ]; then
        fail "$name (exit $status after $ran of ${plan:-an unknown number of} checks: it died)"
        tail -n 15 "$out" | sed 's/^/#   | /'
    fi
}

declare -A name_of out_of
running=0

reap() {
    local pid status
    wait -n -p pid
    status=$?
    report "${name_of[$pid]}" "${out_of[$pid]}" "$status"
    running=$((running - 1))
}

i=0
while IFS=$'\t' read -r file name; do
    [ $running -lt "$jobs" ] || reap
    i=$((i + 1))
    bash "$file" >"$work/out.$i" 2>&1 </dev/null &
    name_of[$!]=$name out_of[$!]=$work/out.$i
    running=$((running + 1))
done <"$work/plan"
while [ $running -gt 0 ]; do reap; done

printf '1..%d\n' "$checks"
[ $failed -eq 0 ] || printf '# failed: %s\n' "${failures[@]}"
[ $skipped -eq 0 ] || printf '# %d test(s) skipped\n' "$skipped"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
