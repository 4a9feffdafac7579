#!/usr/bin/env bash
# The multi-host parts that need neither root nor another host: tsrun's
# host lists and their errors, nodes started through an ssh command (here a
# stand-in that runs the command on this host), where tsrun's input goes,
# the listen address variables, and the rendezvous of processes started
# by another launcher (its environment set here by hand).
. tests/lib.sh

# The stand-in for ssh: logs its host and options, fails for 127.0.0.2 as
# ssh does for a host it cannot reach (status 255), else runs the command.
cat >"$LOG/ssh" <<EOF
#!/usr/bin/env bash
host=\${@: -2:1}
echo "\$host \$*" >>"$LOG/ssh.log"
[ "\$host" = 127.0.0.2 ] && { echo "ssh: connect to host \$host port 22: Connection refused" >&2; exit 255; }
exec sh -c "\${@: -1}"
EOF
chmod +x "$LOG/ssh"
P=$B/tests/mp/lock_counter

expect_fail "cluster/local -H with a bad slot count" "-H: 'b' has no slot count" $TSRUN -H a,b:x $P
expect_fail "cluster/local TSR_HOSTS with a bad slot count" "TSR_HOSTS='a,b:x': 'b' has no slot count" \
    env TSR_HOSTS=a,b:x $TSRUN $P
expect_fail "cluster/local -H refuses an option as a host" "'-oProxyCommand=x' is not a host name" \
    $TSRUN --hosts=-oProxyCommand=x $P
printf 'a slots=2\nb cpus=4\n' >"$LOG/bad_hosts"
expect_fail "cluster/local hostfile with an unknown word" "bad_hosts:2: 'cpus=4' is neither slots=N" \
    $TSRUN --hostfile "$LOG/bad_hosts" $P
expect_fail "cluster/local TSR_TRANSPORT=shm across hosts is refused" \
    "TSR_TRANSPORT=shm needs every node on this host, and node 0 runs on 127.0.0.2" \
    env TSR_TRANSPORT=shm $TSRUN -H 127.0.0.2,127.0.0.3 -n 2 $P
expect_fail "cluster/local missing hostfile" "cannot read the hostfile $LOG/none" $TSRUN --hostfile "$LOG/none" $P
expect_fail "cluster/local more nodes than slots" "-n 5 needs 5 slots but the hosts have 4" \
    $TSRUN -H localhost:4 -n 5 $P
expect_fail "cluster/local bad --stdin" "--stdin takes a node id, 'all' or 'none', not 'some'" \
    $TSRUN --stdin some -n 2 $P
expect_fail "cluster/local --stdin beyond the job" "--stdin 7: there is no node 7 in a 2-node job" \
    $TSRUN --stdin 7 -n 2 $P
expect_fail "cluster/local bad TSR_ADDR at tsrun" "TSR_ADDR='nowhere' is not an IPv4 address" \
    env TSR_ADDR=nowhere $TSRUN -H localhost $P

# Nodes fill the hosts' slots in order; ssh runs in batch mode.
expect_ok "cluster/local 3 nodes through ssh" "node 2: .*PASS" \
    $TSRUN --ssh "$LOG/ssh -i key" -H localhost,127.0.0.1:2 $P
sort "$LOG/ssh.log" | awk '{print $1}' | tr '\n' ' ' >"$LOG/hosts_used"
if [ "$(cat "$LOG/hosts_used")" = "127.0.0.1 127.0.0.1 localhost " ] &&
    grep -q -- "-i key -o BatchMode=yes -x localhost" "$LOG/ssh.log"; then
    ok "cluster/local ... on the hosts' slots, in batch mode"
else bad "cluster/local ... on the hosts' slots, in batch mode" "$LOG/ssh.log"; fi
expect_ok "cluster/local TSR_SSH names the ssh command" "node 1: .*PASS" \
    env TSR_SSH="$LOG/ssh" $TSRUN -H localhost:2 $P
expect_fail "cluster/local a host ssh cannot reach is named" \
    "tsrun: node 1 (on host 127.0.0.2) could not be started: ssh to 127.0.0.2 failed (status 255)" \
    $TSRUN --ssh "$LOG/ssh" -H localhost,127.0.0.2 $P

# Input: node 0 alone by default with hosts; every node or none on request.
echo "hello from tsrun" >"$LOG/input"
expect_ok "cluster/local stdin to node 0 with hosts" "node 0 read 17 bytes" \
    $TSRUN --ssh "$LOG/ssh" -H localhost:3 $B/tests/mp/stdin_echo <"$LOG/input"
[ "$(grep -c "read 0 bytes" "$LOG/out")" -eq 2 ] && ok "cluster/local ... and to no other node" ||
    bad "cluster/local ... and to no other node" "$LOG/out"
expect_ok "cluster/local --stdin all on this host" "node 2 read 17 bytes" \
    $TSRUN -n 3 --stdin all $B/tests/mp/stdin_echo <"$LOG/input"
[ "$(grep -c "read 17 bytes" "$LOG/out")" -eq 3 ] && ok "cluster/local ... every node a copy" ||
    bad "cluster/local ... every node a copy" "$LOG/out"
expect_ok "cluster/local --stdin none" "node 0 read 0 bytes" \
    $TSRUN -n 2 --stdin none $B/tests/mp/stdin_echo <"$LOG/input"

