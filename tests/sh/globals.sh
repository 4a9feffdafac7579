#!/usr/bin/env bash
# Shared ordinary globals (TSR_SHARE_GLOBALS=1, docs/GLOBALS.md) with the
# runtime linked statically (the suite's programs) and as the shared
# library; the runtime's own data kept on pages of its own; what cannot be
# shared refused with a message naming the fix.
. tests/lib.sh
CC=${CC:-cc}
SRC=tests/mp/globals_share.c

# The one object of libtessera.a keeps no writable data outside its own
# sections, except what is read-only after relocation.
left=$(readelf -SW $B/obj/libtessera.o | grep -oE ' \.(data|bss)[^ ]*' | grep -v '\.data\.rel\.ro' || true)
if [ -z "$left" ] && readelf -SW $B/obj/libtessera.o | grep -q tsr_private_bss; then
    ok "globals/the runtime's writable data is all in tsr_private_data and tsr_private_bss"
else
    bad "globals/runtime data left in sections that would be shared: $left"
fi

# globals_share opts in through the environment (setenv before tsr_init),
# parmacs_jacobi by the symbol that TSR_SHARE_GLOBALS; defines (parmacs.h).
for prog in globals_share parmacs_jacobi; do
    if $CC -Iinclude -o "$LOG/$prog" tests/mp/$prog.c -L$B/lib -ltessera -Wl,-rpath,"$PWD/$B/lib" \
        -pthread -lm -Wl,-z,relro,-z,now >"$LOG/cc" 2>&1; then
        expect_ok "globals/$prog with libtessera.so, 3 nodes" "PASS" $TSRUN -n 3 "$LOG/$prog"
    else
        bad "globals/build $prog against libtessera.so" "$LOG/cc"
    fi
done

# The fault handler calls through .got.plt: it must not lie on a shared page.
for how in lazy norelro; do
    $CC -Iinclude -o "$LOG/$how" $SRC $B/lib/libtessera.a -pthread -lm -Wl,-z,$how
    expect_fail "globals/a program linked with -z $how is refused" \
        "lies beside its globals.*link it with -Wl,-z,relro,-z,now" $TSRUN -n 2 "$LOG/$how"
done

# Linked with the runtime's separate objects, not through src/private.ld:
# the runtime's state would be shared with the program's. (The OpenMP
# runtime, src/api/omp/, is a library of its own, which wraps main.)
$CC -Iinclude -o "$LOG/loose" $SRC $(ls $B/obj/src/*/*.o $B/obj/src/*/*/*.o | grep -v -e launcher -e /api/omp/) \
    -pthread -lm -Wl,-z,now
expect_fail "globals/the runtime's state among the program's globals is refused" \
    "the runtime's own state lies among the program's globals" $TSRUN -n 2 "$LOG/loose"

for prog in globals_share parmacs_jacobi; do
    expect_fail "globals/$prog not with TSR_ASLR=keep" \
        "needs one address layout on every node: not with TSR_ASLR=keep" \
        env TSR_ASLR=keep $TSRUN -n 2 $B/tests/mp/$prog
done
finish
