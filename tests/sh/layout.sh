#!/usr/bin/env bash
# One address layout per job (docs/GLOBALS.md): tsrun starts every node
# without address-space randomisation, so the program, its libraries, heap
# and stack lie at the same addresses everywhere; TSR_ASLR=keep leaves it on;
# a node whose layout differs from node 0's stops the job at tsr_init.
. tests/lib.sh
SHOW=$B/tests/mp/layout_show

# Each node's line without its "node K" prefix: one distinct line means every
# address agrees.
distinct() { sed -n 's/^node [0-9]* //p' "$1" | sort -u | wc -l; }

if timeout 20 $TSRUN -n 11 $SHOW >"$LOG/off" 2>&1 && [ "$(grep -c norandom=1 "$LOG/off")" -eq 11 ] &&
    [ "$(distinct "$LOG/off")" -eq 1 ]; then
    ok "layout/11 nodes without randomisation: program, libc, heap and stack addresses agree"
else
    bad "layout/addresses agree" "$LOG/off"
fi

if [ "$(cat /proc/sys/kernel/randomize_va_space)" = 0 ]; then
    ok "layout/TSR_ASLR=keep # SKIP randomisation is off on this machine"
elif timeout 20 env TSR_ASLR=keep $TSRUN -n 4 $SHOW >"$LOG/keep" 2>&1 &&
    [ "$(grep -c norandom=0 "$LOG/keep")" -eq 4 ] && [ "$(distinct "$LOG/keep")" -gt 1 ]; then
    ok "layout/TSR_ASLR=keep: randomised, addresses differ, the job still runs"
else
    bad "layout/TSR_ASLR=keep" "$LOG/keep"
fi

# tests/mp/function_pointer (in the suite) calls a pointer another node
# stored: with randomisation left on, it points elsewhere on the caller.
if [ "$(cat /proc/sys/kernel/randomize_va_space)" = 0 ]; then
    ok "layout/function pointers under TSR_ASLR=keep # SKIP randomisation is off on this machine"
else
    expect_fail "layout/TSR_ASLR=keep: a function pointer from another node crashes" \
        "killed by signal" env TSR_ASLR=keep $TSRUN -n 3 $B/tests/mp/function_pointer
fi

expect_fail "layout/a bad TSR_ASLR is refused" "TSR_ASLR='sometimes'" \
    env TSR_ASLR=sometimes $TSRUN -n 2 $SHOW

# Node 1 runs another binary: refused, naming the node and the image.
cat >"$LOG/other.sh" <<SH
#!/bin/sh
[ "\$TSR_NODE" = 1 ] && exec $B/tests/mp/startup "\$@"
exec $SHOW "\$@"
SH
chmod +x "$LOG/other.sh"
expect_fail "layout/a node running another binary is refused" \
    "address layouts differ: the program on node 1 is not the same file" $TSRUN -n 3 "$LOG/other.sh"

# Node 2 turns randomisation back on before exec: its addresses differ.
cat >"$LOG/random.sh" <<SH
#!/bin/sh
[ "\$TSR_NODE" = 2 ] && exec python3 -c 'import ctypes, os, sys
ctypes.CDLL(None).personality(0)
os.execv(sys.argv[1], sys.argv[1:])' $SHOW "\$@"
exec $SHOW "\$@"
SH
chmod +x "$LOG/random.sh"
expect_fail "layout/a node with another address layout is refused" \
    "address layouts differ: .* is loaded at 0x[0-9a-f]* on node 2, at 0x[0-9a-f]* on node 0" \
    $TSRUN -n 3 "$LOG/random.sh"
finish