# The node's side of TSR_ADDR and TSR_IFACE.
expect_ok "cluster/local TSR_ADDR chooses where nodes listen" "peers reach this node at 127.0.0.9$" \
    env TSR_ADDR=127.0.0.9 TSR_VERBOSE=1 $TSRUN -n 2 $P
expect_ok "cluster/local TSR_IFACE chooses where nodes listen" "peers reach this node at 127.0.0.1$" \
    env TSR_IFACE=lo TSR_VERBOSE=1 $TSRUN -n 2 $P
expect_fail "cluster/local bad TSR_IFACE" "TSR_IFACE='nosuch0' is not an interface of this host" \
    env TSR_IFACE=nosuch0 $TSRUN -n 2 $P

# Another launcher's environment, set by hand: two processes meet in the
# rendezvous directory without tsrun or MPI.
export TSR_RENDEZVOUS=$LOG/rdv
OMPI=(env OMPI_COMM_WORLD_SIZE=2)
"${OMPI[@]}" OMPI_COMM_WORLD_RANK=1 PMIX_NAMESPACE=job1 $P >"$LOG/rank1" 2>&1 &
rank1=$!
expect_ok "cluster/local two processes meet by rendezvous" "node 0: .*PASS" \
    "${OMPI[@]}" OMPI_COMM_WORLD_RANK=0 PMIX_NAMESPACE=job1 $P
wait $rank1 && grep -q "node 1: .*PASS" "$LOG/rank1" && ok "cluster/local ... both of them" ||
    bad "cluster/local ... both of them" "$LOG/rank1"
expect_fail "cluster/local rendezvous names a missing node 0" \
    "node 0 did not publish its address in $LOG/rdv/ompi-job2 within 1 s" \
    "${OMPI[@]}" OMPI_COMM_WORLD_RANK=1 PMIX_NAMESPACE=job2 TSR_CONNECT_TIMEOUT=1 $P
if [ ! -e "$LOG/rdv/ompi-job2" ]; then ok "cluster/local ... and leaves no directory behind"
else ls -la "$LOG/rdv/ompi-job2" >"$LOG/left"; bad "cluster/local ... and leaves no directory behind" "$LOG/left"; fi
# Started by another launcher, a node restarts itself with the same
# address layout; it keeps its program's name (not `exe`) for pgrep and top.
for k in 0 1; do
    "${OMPI[@]}" OMPI_COMM_WORLD_RANK=$k PMIX_NAMESPACE=job5 $B/tests/mp/sleeper 1 >"$LOG/name$k" 2>&1 &
done
names=""
if wait_ready "$LOG/name?" 2; then
    for pid in $(awk '$1=="ready" {print $3}' "$LOG"/name?); do names+="$(cat /proc/$pid/comm) "; done
fi
wait
if [ "$names" = "sleeper sleeper " ]; then ok "cluster/local nodes of another launcher keep their name"
else echo "names: '$names'" >>"$LOG/name0"; bad "cluster/local nodes of another launcher keep their name" "$LOG/name0"; fi
# The launcher's process that started the nodes (their parent: here a
# shell) is killed: each node ends within TSR_HEARTBEAT (2 s), saying why.
bash -c "for k in 0 1; do ${OMPI[*]} OMPI_COMM_WORLD_RANK=\$k PMIX_NAMESPACE=job6 TSR_HEARTBEAT=2 \
    $B/tests/mp/sleeper 60 >$LOG/orphan\$k 2>&1 & done; wait" &
launcher=$!
if wait_ready "$LOG/orphan?" 2; then
    pids=$(awk '$1=="ready" {print $3}' "$LOG"/orphan?)
    kill -9 $launcher
    any_alive() { local p; for p in $pids; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
    for _ in $(seq 40); do any_alive || break; sleep 0.1; done
    if ! any_alive && grep -q "stopping: node [01] lost its launcher: its parent, process $launcher" "$LOG"/orphan?; then
        ok "cluster/local nodes whose launcher dies end within TSR_HEARTBEAT"
    else kill $pids 2>/dev/null; cat "$LOG"/orphan? >"$LOG/out"; bad "cluster/local nodes whose launcher dies end within TSR_HEARTBEAT" "$LOG/out"; fi
else kill $launcher; bad "cluster/local orphan test never ready" "$LOG/orphan0"; fi
wait $launcher 2>/dev/null
expect_fail "cluster/local bad rank from the launcher" \
    "OMPI_COMM_WORLD_RANK='5' (set by Open MPI) is not an integer in \[0, 1\]" \
    "${OMPI[@]}" OMPI_COMM_WORLD_RANK=5 PMIX_NAMESPACE=job3 $P
expect_fail "cluster/local MPICH without a PMI socket needs TSR_JOB_ID" "gives no job id: set TSR_JOB_ID" \
    env PMI_RANK=0 PMI_SIZE=2 $P
mkdir -m 0755 "$LOG/open"
expect_fail "cluster/local rendezvous directory others can read" "must belong to this user with mode 0700" \
    "${OMPI[@]}" OMPI_COMM_WORLD_RANK=0 PMIX_NAMESPACE=job4 TSR_RENDEZVOUS="$LOG/open" $P
expect_ok "cluster/local a Slurm batch script is not a parallel step" "node 0: .*PASS" \
    env -u SLURM_STEP_ID SLURM_PROCID=0 SLURM_NTASKS=4 SLURM_JOB_ID=7 $P
finish
