#!/usr/bin/env bash
# A Tessera program started by Open MPI's and by MPICH's mpirun, without
# tsrun: each process takes its rank and size from mpirun's environment and
# meets its peers through the rendezvous directory (TSR_RENDEZVOUS). Under
# MPICH the job id comes from Hydra over PMI (src/boot/pmi.c), so neither
# launcher needs TSR_JOB_ID. The programs are not linked with MPI. On one
# host, TSR_TRANSPORT=auto gives them the shm rings, which the nodes make
# without tsrun (transport/shm_share.c).
. tests/lib.sh

export TSR_RENDEZVOUS=$LOG/rendezvous

# One launcher: its name in the test names, then its command line.
under() {
    local name=$1
    shift
    local run=(timeout -k 2 50 "$@")
    for prog in lock_counter false_sharing barrier_visibility; do
        expect_ok "cluster/$name -n 4 $prog" "node 3: .*PASS" "${run[@]}" $B/tests/mp/$prog
    done
    expect_ok "cluster/$name -n 4 apps/sor" "verified=PASS" "${run[@]}" $B/apps/sor 64 64 10
    expect_ok "cluster/$name -n 4 apps/mm" "verified=PASS" "${run[@]}" $B/apps/mm 64
    # Every node on this host: auto's rings, which the nodes made themselves.
    expect_ok "cluster/$name -n 4 runs over the shm rings" "node 3: transport: shm$" \
        env TSR_VERBOSE=1 "${run[@]}" $B/tests/mp/lock_counter
    ls -A "$TSR_RENDEZVOUS" >"$LOG/left"
    if [ ! -s "$LOG/left" ]; then ok "cluster/$name node 0 removed the job's rendezvous files"
    else bad "cluster/$name node 0 removed the job's rendezvous files" "$LOG/left"; fi
    expect_fail "cluster/$name a node leaving early is named" "stopping: node 3 " \
        "${run[@]}" $B/tests/mp/early_exit
}

if scripts/deps.sh mpirun >"$LOG/deps" 2>&1; then
    ompi=(mpirun.openmpi --oversubscribe -n 4)
    [ "$(id -u)" -eq 0 ] && ompi+=(--allow-run-as-root)
    under mpirun "${ompi[@]}"
    # Two "hosts", loopback addresses given per rank: auto joins each
    # host's pair by rings and the hosts by TCP; shm is refused there (in
    # a rendezvous directory of its own: ranks that stop at start-up may
    # leave their files, which the checks above and below look for).
    on2=(mpirun.openmpi --oversubscribe)
    [ "$(id -u)" -eq 0 ] && on2+=(--allow-run-as-root)
    for t in auto shm; do
        cmd=(timeout -k 2 50 "${on2[@]}"
             -n 2 env TSR_RENDEZVOUS=$LOG/hosts TSR_VERBOSE=1 TSR_TRANSPORT=$t TSR_ADDR=127.0.0.2
             $B/tests/mp/lock_counter :
             -n 2 env TSR_RENDEZVOUS=$LOG/hosts TSR_VERBOSE=1 TSR_TRANSPORT=$t TSR_ADDR=127.0.0.3
             $B/tests/mp/lock_counter)
        if [ $t = auto ]; then
            expect_ok "cluster/mpirun on two hosts: rings within each, TCP between" \
                "node 3: transport: shm rings to 1 other nodes of this host, TCP to 2 nodes" "${cmd[@]}"
        else
            expect_fail "cluster/mpirun on two hosts: TSR_TRANSPORT=shm is refused" \
                "TSR_TRANSPORT=shm needs every node on one host, and this job spans hosts" "${cmd[@]}"
        fi
    done
else
    missing "cluster/mpirun: cannot install openmpi-bin: $(tail -1 "$LOG/deps")"
fi
if scripts/deps.sh mpich >"$LOG/deps" 2>&1; then
    under mpich mpirun.mpich -n 4
else
    missing "cluster/mpich: cannot install mpich: $(tail -1 "$LOG/deps")"
fi
finish
