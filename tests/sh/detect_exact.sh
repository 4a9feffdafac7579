#!/usr/bin/env bash
# Exact home write detection (TSR_DETECT=uffd: asynchronous write protection
# and PAGEMAP_SCAN), counted: a home page written only once is announced
# once (tests/mp/exact_home.c) with no fault, as under segv, where a home
# page that other nodes copy is protected again (hlrc_protect_sticky) and
# its writes fault; SOR at 4 nodes takes no write fault on home
# pages (every write fault made a twin), where segv takes some.
. tests/lib.sh

if ! TSR_DETECT=uffd TSR_VERBOSE=1 $B/tests/mp/lock_counter 10 >"$LOG/probe" 2>&1; then
    skip_all "$(grep -o 'TSR_DETECT=uffd: .*' "$LOG/probe" || tail -n 1 "$LOG/probe")"
fi
if grep -q "no exact write tracking" "$LOG/probe"; then
    skip_all "$(grep -o 'no exact write tracking: .*' "$LOG/probe")"
fi

for n in 2 4; do
    expect_ok "uffd, -n $n: only the page written is announced, with no home fault" \
        "node 0: 20 write notices, 0 home write faults in 20 rounds" \
        env TSR_DETECT=uffd $TSRUN -n $n $B/tests/mp/exact_home
done
for n in 2 4; do
    run "release_walk -n $n under uffd: releases examine and announce only written pages" \
        env TSR_DETECT=uffd $TSRUN -n $n $B/tests/mp/release_walk
done
expect_ok "segv, -n 2: only the page written is announced, at a home write fault a round" \
    "node 0: 20 write notices, 20 home write faults in 20 rounds" \
    env TSR_DETECT=segv $TSRUN -n 2 $B/tests/mp/exact_home

# home_faults DETECT: prints each node's write faults that made no twin.
home_faults() {
    rm -f "$LOG/stats.json"
    TSR_DETECT=$1 timeout 60 $TSRUN -j "$LOG/stats.json" -n 4 $B/apps/sor \
        $(make -s --no-print-directory print-sor_TEST_ARGS) >"$LOG/out" 2>&1 &&
        python3 -c 'import json,sys; print(" ".join(str(x["write_faults"] - x["twins"]) for x in map(json.loads, open(sys.argv[1]))))' "$LOG/stats.json"
}
faults=$(home_faults uffd)
if [ "$faults" = "0 0 0 0" ]; then ok "SOR -n 4 under uffd: no write fault on home pages"
else bad "SOR -n 4 under uffd: home write faults per node: '$faults'" "$LOG/out"; fi
faults=$(home_faults segv)
if [ -n "$faults" ] && [ "$faults" != "0 0 0 0" ]; then ok "SOR -n 4 under segv: home pages take write faults ($faults)"
else bad "SOR -n 4 under segv: home write faults per node: '$faults'" "$LOG/out"; fi
finish
