#!/usr/bin/env bash
# libtessera exports only its public API, so a program may use any name the
# runtime uses inside itself: the shared and the static library define no
# global symbol but the TSR_API functions of include/, the shared library
# has a soname, and a program defining every internal name links and runs
# with both libraries, its own variables and functions left alone.
. tests/lib.sh

# The functions and variables include/*.h declares (tessera.h, the Munin,
# TreadMarks and JIAJIA headers): each declaration starts with TSR_API.
# And the C library functions it interposes on purpose (src/detect/chain.c).
sed -n 's/^INTERPOSE [^(]*[ *]\([a-z_]*\)(.*/\1/p' src/*/*.c src/*/*/*.c >"$LOG/interposed"
{ sed -n 's/^TSR_API [^(]*[ *]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' include/*.h
  sed -n 's/^extern TSR_API [^;]*[ *]\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' include/*.h
  cat "$LOG/interposed"; } | sort >"$LOG/api"
# tessera_parmacs.h is the PARMACS macro file's C, compiled into the
# program that includes it, not into the library: nothing there is exported.
if grep -nE '^([a-z].*\b(tsr|Tmk|jia)_[a-z0-9_]*\(|extern [a-z])' $(ls include/*.h | grep -v tessera_parmacs.h) |
    grep -vE ':(extern )?TSR_API |extern "C"' >"$LOG/unmarked"; then
    bad "exports/every function in include/ is declared TSR_API" "$LOG/unmarked"
else
    ok "exports/every function in include/ is declared TSR_API ($(wc -l <"$LOG/api") functions)"
fi

# defined_globals NM-ARGS...: the sorted names of the defined global symbols.
defined_globals() { nm "$@" --defined-only | awk 'NF == 3 { print $3 }' | sort -u; }

defined_globals -D "$B/lib/libtessera.so" >"$LOG/so"
defined_globals -g "$B/lib/libtessera.a" >"$LOG/a"
for lib in so a; do
    if diff "$LOG/api" "$LOG/$lib" >"$LOG/diff"; then
        ok "exports/libtessera.$lib defines exactly the TSR_API functions"
    else
        bad "exports/libtessera.$lib defines exactly the TSR_API functions ('>': extra, '<': missing)" "$LOG/diff"
    fi
done

soname=$(readelf -d "$B/lib/libtessera.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$soname" = libtessera.so.0 ] && [ "$(readlink "$B/lib/libtessera.so")" = libtessera.so.0 ] \
    && [ -f "$B/lib/$(readlink "$B/lib/libtessera.so.0")" ]; then
    ok "exports/libtessera.so -> libtessera.so.0 (the soname) -> $(readlink "$B/lib/libtessera.so.0")"
else
    ls -l "$B"/lib/libtessera.so* >"$LOG/ls" 2>&1; bad "exports/soname '$soname' and links" "$LOG/ls"
fi

# Every internal global name, as the program's own variable or function.
nm -g --defined-only "$B/lib/libtessera_internal.a" | awk -v skip="$(cat "$LOG/api")" '
    BEGIN { n = split(skip, s); for (i = 1; i <= n; i++) seen[s[i]] = 1 }
    NF == 3 && !seen[$3]++ {
        printf "%s(%s, %d)\n", ($2 == "T" ? "COLLIDE_FN" : "COLLIDE_VAR"), $3, 1000 + NR
    }' >"$LOG/collide_names.h"
missing=
for name in region cfg stats_mine boot log_die log_warn notice_add detect_set_access am_send lock_init \
    config_load diff_apply; do
    grep -q "($name," "$LOG/collide_names.h" || missing="$missing $name"
done
if [ -z "$missing" ]; then
    ok "exports/the names include region, cfg, stats_mine, boot, log_die, am_send, lock_init..."
else
    bad "exports/the internal archive lacks names the test expects:$missing"
fi

prefix="$LOG/prefix"
if ! make -s --no-print-directory install PREFIX="$prefix" >"$LOG/install" 2>&1; then
    bad "exports/make install" "$LOG/install"
    finish; exit
fi
inst_so=$(readlink "$prefix/lib/libtessera.so.0")
if [ "$(readlink "$prefix/lib/libtessera.so")" = libtessera.so.0 ] && [ -f "$prefix/lib/$inst_so" ]; then
    ok "exports/make install puts libtessera.so -> libtessera.so.0 -> $inst_so"
else
    bad "exports/installed shared library links" "$LOG/install"
fi

# The versions the header, the file name and pkg-config give agree.
hv=$(awk '/#define TSR_VERSION_MAJOR/ { M = $3 } /#define TSR_VERSION_MINOR/ { m = $3 }
          END { print M "." m ".0" }' include/tessera.h)
pv=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion tessera)
if [ "$inst_so" = "libtessera.so.$hv" ] && [ "$pv" = "$hv" ] && [ "$soname" = "libtessera.so.${hv%%.*}" ]; then
    ok "exports/tessera.h, the library file and tessera.pc all say version $hv"
else
    bad "exports/versions: tessera.h $hv, file $inst_so, soname $soname, pkg-config $pv"
fi

# collide LIBKIND LINK-ARGS...: builds collide.c against one library and runs
# it on 2 nodes.
collide() {
    local kind=$1; shift
    local name="exports/a program defining all $(wc -l <"$LOG/collide_names.h") internal names links with libtessera.$kind and runs on 2 nodes"
    if cc -std=gnu11 -O2 -Wall -I"$LOG" tests/collide/collide.c -o "$LOG/collide_$kind" "$@" \
        >"$LOG/cc" 2>&1; then
        run "$name" $TSRUN -n 2 "$LOG/collide_$kind"
    else
        bad "$name (does not link)" "$LOG/cc"
    fi
}
collide so $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tessera)
collide a -I"$prefix/include" "$prefix/lib/libtessera.a" -pthread -lm
finish
