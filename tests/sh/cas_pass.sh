#!/usr/bin/env bash
# The CAS-DSM pass (docs/CAS.md) on small C functions (tests/cas/*.c): at
# each level, where the checks land and which are discarded, checked with
# LLVM 16's FileCheck against that level's prefixes. Also: tsrcc refuses an
# unknown level, naming it.
. tests/lib.sh
plugin=$B/lib/tessera-cas.so
filecheck=/usr/lib/llvm-16/bin/FileCheck
[ -x "$filecheck" ] && [ -f "$plugin" ] ||
    skip_all "the pass plugin or FileCheck is missing (clang-16, llvm-16-dev, llvm-16-tools: make deps)"

# Each level and the prefixes its IR must match.
levels=(basic:BASIC,ALL aghoist:AGH,HOIST,ALL agdiscard:DISC,HOIST,ALL
        maxaghoist:MAXH,HOIST,ALL maxagdiscard:MAXD,DISC,HOIST,ALL)
for src in tests/cas/*.c; do
    for lp in "${levels[@]}"; do
        level=${lp%%:*} prefixes=${lp#*:}
        run "$(basename "$src") $level" sh -c "clang-16 -O2 -fno-vectorize -fno-unroll-loops \
            -fpass-plugin=$plugin -Xclang -load -Xclang $plugin -mllvm -tsr-cas=$level \
            -S -emit-llvm -o - $src | $filecheck --check-prefixes=$prefixes $src"
    done
done
expect_fail "tsrcc -tsr-cas=bogus" "the level must be" $B/bin/tsrcc -tsr-cas=bogus -c $src -o /dev/null
finish
