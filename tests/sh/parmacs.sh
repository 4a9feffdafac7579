#!/usr/bin/env bash
# PARMACS programs (tests/parmacs/*.C) built through share/tessera/c.m4.tessera
# with m4 (docs/OMPNOW.md): node 0 runs main alone, so each program reads its
# input and prints its result once, at 1-4 nodes. splash.C, which uses every
# macro of SPLASH-3's pthreads file as the suite does, must print at 1-4 and
# 8 nodes exactly what its pthreads build (tests/parmacs/c.m4.pthreads) prints
# with as many threads. Also: a bad input is refused; a process count other
# than the node count, and one lock more than Tessera has, stop the job
# naming the macro, while every lock id up to the last works; `make install` installs the macro file, with which a program
# builds against the installed headers.
. tests/lib.sh

# one PROG INPUT PATTERN N: the output is exactly one line, matching PATTERN.
one() {
    local prog=$1 input=$2 pat=$3 n=$4 name="parmacs/$1 -n $4"
    if printf '%s\n' "$input" | timeout -k 2 120 $TSRUN -n "$n" "$B/parmacs/$prog" \
        >"$LOG/out" 2>&1 && [ "$(wc -l <"$LOG/out")" -eq 1 ] && grep -q -- "$pat" "$LOG/out"; then
        ok "$name: one line of output, verified"
    else
        bad "$name" "$LOG/out"
    fi
}
for n in 1 2 3 4; do
    one sor "96 12" "^sor 96 12: checksum .* PASS$" $n
    one mm "80" "^mm 80: 10 blocks counted in 4 bands PASS$" $n
done
# same N: splash -pN on N nodes prints what the pthreads build prints.
same() {
    local n=$1 name="parmacs/splash -p$1 on $1 nodes and on $1 threads"
    if "$B/parmacs/splash.pthreads" -p"$n" >"$LOG/want" 2>&1 &&
        timeout -k 2 120 $TSRUN -n "$n" "$B/parmacs/splash" -p"$n" >"$LOG/out" 2>&1 &&
        grep -q "^splash -p$n: PASS$" "$LOG/out" && cmp -s "$LOG/want" "$LOG/out"; then
        ok "$name: the same lines, PASS"
    else
        diff "$LOG/want" "$LOG/out" >>"$LOG/out"
        bad "$name" "$LOG/out"
    fi
}
for n in 1 2 3 4 8; do
    same $n
done
expect_fail "parmacs/splash: CREATE with more processes than nodes stops the job" \
    "CREATE(SlaveStart, 3): one process per node, but the job has 2 nodes" \
    $TSRUN -n 2 "$B/parmacs/splash" -p3
# Lock ids: every one up to the last works (the program takes the highest),
# one more stops the job at ALOCKINIT naming the limit, which leaves room
# for WATER-SPATIAL's lock per cell box at 32,768 molecules (4,096, and
# its six others).
expect_fail "parmacs/splash: more locks than Tessera has stop the job at ALOCKINIT" \
    "ALOCKINIT(m->l): 70000 more locks after [0-9]*, but Tessera has 16384 lock ids" \
    $TSRUN -n 4 "$B/parmacs/splash" -p4 -l 70000
used=$(sed -n 's/.*70000 more locks after \([0-9]*\),.*/\1/p' "$LOG/out")
left=$((16383 - ${used:-16383})) # less the macro file's own
if [ "$left" -ge 4102 ] && timeout -k 2 120 $TSRUN -n 4 "$B/parmacs/splash" -p4 -l "$left" \
    >"$LOG/out" 2>&1 && grep -q "^last 4 of $left more locks each taken by every process: yes" \
    "$LOG/out" && grep -q "^splash -p4: PASS$" "$LOG/out"; then
    ok "parmacs/splash -l $left: every lock id up to the last, taken by 4 nodes"
else
    bad "parmacs/splash -l $left: every lock id up to the last" "$LOG/out"
fi
expect_fail "parmacs/splash: one lock more than there are ids stops the job" \
    "ALOCKINIT(m->l): $((left + 1)) more locks after $used, but Tessera has 16384" \
    $TSRUN -n 4 "$B/parmacs/splash" -p4 -l $((left + 1))
expect_fail "parmacs/sor: input that is not a size is refused" 'want "N ITERATIONS"' \
    sh -c "echo x | $TSRUN -n 2 $B/parmacs/sor"

installed() {
    local prefix="$LOG/prefix"
    make -s --no-print-directory install PREFIX="$prefix" >"$LOG/out" 2>&1 || { bad "install" "$LOG/out"; return; }
    if m4 "$prefix/share/tessera/c.m4.tessera" tests/parmacs/sor.C >"$LOG/sor.c" &&
        cc "$LOG/sor.c" -o "$LOG/sor" $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tessera) \
            >>"$LOG/out" 2>&1 &&
        echo "40 4" | timeout -k 2 60 "$prefix/bin/tsrun" -n 2 "$LOG/sor" 2>&1 | grep -q "PASS$"; then
        ok "c.m4.tessera installed; sor built with it and the installed header, run -n 2"
    else
        bad "c.m4.tessera installed and used" "$LOG/out"
    fi
}
installed
finish
