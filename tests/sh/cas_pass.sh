#!/usr/bin/env bash
# The CAS-DSM pass (docs/CAS.md) on small C functions (tests/cas/loops.c): at
# each level, where the checks land and which are discarded (a row copy a
# barrier keeps in its loop checked in place), checked with
# LLVM 16's FileCheck against that level's prefixes, and issue 51's
# clipping loop (tests/cas/clip_run.c) given no write check; where -tsr-poll puts
# its polls, and none without it (tests/cas/poll.c). Also: tsrcc refuses an
# unknown level, naming it.
. tests/lib.sh
plugin=$B/lib/tessera-cas.so
filecheck=/usr/lib/llvm-16/bin/FileCheck
[ -x "$filecheck" ] && [ -f "$plugin" ] ||
    missing_all "the pass plugin or FileCheck is missing (clang-16, llvm-16-dev, llvm-16-tools: make deps)"

# ir_check NAME SRC PREFIXES PASS-OPTIONS...: SRC's IR under the pass with
# those options matches SRC's check lines of PREFIXES.
ir_check() {
    local name=$1 src=$2 prefixes=$3
    shift 3
    run "$name" sh -c "clang-16 -O2 -fno-vectorize -fno-unroll-loops \
        -fpass-plugin=$plugin -Xclang -load -Xclang $plugin $* \
        -S -emit-llvm -o - $src | $filecheck --check-prefixes=$prefixes $src"
}

# Each level and the prefixes its IR must match.
levels=(basic:BASIC,ALL aghoist:AGH,HOIST,ALL agdiscard:DISC,HOIST,ALL
        maxaghoist:MAXH,HOIST,ALL maxagdiscard:MAXD,DISC,HOIST,ALL)
src=tests/cas/loops.c
for lp in "${levels[@]}"; do
    level=${lp%%:*}
    ir_check "loops.c $level" $src "${lp#*:}" -mllvm -tsr-cas=$level
done
for level in aghoist agdiscard maxaghoist maxagdiscard; do
    ir_check "clip_run.c $level" tests/cas/clip_run.c HOIST -Iinclude -mllvm -tsr-cas=$level
done
poll=tests/cas/poll.c
ir_check "poll.c basic" $poll ALL -mllvm -tsr-cas=basic
ir_check "poll.c maxagdiscard" $poll ALL -mllvm -tsr-cas=maxagdiscard
ir_check "poll.c maxagdiscard -tsr-poll" $poll POLL -mllvm -tsr-cas=maxagdiscard -mllvm -tsr-poll
ir_check "poll.c none -tsr-poll" $poll POLLNONE -mllvm -tsr-cas=none -mllvm -tsr-poll
expect_fail "tsrcc -tsr-cas=bogus" "the level must be" $B/bin/tsrcc -tsr-cas=bogus -c $src -o /dev/null
finish
