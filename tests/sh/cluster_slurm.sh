#!/usr/bin/env bash
# A Tessera program started by Slurm's srun, without tsrun: a slurmctld and
# a slurmd configured by tests/slurm.sh in a temporary directory (one node "localhost"
# with 4 CPUs, no authentication daemon: auth/none), then srun -n 4. Each
# process takes its rank and size from Slurm's environment and meets its
# peers through the rendezvous directory (TSR_RENDEZVOUS).
. tests/lib.sh

[ "$(id -u)" -eq 0 ] || skip_all "slurmd must run as root"
scripts/deps.sh slurm >"$LOG/deps" 2>&1 || missing_all "cannot install Slurm: $(tail -1 "$LOG/deps")"

. tests/slurm.sh
slurm_conf "$LOG/slurm" 127.0.0.1 "localhost CPUs=4"
export TSR_RENDEZVOUS=$LOG/rendezvous
trap 'slurm_down; rm -rf "$LOG"' EXIT
slurm_daemon slurmctld -D -i
slurm_daemon slurmd -D -N localhost
slurm_idle 1 || skip_all "slurmctld and slurmd did not come up here: $(tail -n 2 "$LOG/slurm/daemons.out" | tr '\n' ' ')"

SRUN=(timeout -k 2 50 srun -n 4)
for prog in lock_counter false_sharing barrier_visibility; do
    expect_ok "cluster/srun -n 4 $prog" "node 3: .*PASS" "${SRUN[@]}" $B/tests/mp/$prog
done
expect_ok "cluster/srun -n 4 apps/sor" "verified=PASS" "${SRUN[@]}" $B/apps/sor 64 64 10
expect_ok "cluster/srun -n 4 apps/mm" "verified=PASS" "${SRUN[@]}" $B/apps/mm 64
expect_fail "cluster/srun a node leaving early is named" "stopping: node 3 " \
    "${SRUN[@]}" $B/tests/mp/early_exit
finish
