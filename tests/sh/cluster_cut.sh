#!/usr/bin/env bash
# A host cut off in the middle of a job, under each launcher: four network
# namespaces on one bridge (tests/netns.sh), each with its own sshd, one
# node each, started by tsrun over ssh and by Open MPI's mpirun (where
# installed) and by Slurm's srun (where installed). Once every node runs,
# host 2's link goes down. Every node of the job, on the cut host too, must
# end, and no process of the job may remain on any host 10 s after
# TSR_HEARTBEAT (they end about half a second after it: the bound leaves
# room for a loaded machine, and the time taken is printed); under tsrun,
# once the link is back, no ssh session of the job may remain on host 2
# either. Each node keeps its program's name under every launcher (not
# `exe`, the restart that turns address-space randomisation off). MPICH's
# example of docs/CLUSTER.md runs as written across the four hosts, and
# tsrun leaves to ssh the host names only ssh knows.
. tests/lib.sh

. tests/netns.sh
netns_test_hosts "tsc$$" 4
for k in 0 1 2 3; do netns_sshd $k || skip_all "sshd did not start in a namespace"; done
# An sshd has started once it accepts connections.
for k in 0 1 2 3; do
    for _ in $(seq 100); do
        netns_exec 0 bash -c "exec 3<>/dev/tcp/10.77.0.$((k + 1))/22" 2>/dev/null && break
        sleep 0.1
    done
done
HB=2
printf '10.77.0.1\n10.77.0.2\n10.77.0.3\n10.77.0.4\n' >"$LOG/hosts"
printf '10.77.0.1 slots=1\n10.77.0.2 slots=1\n10.77.0.3 slots=1\n10.77.0.4 slots=1\n' >"$LOG/ompi_hosts"
mkdir -m 0700 "$LOG/rdv"

# pids_in K PATTERN: the processes of host K whose command line matches.
pids_in() {
    local p
    for p in $(ip netns pids "$(netns_name "$1")"); do
        tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "$2" && echo "$p"
    done
}

