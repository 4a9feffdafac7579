#!/usr/bin/env bash
# The CAS-DSM pass (docs/CAS.md) on small C functions (tests/cas/loops.c): at
# each level, where the checks land and which are discarded, checked with
# LLVM 16's FileCheck against that level's prefixes; where -tsr-poll puts
# its polls, and none without it (tests/cas/poll.c). Also: tsrcc refuses an
# unknown level, naming it.
. tests/lib.sh
plugin=$B/lib/tessera-cas.so
filecheck=/usr/lib/llvm-16/bin/FileCheck
[ -x "$filecheck" ] && [ -f "$plugin" ] ||
    skip_all "the pass plugin or FileCheck is missing (clang-16, llvm-16-dev, llvm-16-tools: make deps)"

# Each level and the prefixes its IR must match.
levels=(basic:BASIC,ALL aghoist:AGH,HOIST,ALL agdiscard:DISC,HOIST,ALL
        maxaghoist:MAXH,HOIST,ALL maxagdiscard:MAXD,DISC,HOIST,ALL)
src=tests/cas/loops.c
for lp in "${levels[@]}"; do
    level=${lp%%:*} prefixes=${lp#*:}
    run "loops.c $level" sh -c "clang-16 -O2 -fno-vectorize -fno-unroll-loops \
        -fpass-plugin=$plugin -Xclang -load -Xclang $plugin -mllvm -tsr-cas=$level \
        -S -emit-llvm -o - $src | $filecheck --check-prefixes=$prefixes $src"
done
for lp in basic:ALL: maxagdiscard:ALL: maxagdiscard:POLL:-tsr-poll none:POLLNONE:-tsr-poll; do
    IFS=: read -r level prefix poll <<<"$lp"
    run "poll.c $level $poll" sh -c "clang-16 -O2 -fno-vectorize -fno-unroll-loops \
        -fpass-plugin=$plugin -Xclang -load -Xclang $plugin -mllvm -tsr-cas=$level ${poll:+-mllvm $poll} \
        -S -emit-llvm -o - tests/cas/poll.c | $filecheck --check-prefixes=$prefix tests/cas/poll.c"
done
expect_fail "tsrcc -tsr-cas=bogus" "the level must be" $B/bin/tsrcc -tsr-cas=bogus -c $src -o /dev/null
finish
