#!/usr/bin/env bash
# TSR_TRANSPORT=auto across hosts: shm rings between the nodes of each
# host, TCP between hosts (transport/shm_hosts.h). The "hosts" are loopback
# addresses that tests/loopback_ssh starts nodes on, as the `hosts` line of
# tests/matrix does for the whole suite. Here: what each node says it uses,
# the rings each host makes (mapped, no file left in /dev/shm), every wait
# policy, TSR_TRANSPORT=shm refused by nodes on two hosts, and a node
# killed on its own host or another: every other node stops naming it.
. tests/lib.sh
P="$B/tests/mp/lock_counter"
HOSTS=(env TSR_SSH=tests/loopback_ssh TSR_HOSTS=127.0.0.2:2,127.0.0.3:2)

expect_ok "transport/hosts: 4 nodes on 2 hosts, rings within each, TCP between" \
    "node 3: transport: shm rings to 1 other nodes of this host, TCP to 2 nodes on other hosts" \
    "${HOSTS[@]}" TSR_VERBOSE=1 $TSRUN -n 4 $P
grep -q "node 0: .*PASS" "$LOG/out" && ok "transport/hosts ... and the counter is right" ||
    bad "transport/hosts ... and the counter is right" "$LOG/out"
expect_ok "transport/hosts: 3 nodes, one alone on its host" \
    "node 2: transport: shm rings to 0 other nodes of this host, TCP to 2 nodes on other hosts" \
    "${HOSTS[@]}" TSR_VERBOSE=1 $TSRUN -n 3 $P
expect_ok "transport/hosts: 2 nodes on one host without tsrun's rings" \
    "node 1: transport: shm$" "${HOSTS[@]}" TSR_VERBOSE=1 $TSRUN -n 2 $P
expect_ok "transport/hosts: one node per host is TCP alone" "node 1: transport: tcp$" \
    env TSR_SSH=tests/loopback_ssh TSR_HOSTS=127.0.0.2,127.0.0.3 TSR_VERBOSE=1 $TSRUN -n 2 $P
for policy in block spin hybrid; do
    expect_ok "transport/hosts under TSR_PROGRESS=$policy" "node 3: .*PASS" \
        "${HOSTS[@]}" TSR_PROGRESS=$policy $TSRUN -n 4 $B/tests/mp/false_sharing
done
expect_ok "transport/hosts: SOR verifies" "verified=PASS" "${HOSTS[@]}" $TSRUN -n 4 $B/apps/sor 128 128 10

# TSR_TRANSPORT=shm with nodes on two hosts: tsrun refuses it before
# starting any (a node started by another launcher refuses it itself).
expect_fail "transport/hosts: TSR_TRANSPORT=shm across hosts is refused" \
    "TSR_TRANSPORT=shm needs every node on this host" "${HOSTS[@]}" TSR_TRANSPORT=shm $TSRUN -n 4 $P

# While the job runs: each node maps its host's rings, and the name they
# were shared under is gone.
start "$LOG/out" "$LOG/err" "${HOSTS[@]}" $TSRUN -n 4 $B/tests/mp/sleeper 3
if wait_ready "$LOG/out" 4; then
    pid=$(awk '$1=="ready" && $2==3 {print $3}' "$LOG/out")
    maps=$(grep -c "tessera-rings" "/proc/$pid/maps")
    files=$(ls /dev/shm | grep -c tessera)
    [ "$maps" -ge 1 ] && [ "$files" -eq 0 ] && ok "transport/hosts: rings mapped, nothing left in /dev/shm" ||
        bad "transport/hosts: rings ($maps mappings, $files files in /dev/shm)" "$LOG/err"
else
    bad "transport/hosts: rings (job never ready)" "$LOG/err"
fi
wait $job

kill_test() { # victim: 1 shares node 0's host, 2 is on the other
    local v=$1 name="transport/hosts: node $1 killed"
    local job
    start "$LOG/kout" "$LOG/kerr" "${HOSTS[@]}" $TSRUN -n 4 $B/tests/mp/sleeper 60
    if ! wait_ready "$LOG/kout" 4; then kill $job; bad "$name (never ready)" "$LOG/kerr"; return; fi
    kill -9 "$(awk -v v="$v" '$1=="ready" && $2==v {print $3}' "$LOG/kout")"
    local waited=0
    while kill -0 $job 2>/dev/null && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
    if kill -0 $job 2>/dev/null; then kill -9 $job; bad "$name (tsrun still running after 10 s)" "$LOG/kerr"; return; fi
    wait $job; local rc=$?
    local named; named=$(grep -c "^tessera: node [0-9]*: stopping: node $v " "$LOG/kerr")
    [ $rc -ne 0 ] && [ "$named" -eq 3 ] && ok "$name: the 3 others stopped naming it" ||
        bad "$name (exit $rc, $named of 3 nodes named it)" "$LOG/kerr"
}
kill_test 1
kill_test 2
finish
