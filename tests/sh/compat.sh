#!/usr/bin/env bash
# The TreadMarks and JIAJIA interfaces (include/tmk.h, Tmk.h, jia.h): their
# calls at 1-4 nodes (tests/mp/tmk_api.c, tests/mp/jia_api.c), their misuses,
# programs in the style of each system's published ones using every call
# (tests/compat/, K&R, built as their users built them) at 1-4 nodes under
# both protocols, the example programs under examples/ (same output at every
# node count), and programs built against the installed headers with
# pkg-config.
. tests/lib.sh
for n in 1 2 3 4; do
    run "tmk: distribute, malloc, locks, barriers, free (-n $n)" $TSRUN -n $n $B/tests/mp/tmk_api
    run "jia: homes of jia_alloc3/2/jia_alloc, locks, barriers (-n $n)" $TSRUN -n $n $B/tests/mp/jia_api
done
expect_fail "tmk: Tmk_distribute of a local variable names it" \
    "Tmk_distribute(0x[0-9a-f]*, 4): not a writable global variable" $TSRUN -n 2 $B/tests/mp/tmk_api stack
expect_fail "tmk: Tmk_distribute of more than 64 MiB is refused" \
    "Tmk_distribute(0x[0-9a-f]*, 67108865): more than 64 MiB" $TSRUN -n 2 $B/tests/mp/tmk_api big
expect_fail "tmk: lock id out of range" "Tmk_lock_acquire(4096): lock id out of range" \
    $TSRUN -n 2 $B/tests/mp/tmk_api lock
expect_fail "jia: lock id out of range" "jia_lock(16384): lock id out of range" \
    $TSRUN -n 2 $B/tests/mp/jia_api lock
expect_fail "jia: starthost out of range" "jia_alloc3(4096, 4096, 3): starthost is not a host of this 3-host job" \
    $TSRUN -n 3 $B/tests/mp/jia_api starthost

# knr PROG WORD: tests/compat/PROG.c, built with cc -std=gnu89 and the
# public headers only (and by clang-16, where installed, which keeps K&R
# under gnu89 as a warning), prints "WORD P of N: OK" on each of its N
# processes and exits 0, at 1-4 nodes under the home-based and the lazy
# protocol (TSR_PROTO: the default allocations'; Tmk_malloc is always lazy).
knr() {
    local prog=$1 word=$2 n proto
    if ! cc -std=gnu89 -Werror -Iinclude tests/compat/$prog.c -o "$LOG/$prog" \
        $B/lib/libtessera.a -pthread -lm >"$LOG/cc" 2>&1; then
        bad "compat/$prog builds with cc -std=gnu89 -Werror" "$LOG/cc"
        return
    fi
    ok "compat/$prog builds with cc -std=gnu89 -Werror and the public headers"
    if command -v clang-16 >/dev/null; then
        if clang-16 -std=gnu89 -Iinclude -c tests/compat/$prog.c -o "$LOG/$prog.o" >"$LOG/cc" 2>&1
        then ok "compat/$prog builds with clang-16 -std=gnu89"
        else bad "compat/$prog builds with clang-16 -std=gnu89" "$LOG/cc"; fi
    else
        skip "compat/$prog with clang-16: not installed"
    fi
    for proto in hlrc lrc; do
        for n in 1 2 3 4; do
            if TSR_PROTO=$proto timeout -k 2 60 $TSRUN -n $n "$LOG/$prog" >"$LOG/out" 2>&1 &&
                [ "$(grep -c "^$word [0-9]* of $n: OK$" "$LOG/out")" -eq $n ]; then
                ok "compat/$prog TSR_PROTO=$proto -n $n: every call, $n OK"
            else
                bad "compat/$prog TSR_PROTO=$proto -n $n" "$LOG/out"
            fi
        done
    done
}
knr tmk_knr process
knr jia_knr host
expect_fail "tmk: Tmk_errexit stops the job with its message" \
    "node 2: Tmk_errexit: stopped by process 2 of 3$" $TSRUN -n 3 "$LOG/tmk_knr" errexit
expect_fail "jia: jia_error stops the job with its message" \
    "node 2: jia_error: stopped by host 2 of 3" $TSRUN -n 3 "$LOG/jia_knr" error
expect_ok "jia: jia_config reports an option Tessera has no equivalent of, under TSR_VERBOSE" \
    "jia_config(HMIG, ON): accepted; Tessera has no home migration" \
    env TSR_VERBOSE=1 $TSRUN -n 1 "$LOG/jia_knr"

# example NAME PATTERN: the example's output at -n 1 holds PATTERN, and its
# output at -n 2, 3, 4 is the same, but for the lines naming a time or a
# host's statistics (jia_stopstat).
example() {
    local name=$1 pat=$2
    timeout -k 2 60 $TSRUN -n 1 $B/examples/$name 2>&1 | grep -v '^time\|^jia_stopstat' >"$LOG/$name.1"
    if grep -q -- "$pat" "$LOG/$name.1"; then ok "examples/$name -n 1"; else bad "examples/$name -n 1" "$LOG/$name.1"; fi
    for n in 2 3 4; do
        timeout -k 2 60 $TSRUN -n $n $B/examples/$name 2>&1 | grep -v '^time\|^jia_stopstat' >"$LOG/$name.$n"
        if cmp -s "$LOG/$name.1" "$LOG/$name.$n"; then ok "examples/$name -n $n: same output as -n 1"
        else bad "examples/$name -n $n: output differs from -n 1" "$LOG/$name.$n"; fi
    done
}
example tmk_sor "^rows relaxed 3960 of 3960$"
example jia_mm "^rows 128 of 128$"
example tmk_queue "^tasks 200, sum of results 3838686911475$"
example jia_heat "^rows relaxed 5040 in 40 sweeps$"

installed() {
    local prefix="$LOG/prefix" flags
    make -s --no-print-directory install PREFIX="$prefix" >"$LOG/out" 2>&1 || { bad "install" "$LOG/out"; return; }
    flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tessera)
    for ex in tmk_knr jia_knr; do
        if cc -std=gnu89 tests/compat/$ex.c -o "$LOG/$ex.installed" $flags >>"$LOG/out" 2>&1 &&
            timeout -k 2 60 "$prefix/bin/tsrun" -n 2 "$LOG/$ex.installed" >"$LOG/run" 2>&1 &&
            [ "$(grep -c ": OK$" "$LOG/run")" -eq 2 ]; then
            ok "compat/$ex built with the installed headers (<Tmk.h>, <jia.h>) and pkg-config, run -n 2"
        else
            cat "$LOG/run" >>"$LOG/out"
            bad "compat/$ex against the installed headers" "$LOG/out"
        fi
    done
    for ex in tmk_sor jia_mm tmk_queue jia_heat; do
        if cc examples/$ex.c -o "$LOG/$ex" $flags >>"$LOG/out" 2>&1 &&
            timeout -k 2 60 "$prefix/bin/tsrun" -n 2 "$LOG/$ex" 2>&1 |
            grep -v '^time\|^jia_stopstat' | cmp -s - "$LOG/$ex.1"; then
            ok "examples/$ex built with the installed header and pkg-config, run -n 2"
        else
            bad "examples/$ex against the installed header" "$LOG/out"
        fi
    done
}
installed
finish
