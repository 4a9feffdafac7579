#!/usr/bin/env bash
# tsrun --hostfile across four "hosts": network namespaces on one bridge
# (10.77.0.1-4, addresses that exist only inside them), each running its own
# sshd. tsrun runs in the first and reaches every host, itself included,
# through ssh with a throwaway key. The lock, false-sharing and barrier tests
# and two applications verify their results; a node killed on another host
# and a host whose sshd is down end the job naming them; a host that cannot
# map the shared region is named.
. tests/lib.sh

. tests/netns.sh
netns_test_hosts "tsr$$" 4
# Host 3 also listens on port 2222, whose logins have 1 GiB of address
# space: too little for the shared region.
for k in 0 1 2; do netns_sshd $k || skip_all "sshd did not start in a namespace"; done
netns_sshd 3 "Port 2222" "Match LocalPort 2222" \
    "    ForceCommand ulimit -v 1048576; eval \"\$SSH_ORIGINAL_COMMAND\"" ||
    skip_all "sshd did not start in a namespace"
SSH=$NETNS_SSH
printf '# the four hosts of tests/sh/cluster_ssh.sh\n10.77.0.1 slots=1\n10.77.0.2\n10.77.0.3 slots=1 max_slots=4\n10.77.0.4\n' >"$LOG/hosts"
printf '10.77.0.1\n10.77.0.2 slots=2\n10.77.0.3\n' >"$LOG/hosts3"
H0=(ip netns exec "$(netns_name 0)" "$TSRUN" --ssh "$SSH")  # tsrun on host 0

# -H adds to a hostfile; without -n the job has as many nodes as slots.
expect_ok "cluster/ssh lock_counter on 4 hosts" "node 3: .*PASS" \
    "${H0[@]}" --hostfile "$LOG/hosts3" -H 10.77.0.4 -t 30 $B/tests/mp/lock_counter
grep -q "node 4: .*PASS" "$LOG/out" && ok "cluster/ssh ... 5 nodes from the hosts' slots" ||
    bad "cluster/ssh ... 5 nodes from the hosts' slots" "$LOG/out"
for prog in false_sharing barrier_visibility; do
    expect_ok "cluster/ssh $prog on 4 hosts" PASS "${H0[@]}" --hostfile "$LOG/hosts" -n 4 -t 30 $B/tests/mp/$prog
done
expect_ok "cluster/ssh apps/sor on 4 hosts" "verified=PASS" "${H0[@]}" --hostfile "$LOG/hosts" -t 30 $B/apps/sor 64 64 10
expect_ok "cluster/ssh apps/mm on 4 hosts" "verified=PASS" "${H0[@]}" --hostfile "$LOG/hosts" -t 30 $B/apps/mm 64

# The nodes listen on their hosts' addresses, not loopback: with -p and
# TSR_VERBOSE each says where its peers reach it.
expect_ok "cluster/ssh each node listens on its host's address" "\[3\] .*peers reach this node at 10.77.0.4$" \
    env TSR_VERBOSE=1 "${H0[@]}" --hostfile "$LOG/hosts" -p -t 30 \
    $B/tests/mp/lock_counter

# Input: node 0 alone by default, every node with --stdin all.
echo "hello from tsrun" >"$LOG/input"
expect_ok "cluster/ssh stdin goes to node 0" "node 0 read 17 bytes" \
    "${H0[@]}" --hostfile "$LOG/hosts" -t 30 $B/tests/mp/stdin_echo <"$LOG/input"
if grep -q "node 1 read 0 bytes" "$LOG/out"; then ok "cluster/ssh ... and not to node 1"
else bad "cluster/ssh ... and not to node 1" "$LOG/out"; fi
expect_ok "cluster/ssh --stdin all" "node 3 read 17 bytes" \
    "${H0[@]}" --hostfile "$LOG/hosts" --stdin all -t 30 $B/tests/mp/stdin_echo <"$LOG/input"

# The secret is on no command line (the hosts share one process table):
# a node's own environment holds it, no process's arguments do.
start "$LOG/sout" "$LOG/serr" "${H0[@]}" --hostfile "$LOG/hosts" $B/tests/mp/sleeper 3
secret=""
if wait_ready "$LOG/sout" 4; then
    ps -eo args >"$LOG/ps"
    pid=$(awk '$1=="ready" && $2==3 {print $3}' "$LOG/sout")
    secret=$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n 's/^TSR_SECRET=//p')
fi
wait $job
if [ ${#secret} -eq 32 ] && ! grep -qF "$secret" "$LOG/ps" && grep -q "read -r TSR_SECRET" "$LOG/ps"; then
    ok "cluster/ssh no job secret on any command line"
else bad "cluster/ssh no job secret on any command line (secret '${secret}')" "$LOG/ps"; fi

# A node killed on host 2: tsrun ends the job naming it and its host.
start "$LOG/kout" "$LOG/kerr" "${H0[@]}" --hostfile "$LOG/hosts" $B/tests/mp/sleeper 60
if wait_ready "$LOG/kout" 4; then
    kill -9 "$(awk '$1=="ready" && $2==2 {print $3}' "$LOG/kout")"
    for _ in $(seq 100); do kill -0 $job 2>/dev/null || break; sleep 0.1; done
    kill -9 $job 2>/dev/null
    wait $job; rc=$?
    if [ $rc -ne 0 ] && grep -q "tsrun: node 2 (on host 10.77.0.3) was lost: ssh to 10.77.0.3 ended" "$LOG/kerr"; then
        ok "cluster/ssh killed node on another host named (exit $rc)"
    else bad "cluster/ssh killed node on another host named (exit $rc)" "$LOG/kerr"; fi
else
    kill $job; wait $job; bad "cluster/ssh kill test never ready" "$LOG/kerr"
fi

# Host "small" (host 3's port 2222) cannot map the region: the node there
# says so naming its host, and tsrun names the node and the host.
printf 'Host small\n    HostName 10.77.0.4\n    Port 2222\n' >"$LOG/ssh_config"
printf '10.77.0.1\n10.77.0.2\n10.77.0.3\nsmall\n' >"$LOG/hosts_small"
expect_fail "cluster/ssh region unavailable on one host names it" \
    "node 3: cannot reserve .* of address space for the application view on host .*ulimit -v" \
    env TSR_MEMORY=16G ip netns exec "$(netns_name 0)" "$TSRUN" --ssh "${SSH/-F \/dev\/null/-F $LOG/ssh_config}" \
    --hostfile "$LOG/hosts_small" -t 30 $B/tests/mp/lock_counter
grep -q "tsrun: node 3 (on host small) exited with status 1" "$LOG/out" && ok "cluster/ssh ... and tsrun names host small" ||
    bad "cluster/ssh ... and tsrun names host small" "$LOG/out"

# A host whose sshd is down: tsrun fails fast naming it.
kill "$(cat "$LOG/sshd.2.pid")"  # netns_down does not mind
start=$(date +%s)
expect_fail "cluster/ssh host without sshd named" \
    "tsrun: node 2 (on host 10.77.0.3) could not be started: ssh to 10.77.0.3 failed" \
    "${H0[@]}" --hostfile "$LOG/hosts" -t 30 $B/tests/mp/lock_counter
if [ $(($(date +%s) - start)) -le 10 ]; then ok "cluster/ssh ... within 10 s"
else bad "cluster/ssh ... took longer than 10 s"; fi
finish
