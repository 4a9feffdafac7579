#!/usr/bin/env bash
# tests/plan.sh DIR - finds every test and writes, for each one whose name
# matches $T, a TAP source DIR/<name>.t that runs it from the repository
# root. Prints one line per test: the source's path, a tab, the test's name.
# tests/run.sh runs these sources; `prove -j2 -r DIR` runs them too.
#
# Where the tests come from (nothing here names a test):
#   sh/NAME             tests/sh/NAME.sh, a scripted test (tests/lib.sh)
#   apps/APP ...        every app the Makefile knows (make print-APPS), its
#                       sequential version and 1-4 nodes, on APP_TEST_ARGS;
#                       and under each configuration of the matrix that
#                       runs the set `apps`, at its node counts; a threaded
#                       app (make print-THREADED_APPS) with TSR_THREADS=2
#                       under each that runs `threads`
#   mp/PROG ... CFG -n N  every program of tests/mp/ that declares a line
#                       `/* tsr-test: SET [-n LIST] [ARGS...] */`, under
#                       each configuration of the matrix that runs SET, at
#                       that configuration's node counts (only those in
#                       LIST, if given), with ARGS. Programs that declare
#                       nothing are helpers of the scripted tests.
#   unit/NAME           tests/unit/NAME.c, an in-process unit test
#
# T is a space-separated list of shell patterns; a test is planned when its
# name contains one of them (`T=lock_counter`, `T='sh/ unit/'`, T unset: all).
# B is the build directory (default build), TSR_TEST_MATRIX the matrix file
# (default tests/matrix, whose comment describes its lines), TSR_TEST_TIER
# a tier (below).
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.."
B=${B:-build}
TSRUN=${TSRUN:-$B/bin/tsrun}
MATRIX=${TSR_TEST_MATRIX:-tests/matrix}
dir=${1:?usage: tests/plan.sh DIR}
read -ra patterns <<<"${T:-}"

die() { echo "tests/plan.sh: $*" >&2; exit 2; }

# TSR_TEST_TIER=NAME: only the tests tests/NAME.tier lists, one pattern a
# line (make check: quick).
tier=()
if [ -n "${TSR_TEST_TIER:-}" ]; then
    [[ $TSR_TEST_TIER =~ ^[a-z]+$ && -r tests/$TSR_TEST_TIER.tier ]] ||
        die "TSR_TEST_TIER='$TSR_TEST_TIER': there is no tests/$TSR_TEST_TIER.tier"
    mapfile -t tier < <(grep -v '^#' "tests/$TSR_TEST_TIER.tier")
fi

