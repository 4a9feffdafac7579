#!/usr/bin/env bash
# TSR_FETCH=direct where some homes cannot be copied from: nodes on two
# "hosts" (loopback addresses, tests/loopback_ssh) copy from the home on
# their own host and ask the others; over TCP, which shares no memory,
# every page is asked for. tests/mp/fetch_direct checks each round's
# values and how each node's pages came.
. tests/lib.sh
P="$B/tests/mp/fetch_direct"
HOSTS=(env TSR_SSH=tests/loopback_ssh TSR_HOSTS=127.0.0.2:2,127.0.0.3:2)

expect_ok "fetch/direct: 4 nodes on 2 hosts, node 1 copies, nodes 2 and 3 ask" \
    "fetch_direct: node 1 ok (direct copies)" "${HOSTS[@]}" TSR_FETCH=direct $TSRUN -n 4 $P
grep -q "node 3 ok (messages)" "$LOG/out" && ok "fetch/direct ... node 3 asks its home" ||
    bad "fetch/direct ... node 3 asks its home" "$LOG/out"
expect_ok "fetch/direct: over TCP every page is asked for" "fetch_direct: node 1 ok (messages)" \
    env TSR_TRANSPORT=tcp TSR_FETCH=direct $TSRUN -n 2 $P
expect_ok "fetch/direct: SOR verifies on 2 hosts" "verified=PASS" \
    "${HOSTS[@]}" TSR_FETCH=direct $TSRUN -n 4 $B/apps/sor 128 128 10
finish