# running PID: the process exists and has not ended (a zombie has: only
# its parent, the launcher's daemon, has yet to reap it).
running() { [ -e "/proc/$1" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }

# nodes_in K: the job's running nodes on host K, by their name (or `exe`,
# the name a restart through /proc/self/exe gives).
nodes_in() {
    local p
    for p in $(ip netns pids "$(netns_name "$1")"); do
        grep -qx "sleeper\|exe" "/proc/$p/comm" 2>/dev/null && running "$p" && echo "$p"
    done
}

# cut_test NAME CMD...: runs CMD (the job: tests/mp/sleeper on 4 hosts) in
# host 0, cuts host 2 once every node is ready, and checks what ends.
cut_test() {
    local name=$1; shift
    local job pids names="" p k t0 gone=""
    start "$LOG/out" "$LOG/err" "$@"
    if ! wait_ready "$LOG/out" 4; then
        kill $job; wait $job
        bad "$name: the job never ran" "$LOG/err"
        return
    fi
    pids=$(awk '$1=="ready" {print $3}' "$LOG/out")
    for p in $pids; do names+="$(cat /proc/$p/comm) "; done
    if [ "$names" = "sleeper sleeper sleeper sleeper " ]; then ok "$name: every node is named sleeper"
    else cat "$LOG/out" >>"$LOG/err"; bad "$name: every node is named sleeper (not '$names')" "$LOG/err"; fi
    t0=$(date +%s.%N)
    ip -n "$(netns_name 2)" link set eth0 down
    for _ in $(seq $(((HB + 9) * 10))); do
        gone=1
        for p in $pids; do running "$p" && gone=""; done
        [ -n "$gone" ] && break
        sleep 0.1
    done
    local dt; dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    if [ -n "$gone" ]; then ok "$name: every node ended within TSR_HEARTBEAT + 9 s ($dt s)"
    else ps -o pid,args -p "$(echo $pids | tr ' ' ,)" >>"$LOG/err"; bad "$name: every node ended within TSR_HEARTBEAT + 9 s" "$LOG/err"; fi
    sleep 1
    local left=""
    for k in 0 1 2 3; do left+=$(nodes_in $k); done
    [ -z "$left" ] && ok "$name: no process of the job on any host" ||
        bad "$name: no process of the job on any host (left: $left)"
    ip -n "$(netns_name 2)" link set eth0 up
}

cut_test "cut/tsrun" ip netns exec "$(netns_name 0)" "$TSRUN" --ssh "$NETNS_SSH" --hostfile "$LOG/hosts" \
    env TSR_HEARTBEAT=$HB $B/tests/mp/sleeper 60
for _ in $(seq 100); do kill -0 %1 2>/dev/null || break; sleep 0.1; done
if grep -q "tsrun: node 2 (on host 10.77.0.3) stopped responding" "$LOG/err"; then ok "cut/tsrun: tsrun names node 2 and its host"
else bad "cut/tsrun: tsrun names node 2 and its host" "$LOG/err"; fi
wait
# The link is back: the cut host's sshd learns that the session's client
# is gone, and ends it.
for _ in $(seq 100); do [ -z "$(pids_in 2 'sshd: root@')" ] && break; sleep 0.1; done
[ -z "$(pids_in 2 'sshd: root@')" ] && ok "cut/tsrun: no ssh session left on host 2 once it is reachable" ||
    bad "cut/tsrun: no ssh session left on host 2 once it is reachable"

# Host names only ssh's configuration knows are left to ssh: tsrun listens
# toward the first host it can resolve; with none, and no default route in
# the namespaces, it says which variable to set.
printf 'Host first\n    HostName 10.77.0.1\nHost second\n    HostName 10.77.0.2\n' >"$LOG/ssh_config"
SSHC="${NETNS_SSH/-F \/dev\/null/-F $LOG/ssh_config}"
expect_ok "cluster/ssh: host names that only ssh resolves" "node 1: .*PASS" \
    ip netns exec "$(netns_name 0)" "$TSRUN" --ssh "$SSHC" -H first,10.77.0.3 -n 2 -t 30 \
    $B/tests/mp/lock_counter
expect_fail "cluster/ssh: no host tsrun resolves, no default route" \
    "cannot tell which address of this host reaches 'second'.*set TSR_ADDR or TSR_IFACE" \
    ip netns exec "$(netns_name 0)" "$TSRUN" --ssh "$SSHC" -H first,second -n 2 $B/tests/mp/lock_counter
expect_ok "cluster/ssh: ... and with TSR_ADDR it runs" "node 1: .*PASS" \
    ip netns exec "$(netns_name 0)" env TSR_ADDR=10.77.0.1 "$TSRUN" --ssh "$SSHC" -H first,second -n 2 \
    -t 30 $B/tests/mp/lock_counter

# docs/CLUSTER.md's MPICH example as written, with an MPICH hostfile
# ("host:N"), across the four hosts; ssh's key reaches Hydra by its
# environment, not on the command line.
if command -v mpirun.mpich >/dev/null; then
    printf '10.77.0.1:1\n10.77.0.2:1\n10.77.0.3:1\n10.77.0.4:1\n' >"$LOG/mpich_hosts"
    printf '#!/bin/sh\nexec %s "$@"\n' "$NETNS_SSH" >"$LOG/ssh"
    chmod +x "$LOG/ssh"
    mkdir -p "$LOG/run"
    ln -sf "$PWD/$B/tests/mp/lock_counter" "$LOG/run/prog"
    cd "$LOG/run" || exit 1
    expect_ok "cluster/mpich: docs/CLUSTER.md's example across 4 hosts" "node 3: .*PASS" \
        ip netns exec "$(netns_name 0)" env HYDRA_LAUNCHER_EXEC="$LOG/ssh" TSR_RENDEZVOUS="$LOG/rdv" \
        mpirun.mpich -n 4 --hostfile "$LOG/mpich_hosts" ./prog
    cd - >/dev/null || exit 1
else
    skip "cluster/mpich: MPICH is not installed"
fi

if command -v mpirun.openmpi >/dev/null; then
    # Open MPI's own daemon on the cut host (orted) and mpirun wait for
    # their link whatever the program does: they are ended here, after
    # the checks, which look only at the job's own processes.
    cut_test "cut/mpirun" ip netns exec "$(netns_name 0)" mpirun.openmpi --allow-run-as-root -np 4 \
        --hostfile "$LOG/ompi_hosts" --mca plm_rsh_agent "$NETNS_SSH" -x TSR_RENDEZVOUS="$LOG/rdv" \
        -x TSR_HEARTBEAT=$HB $B/tests/mp/sleeper 60
    for k in 0 1 2 3; do for p in $(pids_in $k "orted\|mpirun"); do kill -9 "$p" 2>/dev/null; done; done
    wait 2>/dev/null
else
    skip "cut/mpirun: Open MPI is not installed"
fi
# Slurm across the hosts: slurmctld on host 0 and one slurmd on each host
# (tests/slurm.sh), entered into the host's network only, so that they see
# this machine's cgroups; each node writes its own messages to a file on
# its host (srun --error), as the cut host's cannot reach srun. srun waits
# for the cut host's task, whose slurmstepd retries its report for a few
# seconds and then gives up: like orted, they are ended after the checks,
# which look only at the job's own processes.
if command -v slurmd >/dev/null && command -v srun >/dev/null; then
    . tests/slurm.sh
    trap 'slurm_down; netns_down; rm -rf "$LOG"' EXIT
    slurm_conf "$LOG/slurm" 10.77.0.1 "h[0-3] NodeAddr=10.77.0.[1-4] CPUs=1"
    slurm_daemon nsenter --net="/run/netns/$(netns_name 0)" slurmctld -D -i
    for k in 0 1 2 3; do slurm_daemon nsenter --net="/run/netns/$(netns_name $k)" slurmd -D -N h$k; done
    if slurm_idle 4 netns_exec 0; then
        cut_test "cut/srun" netns_exec 0 env TSR_RENDEZVOUS="$LOG/rdv" TSR_HEARTBEAT=$HB \
            srun -n 4 -N 4 --error="$LOG/node.%t" $B/tests/mp/sleeper 60
        for k in 0 1 3; do
            grep -q "^tessera: node $k: stopping: node 2 stopped responding" "$LOG/node.$k" &&
                ok "cut/srun: node $k names node 2" || bad "cut/srun: node $k names node 2" "$LOG/node.$k"
        done
        grep -q "^tessera: node 2: stopping: node [013] stopped responding" "$LOG/node.2" &&
            ok "cut/srun: node 2 names a node it lost" || bad "cut/srun: node 2 names a node it lost" "$LOG/node.2"
        for k in 0 1 2 3; do for p in $(pids_in $k "slurmstepd\|srun"); do kill -9 "$p" 2>/dev/null; done; done
    else
        skip "cut/srun: slurmctld and slurmd did not come up: $(tail -n 2 "$LOG/slurm/daemons.out" | tr '\n' ' ')"
    fi
else
    skip "cut/srun: Slurm is not installed"
fi
finish
