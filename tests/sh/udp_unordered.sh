#!/usr/bin/env bash
# The unordered service class and multicast (tests/mp/udp_unordered.c):
# under udp with injected reordering, unordered messages arrive exactly
# once and some really out of order; under tcp they come in order; a
# multicast reaches every member once (under udp through the job's IP
# multicast group, under tcp one unicast each). TSR_FAULTS is refused outside udp.
. tests/lib.sh
prog=$B/tests/mp/udp_unordered

out_of_order() { sed -n 's/.*unordered: 0 not exactly once, \([0-9]*\) out of order/\1/p' "$LOG/out"; }

check() { # NAME WANT(some|none) ENV...
    local name=$1 want=$2; shift 2
    if ! timeout -k 2 "${TSR_TEST_TIMEOUT:-120}" env "$@" $TSRUN -n 3 $prog >"$LOG/out" 2>&1; then
        bad "$name (exit $?)" "$LOG/out"; return
    fi
    local n; n=$(out_of_order)
    local group; group=$(sed -n 's/^node 0: multicast (native 1): .*, \([0-9]*\) group datagrams/\1/p' "$LOG/out")
    if [ "$(grep -c 'multicast (native [01]): 0 not exactly once' "$LOG/out")" != 3 ] || [ -z "$n" ]; then
        bad "$name: not exactly once" "$LOG/out"
    elif [ "$want" != none ] && [ "${group:-0}" -eq 0 ]; then
        bad "$name: no multicast went to the IP group" "$LOG/out"
    elif [ "$want" = some ] && [ "$n" -eq 0 ]; then
        bad "$name: no message arrived out of order" "$LOG/out"
    elif [ "$want" = none ] && [ "$n" -ne 0 ]; then
        bad "$name: $n messages out of order on an ordered transport" "$LOG/out"
    else
        ok "$name ($n out of order)"
    fi
}

check "udp, reorder=0.3: unordered messages overtake, each exactly once" some \
    TSR_TRANSPORT=udp TSR_FAULTS=reorder=0.3,dup=0.05,loss=0.02,seed=5
check "udp, no faults: exactly once" any TSR_TRANSPORT=udp
check "tcp: unordered messages come in order" none TSR_TRANSPORT=tcp
expect_fail "TSR_FAULTS under tcp is refused" "TSR_FAULTS is set but TSR_TRANSPORT is not udp" \
    env TSR_TRANSPORT=tcp TSR_FAULTS=loss=0.1 $TSRUN -n 2 $prog
expect_fail "a bad TSR_FAULTS key is refused" "TSR_FAULTS='loss=2'" \
    env TSR_TRANSPORT=udp TSR_FAULTS=loss=2 $TSRUN -n 2 $prog
finish
