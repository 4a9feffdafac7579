# Sourced by the tests that run a program of tests/cas/ built with cc and
# with tsrcc (after tests/lib.sh): cas_build SRC BUILD... builds SRC with
# cc into $LOG/cc and with tsrcc into $LOG/BUILD for each BUILD, a level
# of -tsr-cas or `poll` (maxagdiscard with -tsr-poll). Skips the test
# without tsrcc.
[ -x "$B/bin/tsrcc" ] ||
    skip_all "tsrcc is missing (clang-16 and llvm-16-dev: make deps, then make)"

cas_build() {
    local src=$1 b flags lib="$B/lib/libtessera.a -pthread -lm -Wl,-z,now"
    shift
    # shellcheck disable=SC2086
    ${CC:-cc} -O2 -Iinclude -o "$LOG/cc" "$src" $lib || bad "cc $src"
    for b in "$@"; do
        flags=-tsr-cas=$b
        [ "$b" = poll ] && flags="-tsr-cas=maxagdiscard -tsr-poll"
        # shellcheck disable=SC2086
        $B/bin/tsrcc $flags -O2 -o "$LOG/$b" "$src" || bad "tsrcc $flags $src"
    done
}
