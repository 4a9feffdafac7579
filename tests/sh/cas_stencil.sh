#!/usr/bin/env bash
# A checked loop nest takes no fault under every protocol (issue 46): a
# Jacobi stencil (tests/cas/stencil_run.c), built with cc and with tsrcc at
# every hoisting level, under the home-based and lazy protocols and
# Munin's annotations at 2 nodes (the home-based one at 4 too). Every
# tsrcc build prints the checksums the cc build prints and counts no
# fault (faults_taken) on any node, where the cc build takes faults.
# Migratory data are left out: its one copy moves to each reader, so a
# neighbour's check takes the boundary rows away again; reduction data
# are written only through tsr_reduce_*.
. tests/lib.sh
. tests/cas/build.sh
builds=(basic aghoist agdiscard maxaghoist maxagdiscard)
cas_build tests/cas/stencil_run.c "${builds[@]}"

# run BUILD KIND SHAPE N: the job's output, sorted, in $LOG/out.
run() {
    local env=()
    [ "$2" = lrc ] && env=(TSR_PROTO=lrc)
    timeout -k 2 60 env "${env[@]}" $TSRUN -n "$4" "$LOG/$1" "$2" "$3" >"$LOG/raw" 2>&1 &&
        sort "$LOG/raw" >"$LOG/out"
}

# no_faults KIND SHAPE N
no_faults() {
    local kind=$1 shape=$2 n=$3 sums
    if ! run cc "$kind" "$shape" "$n" || ! grep -Eq 'faults [1-9]' "$LOG/out"; then
        bad "cc build, $kind $shape -n $n: runs and faults" "$LOG/raw"
        return
    fi
    sums=$(grep checksum "$LOG/out")
    for b in "${builds[@]}"; do
        if run "$b" "$kind" "$shape" "$n" && [ "$(grep checksum "$LOG/out")" = "$sums" ] &&
            [ "$(grep -c 'faults 0$' "$LOG/out")" -eq "$n" ]; then
            ok "tsrcc $b, $kind $shape -n $n: as cc, no fault"
        else
            bad "tsrcc $b, $kind $shape -n $n: as cc, no fault" "$LOG/raw"
        fi
    done
}

for kind in hlrc lrc conventional write_shared producer_consumer result; do
    no_faults $kind swap 2
    no_faults $kind copy 2
done
no_faults read_only swap 2
no_faults hlrc copy 4
finish
