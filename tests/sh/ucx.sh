#!/usr/bin/env bash
# TSR_TRANSPORT=ucx refuses what it cannot do, naming the cause: a UCX that
# finds no transport (UCX's own reason) and shared globals without
# UCX_MEM_EVENTS=no
# (src/transport/ucx.c); tsrun's UCX_* variables reach the nodes it starts
# over ssh; and a node reading a peer one-sided, or writing its diffs
# into it so, when the peer dies stops naming it (ucx_rma.c). The backend's working runs are the
# ucx-tcp and ucx-shm lines of tests/matrix, its failures
# tests/sh/kill_node.sh and tests/sh/heartbeat.sh.
. tests/lib.sh
pkg-config --exists ucx || skip_all "UCX is missing (scripts/deps.sh installs libucx-dev)"

expect_fail "ucx: UCX_TLS naming no transport here is refused with UCX's reason" \
    "node 0: UCX transport: ucp_init found no transport for active messages: No such device (UCX_TLS=bogus" \
    env TSR_TRANSPORT=ucx UCX_TLS=bogus $TSRUN -n 2 $B/tests/mp/lock_counter

# UCX is opened when a job chooses it: a program links libtessera.a alone,
# and UCX's libraries are not in its process under another transport.
${CC:-cc} -Iinclude -o "$LOG/no_ucx" tests/mp/lock_counter.c $B/lib/libtessera.a -pthread -lm \
    -Wl,-z,now 2>"$LOG/cc" || bad "ucx: lock_counter links with libtessera.a alone" "$LOG/cc"
expect_ok "ucx: a program linked with libtessera.a alone runs over ucx" "node 1: .* PASS" \
    env TSR_TRANSPORT=ucx UCX_TLS=tcp $TSRUN -n 2 "$LOG/no_ucx"
if ldd "$LOG/no_ucx" | grep -q 'libuc[pstm]'; then
    bad "ucx: UCX's libraries are linked into every program" "$LOG/cc"
else
    ok "ucx: UCX's libraries are not linked into every program"
fi

expect_fail "ucx: shared globals without UCX_MEM_EVENTS=no are refused" \
    "TSR_SHARE_GLOBALS=1 with TSR_TRANSPORT=ucx needs UCX_MEM_EVENTS=no" \
    env TSR_TRANSPORT=ucx UCX_TLS=tcp UCX_MEM_EVENTS=yes TSR_SHARE_GLOBALS=1 $TSRUN -n 2 \
    $B/tests/mp/globals_share
expect_ok "ucx: shared globals run under tsrun, which sets UCX_MEM_EVENTS=no" "PASS" \
    env -u UCX_MEM_EVENTS TSR_TRANSPORT=ucx UCX_TLS=tcp $TSRUN -n 2 $B/tests/mp/globals_share
# Nodes tsrun starts over ssh get its UCX_* variables: an ssh stand-in
# whose remote side starts with none of the caller's environment, as sshd
# does. UCX_TLS=bogus must reach them (and be refused there), and the
# UCX_MEM_EVENTS=no that tsrun sets must, for shared globals.
printf '%s\n' '#!/bin/sh' 'for a; do host=$cmd; cmd=$a; done' \
    'exec env -i PATH="$PATH" HOME="$HOME" TSR_ADDR="$host" sh -c "$cmd"' >"$LOG/clean_ssh"
chmod +x "$LOG/clean_ssh"
over_ssh=(env TSR_TRANSPORT=ucx TSR_SSH="$LOG/clean_ssh" TSR_HOSTS=127.0.0.2,127.0.0.3)
expect_fail "ucx: tsrun passes UCX_TLS to the nodes it starts over ssh" \
    "UCX transport: ucp_init found no transport for active messages: No such device (UCX_TLS=bogus" \
    "${over_ssh[@]}" UCX_TLS=bogus $TSRUN -n 2 $B/tests/mp/lock_counter
expect_ok "ucx: nodes started over ssh share their globals (tsrun passes UCX_MEM_EVENTS=no)" \
    "PASS" env -u UCX_MEM_EVENTS "${over_ssh[@]}" UCX_TLS=tcp $TSRUN -n 2 $B/tests/mp/globals_share
# kill_reading TLS [diffs]: node 0 killed while node 1 reads it one-sided
# (or writes diffs into it so).
kill_reading() {
    local what=${2:+writes diffs into}
    local name="ucx: node 0 killed while node 1 ${what:-reads} it one-sided, UCX_TLS=$1"
    rm -f "$LOG/rout"
    env TSR_TRANSPORT=ucx UCX_TLS="$1" $TSRUN -n 2 $B/tests/mp/rma_reader ${2:-} >"$LOG/rout" 2>"$LOG/rerr" &
    local job=$!
    if ! wait_ready "$LOG/rout" 2; then kill $job; bad "$name (never ready)" "$LOG/rerr"; return; fi
    kill -9 "$(awk '$1=="ready" && $2==0 {print $3}' "$LOG/rout")"
    local waited=0
    while kill -0 $job 2>/dev/null && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
    if kill -0 $job 2>/dev/null; then kill -9 $job; bad "$name (still running after 10 s)" "$LOG/rerr"; return; fi
    wait $job; local rc=$?
    if [ $rc -ne 0 ] && grep -q "^tessera: node 1: stopping: node 0 " "$LOG/rerr"; then
        ok "$name (node 1 stopped naming node 0, exit $rc)"
    else
        bad "$name (exit $rc)" "$LOG/rerr"
    fi
}
kill_reading tcp
kill_reading posix,self
kill_reading tcp diffs
kill_reading posix,self diffs
finish