# any_of NAME PATTERNS...: NAME contains one of the PATTERNS, or none is given.
any_of() {
    local name=$1 p
    shift
    [ $# -eq 0 ] && return 0
    for p in "$@"; do [[ $name == *$p* ]] && return 0; done
    return 1
}

matches() {
    any_of "$1" "${tier[@]}" && any_of "$1" "${patterns[@]}"
}

# write_test NAME BODY: writes the TAP source of test NAME, whose BODY runs
# after the preamble, and lists it.
write_test() {
    local name=$1 body=$2 file=${1// -n /.n}
    file=$dir/${file//[^A-Za-z0-9_.\/-]/.}.t
    matches "$name" || return 0
    mkdir -p "$(dirname "$file")"
    printf '#!/usr/bin/env bash\n# %s (written by tests/plan.sh)\ncd %q || exit 1\nexport B=%q TSRUN=%q\n%s\n' \
        "$name" "$PWD" "$B" "$TSRUN" "$body" >"$file"
    chmod +x "$file"
    printf '%s\t%s\n' "$file" "$name"
}

# one_check NAME CMD: a test of one check, passed when CMD (shell words)
# exits 0 in time.
one_check() {
    write_test "$1" "$(printf '. tests/lib.sh\nrun %q %s\nfinish' "$1" "$2")"
}

plan_scripts() {
    local f
    for f in tests/sh/*.sh; do
        write_test "sh/$(basename "$f" .sh)" \
            "exec timeout -k 5 \"\${TSR_TEST_TIMEOUT:-120}\" bash $f"
    done
}

# plan_app_configs APP ARGS: APP under the configurations that run `apps`.
plan_app_configs() {
    local i n env
    for i in "${!cfg_name[@]}"; do
        [[ ${cfg_sets[i]} == *",apps,"* ]] || continue
        env=${cfg_env[i]:+env ${cfg_env[i]} }
        for n in ${cfg_nodes[i]}; do
            one_check "apps/$1 ${cfg_name[i]} -n $n" "$env\"\$TSRUN\" -n $n \"\$B/apps/$1\" $2"
        done
    done
}

# plan_app_threads APP ARGS: APP with 2 threads per node (TSR_THREADS=2)
# under the configurations that run `threads`, at their node counts.
plan_app_threads() {
    local i n env
    for i in "${!cfg_name[@]}"; do
        [[ ${cfg_sets[i]} == *",threads,"* ]] || continue
        env="env TSR_THREADS=2 ${cfg_env[i]}"
        for n in ${cfg_nodes[i]}; do
            one_check "apps/$1 TSR_THREADS=2 ${cfg_name[i]} -n $n" \
                "$env \"\$TSRUN\" -n $n \"\$B/apps/$1\" $2"
        done
    done
}

plan_apps() {
    local apps app args n threaded
    apps=$(make -s --no-print-directory print-APPS) || die "make print-APPS failed"
    [ -n "$apps" ] || return 0
    # One make for the threaded apps and every app's arguments, one line
    # each, in order.
    exec 3< <(make -s --no-print-directory print-THREADED_APPS \
        $(printf 'print-%s_TEST_ARGS ' $apps))
    read -r threaded <&3 || die "make print-THREADED_APPS failed"
    threaded=" $threaded "
    for app in $apps; do
        read -r args <&3 || die "make print-${app}_TEST_ARGS failed"
        one_check "apps/$app sequential" "\"\$B/apps/${app}_seq\" $args"
        for n in 1 2 3 4; do
            one_check "apps/$app -n $n" "\"\$TSRUN\" -n $n \"\$B/apps/$app\" $args"
        done
        plan_app_configs "$app" "$args"
        [[ $threaded != *" $app "* ]] || plan_app_threads "$app" "$args"
    done
    exec 3<&-
}

# The matrix, one configuration per index.
cfg_name=() cfg_sets=() cfg_nodes=() cfg_env=()
read_matrix() {
    local line no=0 name sets nodes env
    [ -r "$MATRIX" ] || die "cannot read the test matrix '$MATRIX' (TSR_TEST_MATRIX)"
    while IFS= read -r line; do
        no=$((no + 1))
        line=${line%%#*}
        read -r name sets nodes env <<<"$line" || true
        [ -n "${name:-}" ] || continue
        [[ ${sets:-} =~ ^[a-z0-9_-]+(,[a-z0-9_-]+)*$ ]] ||
            die "$MATRIX:$no: SETS '${sets:-}' of '$name' is not a comma-separated list of set names"
        [[ ${nodes:-} =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
            die "$MATRIX:$no: NODES '${nodes:-}' of '$name' is not a comma-separated list of node counts"
        [[ -z $env || $env =~ ^([A-Z_][A-Z0-9_]*=[^ ]*( +|$))+$ ]] ||
            die "$MATRIX:$no: environment '$env' of '$name' is not VARIABLE=VALUE words"
        cfg_name+=("$name") cfg_sets+=(",$sets,") cfg_nodes+=("${nodes//,/ }") cfg_env+=("$env")
    done <"$MATRIX"
}

# plan_program FILE SET [-n LIST] [ARGS...]: one declaration of a program.
plan_program() {
    local prog set only= args i n env
    prog=$(basename "$1" .c) set=$2
    shift 2
    if [ "${1:-}" = -n ]; then
        [[ ${2:-} =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
            die "tests/mp/$prog.c: tsr-test -n '${2:-}' is not a comma-separated list of node counts"
        only=",$2," && shift 2
    fi
    args=${*:+ $*}
    for i in "${!cfg_name[@]}"; do
        [[ ${cfg_sets[i]} == *",$set,"* ]] || continue
        env=${cfg_env[i]:+env ${cfg_env[i]} }
        for n in ${cfg_nodes[i]}; do
            [[ -z $only || $only == *",$n,"* ]] || continue
            one_check "mp/$prog$args ${cfg_name[i]} -n $n" \
                "$env\"\$TSRUN\" -n $n \"\$B/tests/mp/$prog\"$args"
        done
    done
}

plan_programs() {
    local f decl
    for f in tests/mp/*.c; do
        while read -ra decl; do
            plan_program "$f" "${decl[@]}"
        done < <(sed -n 's|^/\* tsr-test: \(.*\) \*/$|\1|p' "$f")
    done
}

plan_units() {
    local f
    for f in tests/unit/*.c; do
        one_check "unit/$(basename "$f" .c)" "\"\$B/tests/unit/$(basename "$f" .c)\""
    done
}

rm -rf "$dir"
mkdir -p "$dir"
# Longest first, so that the parallel runner's last minutes are not spent
# waiting on one slow script.
read_matrix
plan_scripts
plan_apps
plan_programs
plan_units
