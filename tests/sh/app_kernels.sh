#!/usr/bin/env bash
# Every application with an MPI version runs the same machine code for its
# arithmetic in all its programs (apps/common/app.h): apps/NAME/NAME_kernels.c
# is in its sequential, Tessera and MPI source lists, and each function it
# defines disassembles to the same instructions in every program built.
# Inlined kernels once made Tessera's LU 20% slower than MPI's for no reason
# of the DSM's; this keeps the benchmark comparing like with like.
. tests/lib.sh

# The instructions of function $2 in binary $1, without addresses, jump
# targets, constants' places or padding.
instructions() {
    objdump -d --no-show-raw-insn --disassemble="$2" "$1" |
        sed -n "/<$2>:/,/^\$/p" | tail -n +2 |
        sed -E 's/^ *[0-9a-f]+:\s*//; s/[0-9a-f]+ <[^>]*>//g; s/#.*//; s/-?0x[0-9a-f]+\(%rip\)/RIP/g' |
        grep -v -E '^(nop|xchg +%ax,%ax|cs nopw|data16)|^$'
}

command -v objdump >/dev/null || skip_all "objdump (binutils) is missing"
for app in $(make -s print-APPS); do
    [ -n "$(make -s "print-${app}_MPI_SRCS")" ] || continue
    k=apps/$app/${app}_kernels.c
    for list in SRCS SEQ_SRCS MPI_SRCS; do
        if make -s "print-${app}_$list" | tr ' ' '\n' | grep -qx "$k"; then
            ok "$app: ${app}_$list has $k"
        else
            bad "$app: ${app}_$list does not list $k"
        fi
    done
    gcc -D_GNU_SOURCE -Iapps/common -c "$k" -o "$LOG/k.o" || { bad "$app: $k does not compile"; continue; }
    funcs=$(nm --defined-only "$LOG/k.o" | awk '$2 == "T" { print $3 }')
    [ -n "$funcs" ] || bad "$app: $k defines no function"
    for prog in "$app" "${app}_mpi"; do
        if [ ! -x "$B/apps/$prog" ]; then
            skip "$app: $B/apps/$prog is not built (make mpi-apps, with the MPI compiler make bench-deps installs)"
            continue
        fi
        for f in $funcs; do
            instructions "$B/apps/${app}_seq" "$f" >"$LOG/seq"
            instructions "$B/apps/$prog" "$f" >"$LOG/other"
            if [ -s "$LOG/seq" ] && cmp -s "$LOG/seq" "$LOG/other"; then
                ok "$app: $f is the same in ${app}_seq and $prog ($(wc -l <"$LOG/seq") instructions)"
            else
                diff "$LOG/seq" "$LOG/other" >"$LOG/diff"
                bad "$app: $f differs between ${app}_seq and $prog" "$LOG/diff"
            fi
        done
    done
done
finish
