#!/usr/bin/env bash
# Munin's API is its own installed header: `make install` puts
# tessera_munin.h beside tessera.h, and a Munin program builds against the
# installed files alone (pkg-config) and runs under the installed tsrun.
. tests/lib.sh

prefix="$LOG/prefix"
if make -s --no-print-directory install PREFIX="$prefix" >"$LOG/out" 2>&1 &&
    [ -f "$prefix/include/tessera_munin.h" ] &&
    cc tests/mp/munin_reduction.c -o "$LOG/reduction" \
        $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tessera) >>"$LOG/out" 2>&1 &&
    timeout 20 "$prefix/bin/tsrun" -n 2 "$LOG/reduction" >>"$LOG/out" 2>&1; then
    ok "munin/tessera_munin.h installed; a Munin program builds with pkg-config and runs"
else
    bad "munin/installed tessera_munin.h" "$LOG/out"
fi

# tessera.h alone no longer declares Munin's API.
printf '#include <tessera.h>\nint main(void) { return TSR_READ_ONLY; }\n' >"$LOG/core_only.c"
if cc -c -Iinclude "$LOG/core_only.c" -o "$LOG/core_only.o" >"$LOG/out" 2>&1; then
    bad "munin/tessera.h alone declares Munin's annotations" "$LOG/out"
else
    ok "munin/Munin's API is only in tessera_munin.h"
fi
finish
