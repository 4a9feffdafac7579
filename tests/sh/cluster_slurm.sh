#!/usr/bin/env bash
# A Tessera program started by Slurm's srun, without tsrun: a slurmctld and
# a slurmd configured here in a temporary directory (one node "localhost"
# with 4 CPUs, no authentication daemon: auth/none), then srun -n 4. Each
# process takes its rank and size from Slurm's environment and meets its
# peers through the rendezvous directory (TSR_RENDEZVOUS).
. tests/lib.sh

[ "$(id -u)" -eq 0 ] || skip_all "slurmd must run as root"
scripts/deps.sh slurm >"$LOG/deps" 2>&1 || missing_all "cannot install Slurm: $(tail -1 "$LOG/deps")"

S=$LOG/slurm
mkdir -p "$S/state" "$S/spool"
port=$((20000 + ($$ % 5000) * 2))
cat >"$S/slurm.conf" <<EOF
ClusterName=tsrtest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/linear
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=localhost CPUs=4 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
EOF
export SLURM_CONF=$S/slurm.conf TSR_RENDEZVOUS=$LOG/rendezvous
daemons=()
# slurmd waits for job steps on SIGTERM, and here their slurmstepd may
# never be reaped: after 5 s the daemons are killed outright.
alive() { local p; for p in "${daemons[@]}"; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
cleanup() {
    if [ ${#daemons[@]} -gt 0 ]; then
        kill "${daemons[@]}" 2>/dev/null
        for _ in $(seq 50); do alive || break; sleep 0.1; done
        kill -9 "${daemons[@]}" 2>/dev/null
        wait "${daemons[@]}" 2>/dev/null
    fi
    rm -rf "$LOG"
}
trap cleanup EXIT
slurmctld -D -i >"$S/slurmctld.out" 2>&1 &
daemons+=($!)
slurmd -D -N localhost >"$S/slurmd.out" 2>&1 &
daemons+=($!)
for _ in $(seq 100); do
    sinfo -h -o %t 2>/dev/null | grep -q idle && break
    kill -0 "${daemons[@]}" 2>/dev/null || break
    sleep 0.1
done
sinfo -h -o %t 2>/dev/null | grep -q idle ||
    skip_all "slurmctld and slurmd did not come up here: $(tail -q -n 1 "$S/slurmd.out" "$S/slurmctld.out" | tr '\n' ' ')"

SRUN=(timeout -k 2 50 srun -n 4)
for prog in lock_counter false_sharing barrier_visibility; do
    expect_ok "cluster/srun -n 4 $prog" "node 3: .*PASS" "${SRUN[@]}" $B/tests/mp/$prog
done
expect_ok "cluster/srun -n 4 apps/sor" "verified=PASS" "${SRUN[@]}" $B/apps/sor 64 64 10
expect_ok "cluster/srun -n 4 apps/mm" "verified=PASS" "${SRUN[@]}" $B/apps/mm 64
expect_fail "cluster/srun a node leaving early is named" "stopping: node 3 " \
    "${SRUN[@]}" $B/tests/mp/early_exit
finish
