#!/usr/bin/env bash
# PARMACS programs (tests/parmacs/*.C) built through share/tessera/c.m4.tessera
# with m4 (docs/OMPNOW.md): at 1-4 nodes each reads its input on every node
# (tsrun --stdin all), verifies its result, and prints one line: node 0's,
# since the other nodes' standard output is discarded. Also: a bad input is
# refused, and `make install` installs the macro file, with which a program
# builds against the installed header.
. tests/lib.sh

# one PROG INPUT PATTERN N: the output is exactly one line, matching PATTERN.
one() {
    local prog=$1 input=$2 pat=$3 n=$4 name="parmacs/$1 -n $4"
    if printf '%s\n' "$input" | timeout -k 2 120 $TSRUN --stdin all -n "$n" "$B/parmacs/$prog" \
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
expect_fail "parmacs/sor: input that is not a size is refused" 'want "N ITERATIONS"' \
    sh -c "echo x | $TSRUN --stdin all -n 2 $B/parmacs/sor"

installed() {
    local prefix="$LOG/prefix"
    make -s --no-print-directory install PREFIX="$prefix" >"$LOG/out" 2>&1 || { bad "install" "$LOG/out"; return; }
    if m4 "$prefix/share/tessera/c.m4.tessera" tests/parmacs/sor.C >"$LOG/sor.c" &&
        cc "$LOG/sor.c" -o "$LOG/sor" $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tessera) \
            >>"$LOG/out" 2>&1 &&
        echo "40 4" | timeout -k 2 60 "$prefix/bin/tsrun" --stdin all -n 2 "$LOG/sor" 2>&1 | grep -q "PASS$"; then
        ok "c.m4.tessera installed; sor built with it and the installed header, run -n 2"
    else
        bad "c.m4.tessera installed and used" "$LOG/out"
    fi
}
installed
finish
