#!/usr/bin/env bash
# A Tessera program started by Open MPI's mpirun, without tsrun: each
# process takes its rank and size from mpirun's environment and meets its
# peers through the rendezvous directory (TSR_RENDEZVOUS). The program is
# not linked with MPI.
. tests/lib.sh

scripts/deps.sh mpirun >"$LOG/deps" 2>&1 || skip_all "cannot install openmpi-bin: $(tail -1 "$LOG/deps")"
export TSR_RENDEZVOUS=$LOG/rendezvous
MPIRUN=(timeout -k 2 50 mpirun --oversubscribe -n 4)
[ "$(id -u)" -eq 0 ] && MPIRUN+=(--allow-run-as-root)

for prog in lock_counter false_sharing barrier_visibility; do
    expect_ok "cluster/mpirun -n 4 $prog" "node 3: .*PASS" "${MPIRUN[@]}" $B/tests/mp/$prog
done
expect_ok "cluster/mpirun -n 4 apps/sor" "verified=PASS" "${MPIRUN[@]}" $B/apps/sor 64 64 10
expect_ok "cluster/mpirun -n 4 apps/mm" "verified=PASS" "${MPIRUN[@]}" $B/apps/mm 64
ls -A "$TSR_RENDEZVOUS" >"$LOG/left"
if [ ! -s "$LOG/left" ]; then ok "cluster/mpirun node 0 removed the job's rendezvous files"
else bad "cluster/mpirun node 0 removed the job's rendezvous files" "$LOG/left"; fi
expect_fail "cluster/mpirun a node leaving early is named" "stopping: node 3 " \
    "${MPIRUN[@]}" $B/tests/mp/early_exit
finish
