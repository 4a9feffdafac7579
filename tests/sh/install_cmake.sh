#!/usr/bin/env bash
# make install as the tools beside Tessera are installed: a CMake package
# that a small project finds (find_package(Tessera), Tessera::tessera, and
# Tessera::cas where the pass is built) and whose program runs under the
# installed tsrun; man pages for tsrun and tsrcc that man(1) renders and
# that list every option --help lists; --version naming the commit.
. tests/lib.sh

command -v cmake >/dev/null || missing_all "cmake is missing (scripts/deps.sh build installs it)"
command -v man >/dev/null || missing_all "man is missing (scripts/deps.sh build installs man-db)"
prefix="$LOG/prefix"
make -s --no-print-directory install BUILD="$B" PREFIX="$prefix" >"$LOG/install" 2>&1 ||
    { bad "install/make install" "$LOG/install"; finish; exit 1; }
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)

for tool in tsrun tsrcc; do
    [ -x "$prefix/bin/$tool" ] || { skip "$tool is not installed (tsrcc needs clang-16)"; continue; }
    first=$("$prefix/bin/$tool" --version 2>&1 | head -1)
    if [ "$first" = "$tool (Tessera) $(make -s --no-print-directory print-SO_VERSION), commit $commit" ]; then
        ok "install/$tool --version: $first"
    else bad "install/$tool --version printed '$first', not its version and commit $commit"; fi
    # Every option --help lists, in the OPTIONS of the installed page as
    # man renders it.
    LC_ALL=C MANWIDTH=200 man -l "$prefix/share/man/man1/$tool.1" >"$LOG/$tool.man" 2>&1
    "$prefix/bin/$tool" --help >"$LOG/$tool.help"
    opts=$(grep -oE '^ +(-[A-Za-z], )?--?[a-z][a-z-]*' "$LOG/$tool.help" | grep -oE -- '--?[a-z][a-z-]*$')
    sed -n '/^OPTIONS/,/^[A-Z]/p' "$LOG/$tool.man" >"$LOG/$tool.options"
    absent=$(for o in $opts; do grep -q -- "$o" "$LOG/$tool.options" || echo "$o"; done)
    if grep -q "^NAME" "$LOG/$tool.man" && [ -n "$opts" ] && [ -z "$absent" ]; then
        ok "install/man -l $tool.1 renders, with all $(echo $opts | wc -w) options of --help"
    else bad "install/man $tool: options of --help missing from the page: ${absent:-none}" "$LOG/$tool.man"; fi
done

# A project of a user's: find_package, the imported target, the installed tsrun.
mkdir -p "$LOG/proj"
cp tests/mp/lock_counter.c "$LOG/proj/"
cat >"$LOG/proj/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(counter C)
find_package(Tessera 0.1 REQUIRED)
add_executable(counter lock_counter.c)
target_link_libraries(counter PRIVATE Tessera::tessera)
add_executable(counter_static lock_counter.c)
target_link_libraries(counter_static PRIVATE Tessera::tessera_static)
if(TARGET Tessera::cas)
  message(STATUS "Tessera::cas at $<TARGET_FILE:Tessera::cas>")
  file(GENERATE OUTPUT cas.txt CONTENT "$<TARGET_FILE:Tessera::cas>\n")
endif()
message(STATUS "Tessera ${Tessera_VERSION}, tsrun ${Tessera_TSRUN}")
CM
if cmake -S "$LOG/proj" -B "$LOG/proj/build" -DCMAKE_PREFIX_PATH="$prefix" >"$LOG/cmake" 2>&1 &&
    cmake --build "$LOG/proj/build" >>"$LOG/cmake" 2>&1 &&
    grep -q "tsrun $prefix/bin/tsrun" "$LOG/cmake" &&
    timeout 60 "$prefix/bin/tsrun" -n 3 "$LOG/proj/build/counter" 50 >"$LOG/run" 2>&1 &&
    timeout 60 "$prefix/bin/tsrun" -n 2 "$LOG/proj/build/counter_static" 50 >>"$LOG/run" 2>&1 &&
    [ "$(grep -c PASS "$LOG/run")" -eq 5 ]; then
    ok "install/find_package(Tessera): Tessera::tessera and _static build a program the installed tsrun runs"
else
    bad "install/CMake package" "$LOG/cmake"
fi
if [ -f "$prefix/lib/tessera-cas.so" ]; then
    if [ "$(cat "$LOG/proj/build/cas.txt" 2>/dev/null)" = "$prefix/lib/tessera-cas.so" ]; then
        ok "install/Tessera::cas names the installed pass plugin"
    else bad "install/Tessera::cas" "$LOG/cmake"; fi
elif [ -f "$LOG/proj/build/cas.txt" ]; then
    bad "install/Tessera::cas defined without the plugin installed" "$LOG/cmake"
else
    skip "the CAS pass is not built here (clang-16, llvm-16-dev)"
fi

# The version file: a later major version is refused.
mkdir -p "$LOG/v2"
printf 'cmake_minimum_required(VERSION 3.16)\nproject(v NONE)\nfind_package(Tessera 1.0 REQUIRED)\n' \
    >"$LOG/v2/CMakeLists.txt"
if ! cmake -S "$LOG/v2" -B "$LOG/v2/build" -DCMAKE_PREFIX_PATH="$prefix" >"$LOG/v2.out" 2>&1 &&
    grep -q 'version: 0.1.0' "$LOG/v2.out"; then
    ok "install/find_package(Tessera 1.0) refuses version 0.1.0"
else
    bad "install/find_package(Tessera 1.0)" "$LOG/v2.out"
fi
finish
