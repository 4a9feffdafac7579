#!/usr/bin/env bash
# tsrun --hostfile across four "hosts": network namespaces on one bridge
# (10.77.0.1-4, addresses that exist only inside them), each running its own
# sshd. tsrun runs in the first and reaches every host, itself included,
# through ssh with a throwaway key. The lock, false-sharing and barrier tests
# and two applications verify their results; a node killed on another host
# and a host whose sshd is down end the job naming them; a host that cannot
# map the shared region is named.
. tests/lib.sh

[ "$(id -u)" -eq 0 ] || skip_all "network namespaces need root"
scripts/deps.sh ssh >"$LOG/deps" 2>&1 || skip_all "cannot install openssh-server: $(tail -1 "$LOG/deps")"

tag=tsr$$
ns() { echo "${tag}h$1"; }
cleanup() {
    for k in 0 1 2 3; do
        [ -f "$LOG/sshd.$k.pid" ] && kill "$(cat "$LOG/sshd.$k.pid")" 2>/dev/null
        ip netns del "$(ns $k)" 2>/dev/null
    done
    rm -rf "$LOG"
}
trap cleanup EXIT
ip netns add "$(ns 0)" 2>"$LOG/netns" || skip_all "cannot create network namespaces: $(cat "$LOG/netns")"

# The bridge lives in host 0, which also has an address on it; hosts 1-3
# each hold one end of a veth pair whose other end is a bridge port.
setup_network() {
    local h0; h0=$(ns 0)
    ip -n "$h0" link set lo up
    ip -n "$h0" link add br0 type bridge
    ip -n "$h0" addr add 10.77.0.1/24 dev br0
    ip -n "$h0" link set br0 up
    for k in 1 2 3; do
        ip netns add "$(ns $k)" || return 1
        ip -n "$h0" link add "v$k" type veth peer name eth0 netns "$(ns $k)" || return 1
        ip -n "$h0" link set "v$k" master br0 up
        ip -n "$(ns $k)" link set lo up
        ip -n "$(ns $k)" addr add "10.77.0.$((k + 1))/24" dev eth0
        ip -n "$(ns $k)" link set eth0 up
    done
}

# One sshd per host, on its own address, with the test's keys. Host 3 also
# listens on port 2222, whose logins have 1 GiB of address space: too
# little for the shared region.
start_sshd() { # k
    local k=$1 small=""
    [ "$k" = 3 ] && small="Port 2222
Match LocalPort 2222
    ForceCommand ulimit -v 1048576; eval \"\$SSH_ORIGINAL_COMMAND\""
    cat >"$LOG/sshd.$k.conf" <<EOF
Port 22
ListenAddress 10.77.0.$((k + 1))
HostKey $LOG/host_key
AuthorizedKeysFile $LOG/id.pub
PidFile $LOG/sshd.$k.pid
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
LogLevel ERROR
$small
EOF
    ip netns exec "$(ns "$k")" /usr/sbin/sshd -f "$LOG/sshd.$k.conf" -E "$LOG/sshd.$k.log"
}

setup_network >"$LOG/net" 2>&1 || skip_all "cannot join the namespaces: $(tail -1 "$LOG/net")"
mkdir -p /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$LOG/host_key" && ssh-keygen -q -t ed25519 -N '' -f "$LOG/id" ||
    skip_all "ssh-keygen failed"
for k in 0 1 2 3; do start_sshd $k || skip_all "sshd did not start in a namespace"; done

SSH="ssh -F /dev/null -i $LOG/id -o IdentitiesOnly=yes -o StrictHostKeyChecking=no"
SSH+=" -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=5"
printf '# the four hosts of tests/sh/cluster_ssh.sh\n10.77.0.1 slots=1\n10.77.0.2\n10.77.0.3 slots=1 max_slots=4\n10.77.0.4\n' >"$LOG/hosts"
printf '10.77.0.1\n10.77.0.2 slots=2\n10.77.0.3\n' >"$LOG/hosts3"
H0=(ip netns exec "$(ns 0)" "$TSRUN" --ssh "$SSH")  # tsrun on host 0

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
    env TSR_VERBOSE=1 ip netns exec "$(ns 0)" "$TSRUN" --ssh "$SSH" --hostfile "$LOG/hosts" -p -t 30 \
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
"${H0[@]}" --hostfile "$LOG/hosts" $B/tests/mp/sleeper 3 >"$LOG/sout" 2>&1 &
job=$!
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
"${H0[@]}" --hostfile "$LOG/hosts" $B/tests/mp/sleeper 60 >"$LOG/kout" 2>"$LOG/kerr" &
job=$!
if wait_ready "$LOG/kout" 4; then
    kill -9 "$(awk '$1=="ready" && $2==2 {print $3}' "$LOG/kout")"
    for _ in $(seq 100); do kill -0 $job 2>/dev/null || break; sleep 0.1; done
    kill -9 $job 2>/dev/null
    wait $job; rc=$?
    if [ $rc -ne 0 ] && grep -q "tsrun: node 2 (on host 10.77.0.3) .*stopping the job" "$LOG/kerr"; then
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
    "node 3: cannot map the shared region at .* on host .*" \
    ip netns exec "$(ns 0)" "$TSRUN" --ssh "${SSH/-F \/dev\/null/-F $LOG/ssh_config}" \
    --hostfile "$LOG/hosts_small" -t 30 $B/tests/mp/lock_counter
grep -q "tsrun: node 3 (on host small) exited with status 1" "$LOG/out" && ok "cluster/ssh ... and tsrun names host small" ||
    bad "cluster/ssh ... and tsrun names host small" "$LOG/out"

# A host whose sshd is down: tsrun fails fast naming it.
kill "$(cat "$LOG/sshd.2.pid")"
start=$(date +%s)
expect_fail "cluster/ssh host without sshd named" \
    "tsrun: node 2 (on host 10.77.0.3) could not be started: ssh to 10.77.0.3 failed" \
    "${H0[@]}" --hostfile "$LOG/hosts" -t 30 $B/tests/mp/lock_counter
if [ $(($(date +%s) - start)) -le 10 ]; then ok "cluster/ssh ... within 10 s"
else bad "cluster/ssh ... took longer than 10 s"; fi
finish
