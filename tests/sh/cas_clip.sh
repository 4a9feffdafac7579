#!/usr/bin/env bash
# Checks never change what a program does (docs/CAS.md, issue 51): a loop
# that clips negative values, over data that are never negative, writes
# nothing (tests/cas/clip_run.c). Built with cc and with tsrcc at every
# level and with -tsr-poll, it prints the same sums under the home-based
# and lazy protocols and Munin's annotations, read_only included, and the
# passes that write nothing make no twin, no diff and no write fault
# (each node prints what tsr_stats counted). Where the data may be
# written, the clipping stores that do run still take effect.
. tests/lib.sh
. tests/cas/build.sh
builds=(none basic aghoist agdiscard maxaghoist maxagdiscard poll)
cas_build tests/cas/clip_run.c "${builds[@]}"

# same KIND N: every build prints, sorted, what the cc build prints, and
# the cc build's passes that write nothing counted no twin, diff or write
# fault on any of the N nodes.
same() {
    local kind=$1 n=$2 env=() want
    [ "$kind" = lrc ] && env=(TSR_PROTO=lrc)
    if ! timeout -k 2 60 env "${env[@]}" $TSRUN -n "$n" "$LOG/cc" "$kind" >"$LOG/out" 2>&1; then
        bad "cc build, $kind -n $n" "$LOG/out"
        return
    fi
    want=$(sort "$LOG/out")
    if [ "$(grep -c 'twins=0 diffs=0 write_faults=0$' <<<"$want")" -eq "$n" ]; then
        ok "cc build, $kind -n $n: nothing written"
    else
        bad "cc build, $kind -n $n: nothing written" "$LOG/out"
    fi
    for b in "${builds[@]}"; do
        timeout -k 2 60 env "${env[@]}" $TSRUN -n "$n" "$LOG/$b" "$kind" >"$LOG/out" 2>&1
        if [ "$(sort "$LOG/out")" = "$want" ]; then
            ok "tsrcc $b, $kind -n $n: as cc"
        else
            bad "tsrcc $b, $kind -n $n: as cc" "$LOG/out"
        fi
    done
}

for kind in hlrc lrc read_only conventional write_shared producer_consumer result; do
    same $kind 2
done
same hlrc 4
same read_only 3
finish
