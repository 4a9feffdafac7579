#!/usr/bin/env bash
# The libFuzzer targets of tests/fuzz/ (message dispatch, lock and barrier
# state, diff decoding, the udp reliability layer) run a few seconds each:
# random bytes must never crash them or trip the address and
# undefined-behaviour sanitizers. `make fuzz` runs them for minutes. They
# need clang; `make test` builds them (make fuzz-build).
. tests/lib.sh

FB=${FUZZ_BUILD:-build-fuzz}
command -v clang >/dev/null || missing_all "clang is not installed (scripts/deps.sh build installs it)"
for src in tests/fuzz/*.c; do
    t=$FB/fuzz/$(basename "$src" .c)
    [ -x "$t" ] || missing_all "$t is not built (make fuzz-build builds it)"
done

for src in tests/fuzz/*.c; do
    name=$(basename "$src" .c)
    run "fuzz/$name: 3 seconds of random input" \
        "$FB/fuzz/$name" -max_total_time=3 -artifact_prefix="$LOG/"
done
finish
