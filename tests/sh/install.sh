#!/usr/bin/env bash
# make install, then a program built with pkg-config against the installed
# library runs under the installed tsrun.
. tests/lib.sh

prefix="$LOG/prefix"
if make -s --no-print-directory install BUILD="$B" PREFIX="$prefix" >"$LOG/out" 2>&1 &&
    cc tests/mp/lock_counter.c -o "$LOG/counter" \
        $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tessera) >>"$LOG/out" 2>&1 &&
    timeout 60 "$prefix/bin/tsrun" -n 3 "$LOG/counter" 100 >>"$LOG/out" 2>&1; then
    ok "install/make install + pkg-config build + installed tsrun -n 3"
else
    bad "install" "$LOG/out"
fi
finish
