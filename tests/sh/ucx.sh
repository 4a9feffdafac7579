#!/usr/bin/env bash
# TSR_TRANSPORT=ucx refuses what it cannot do, naming the cause: a UCX that
# finds no transport (UCX's own reason) and shared globals without
# UCX_MEM_EVENTS=no
# (src/transport/ucx.c). The backend's working runs are the ucx-tcp and
# ucx-shm lines of tests/matrix, its failures tests/sh/kill_node.sh and
# tests/sh/heartbeat.sh.
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
finish
