# tests/lib_omp.sh - what tests/sh/omp.sh and tests/sh/omp_teams.sh share:
# the programs of tests/omp/ built by clang-16 -fopenmp (libomp, one
# machine) and by tsrcc -fopenmp, and one run of the Tessera build compared
# with libomp's at the same team size. Sourced after tests/lib.sh.
tsrcc=$B/bin/tsrcc
[ -x "$tsrcc" ] || missing_all "tsrcc is missing (clang-16, llvm-16-dev: make deps)"
[ -f /usr/lib/llvm-16/lib/libomp.so ] || missing_all "libomp-16-dev is missing (make deps)"

# omp_sanitizer: tsan or asan when $B's library is built with that sanitizer.
omp_sanitizer() {
    local syms
    syms=$(nm "$B/lib/libtessera.a" 2>/dev/null)
    if grep -q ' U __tsan_init' <<<"$syms"; then echo tsan
    elif grep -q ' U __asan_init' <<<"$syms"; then echo asan; fi
}

# Some schedule(runtime) loops, under the same OMP_SCHEDULE on both sides.
export OMP_SCHEDULE=guided,3

# build_omp NAME SRC OPT [TSRCC-FLAGS...]: $LOG/NAME-OPT.ref by clang-16
# -fopenmp and $LOG/NAME-OPT by tsrcc -fopenmp; reports a failure and
# returns 1 if either does not build.
build_omp() {
    local name=$1 src=$2 opt=$3
    shift 3
    if ! clang-16 -fopenmp -$opt -o "$LOG/$name-$opt.ref" "$src" >"$LOG/cc" 2>&1 ||
        ! "$tsrcc" -fopenmp -$opt "$@" -o "$LOG/$name-$opt" "$src" >"$LOG/cc" 2>&1; then
        bad "omp/$name builds with clang-16 -fopenmp -$opt and tsrcc -fopenmp -$opt $*" "$LOG/cc"
        return 1
    fi
}

# build_omp_app APP: $LOG/APP, the application's OpenMP form
# (APP_OMP_SRCS) built by tsrcc -fopenmp, and `args`, its test input;
# reports a failure and returns 1 if it does not build.
build_omp_app() {
    local srcs
    srcs=$(make -s --no-print-directory print-$1_OMP_SRCS)
    args=$(make -s --no-print-directory print-$1_TEST_ARGS)
    if ! "$tsrcc" -fopenmp -O2 -D_GNU_SOURCE -Iapps/common -o "$LOG/$1" $srcs >"$LOG/cc" 2>&1; then
        bad "apps/$1 OpenMP form builds" "$LOG/cc"
        return 1
    fi
}

# compare NAME BUILD N TEAM [VAR=VALUE...]: BUILD at N nodes, under the
# variables, against libomp with OMP_NUM_THREADS=TEAM (stdout is compared;
# stderr may hold the runtime's notes).
compare() {
    local name=$1 build=$2 n=$3 team=$4
    shift 4
    local what="omp/$name ${build#"$name"} -n $n $*"
    OMP_NUM_THREADS=$team "$LOG/$build.ref" >"$LOG/ref" 2>&1
    env "$@" timeout -k 2 120 "$TSRUN" -n "$n" "$LOG/$build" >"$LOG/out" 2>"$LOG/err"
    local rc=$?
    if [ $rc -ne 0 ]; then
        bad "$what (exit $rc)" "$LOG/err"
    elif diff "$LOG/ref" "$LOG/out" >"$LOG/diff"; then
        ok "$what prints what libomp prints with $team threads"
    else
        bad "$what differs from libomp with $team threads ('<' libomp, '>' tessera)" "$LOG/diff"
    fi
}

# for_each_omp OPT FN [TSRCC-FLAGS...]: builds each program of tests/omp/
# (build_omp) and calls FN NAME BUILD for each that builds.
for_each_omp() {
    local opt=$1 fn=$2 src name
    shift 2
    for src in tests/omp/*.c; do
        name=$(basename "$src" .c)
        build_omp "$name" "$src" "$opt" "$@" && "$fn" "$name" "$name-$opt"
    done
}
