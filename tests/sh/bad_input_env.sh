#!/usr/bin/env bash
# Every TSR_* variable is checked for form and range: a bad value stops the
# program with a message naming the variable, and a non-zero exit.
. tests/lib.sh
P="$B/tests/mp/lock_counter 1"

# refuse VAR=VALUE PATTERN: a one-node program with that setting must fail
# printing PATTERN.
refuse() {
    local setting=$1 pat=$2
    expect_fail "input/$setting" "$pat" env "$setting" $P
}

refuse TSR_MEMORY=16T "TSR_MEMORY='16T' is out of range: from 1M to 16T minus 4K (4294967295 pages of 4 KiB: page numbers are 32-bit)"
refuse TSR_MEMORY=17592186044415 "TSR_MEMORY='17592186044415' is out of range"
refuse TSR_MEMORY=512K "TSR_MEMORY='512K' is out of range: from 1M"
refuse TSR_MEMORY=-1 "TSR_MEMORY='-1' is not a size"
refuse TSR_MEMORY=16777216T "TSR_MEMORY='16777216T' is not a size"
refuse TSR_MEMORY=1e9 "TSR_MEMORY='1e9' is not a size"
refuse TSR_BASE=0x100000000001 "TSR_BASE=0x100000000001 must be aligned to 1M"
refuse TSR_BASE=0 "TSR_BASE='0' is out of range: at least 4G"
refuse TSR_BASE=0xfffffffffff00000 "TSR_BASE=0xfffffffffff00000 plus TSR_MEMORY=[0-9]* passes the end of the address space"
refuse TSR_FETCH_AHEAD=0 "TSR_FETCH_AHEAD='0' is not an integer in \[1, 256\]"
refuse TSR_FETCH_AHEAD=257 "TSR_FETCH_AHEAD='257' is not an integer in \[1, 256\]"
refuse TSR_FETCH_AHEAD=0x10 "TSR_FETCH_AHEAD='0x10' is not an integer"
refuse TSR_SPIN_US=-1 "TSR_SPIN_US='-1' is not an integer in \[0, 10000000\]"
refuse TSR_SPIN_US=99999999999999999999 "TSR_SPIN_US='99999999999999999999' is not an integer"
refuse TSR_STATS=2 "TSR_STATS='2' is not one of the accepted values"
refuse TSR_VERBOSE=yes "TSR_VERBOSE='yes' is not an integer in \[0, 9\]"
refuse TSR_CONNECT_TIMEOUT=0 "TSR_CONNECT_TIMEOUT='0' is not an integer in \[1, 3600\]"
refuse TSR_WRITE_DETECT=some "TSR_WRITE_DETECT='some' is not one of the accepted values"
refuse TSR_PROGRESS=fast "TSR_PROGRESS='fast' is not one of the accepted values"
refuse TSR_PROTO=treadmarks "TSR_PROTO='treadmarks' is not one of the accepted values"
refuse TSR_LOCK_HANDOFF=relay "TSR_LOCK_HANDOFF='relay' is not one of the accepted values"
refuse TSR_FETCH=rdma "TSR_FETCH='rdma' is not one of the accepted values"
refuse TSR_DIFF_PUT=rdma "TSR_DIFF_PUT='rdma' is not one of the accepted values"
refuse TSR_LRC_GC_BYTES=1K "TSR_LRC_GC_BYTES='1K' is out of range: 64K to 1T"
refuse TSR_LRC_GC_BYTES=lots "TSR_LRC_GC_BYTES='lots' is not a size"
refuse TSR_GA_ENGINE=cache "TSR_GA_ENGINE='cache' is not one of the accepted values"
refuse TSR_GA_CACHE_NODE_BITS=13 "TSR_GA_CACHE_NODE_BITS='13' is not an integer in \[0, 12\]"
refuse TSR_GA_CACHE_ADDR_BITS=-1 "TSR_GA_CACHE_ADDR_BITS='-1' is not an integer in \[0, 24\]"
refuse TSR_SEND_QUEUE=1K "TSR_SEND_QUEUE='1K' is out of range: 4K to 1T"
refuse TSR_SEND_QUEUE=-5 "TSR_SEND_QUEUE='-5' is not a size"
refuse TSR_THREADS=0 "TSR_THREADS='0' is not an integer in \[1, 4096\]"

# The variables tsrun sets, given by hand.
job="TSR_BOOT=127.0.0.1:1 TSR_SECRET=00000000000000000000000000000000"
expect_fail "input/TSR_NODES=5000" "TSR_NODES='5000' is not an integer in \[1, 4096\]" \
    env $job TSR_NODES=5000 TSR_NODE=0 $P
expect_fail "input/TSR_NODE=2 of 2" "TSR_NODE='2' is not an integer in \[0, 1\]" \
    env $job TSR_NODES=2 TSR_NODE=2 $P
expect_fail "input/TSR_BOOT port 12x" "TSR_BOOT='127.0.0.1:12x' is not an IPv4 host:port" \
    env $job TSR_BOOT=127.0.0.1:12x TSR_NODES=2 TSR_NODE=1 $P
expect_fail "input/TSR_BOOT port 70000" "TSR_BOOT='127.0.0.1:70000' is not an IPv4 host:port" \
    env $job TSR_BOOT=127.0.0.1:70000 TSR_NODES=2 TSR_NODE=1 $P
expect_fail "input/TSR_SECRET too short" "TSR_SECRET must be 32 hex characters" \
    env $job TSR_SECRET=abc TSR_NODES=2 TSR_NODE=1 $P
expect_fail "input/TSR_SECRET not hex" "TSR_SECRET must be 32 hex characters" \
    env $job TSR_SECRET=0000000000000000000000000000000g TSR_NODES=2 TSR_NODE=1 $P

# Through tsrun, the job stops with the node's message and a failing status.
expect_fail "input/tsrun -m 16T" "TSR_MEMORY='16T' is out of range" $TSRUN -n 2 -m 16T $P

# A setting every node must share (config.h, config_shared), given to node
# 2 of 3 alone, as another host's environment might: the job stops at
# tsr_init naming it, both values and the node, where it used to hang
# (TSR_PROTO, TSR_SHARE_GLOBALS), crash (TSR_MALLOC_MEMORY), run on with
# pointers that meant another thing on node 2 (TSR_BASE), or fail a
# healthy node (TSR_HEARTBEAT).
# differs VAR VALUE NODE2 NODE0: node 2 has VAR=VALUE, the others not.
differs() {
    expect_fail "input/$1=$2 on node 2 alone" \
        "stopping: $1 is $3 on node 2, $4 on node 0: every node must have the same" \
        $TSRUN -n 3 bash -c "[ \$TSR_NODE = 2 ] && export $1=$2; exec $B/tests/mp/lock_counter"
}
differs TSR_PROTO lrc lrc hlrc
differs TSR_SHARE_GLOBALS 1 1 0
differs TSR_MULTICAST off off tree
differs TSR_HEARTBEAT 0 0 "[0-9]*"
differs TSR_BASE 0x200000000000 0x200000000000 0x100000000000
differs TSR_MEMORY 1056M 1056M "[0-9]*[KMGT]"
differs TSR_MALLOC_MEMORY 1000K 1000K "[0-9]*[KMGT]"
# Every other variable that changes what a node does (util/config_match.c)
# is compared as its text, which the message shows; the docs say how to
# pass them to every node.
differs TSR_VERBOSE 1 "'1'" unset
differs TSR_STATS 1 "'1'" unset
differs TSR_FETCH message "'message'" unset
differs TSR_STALL_WARN 3 "'3'" unset
if grep -q "pass TSR_\* variables to every node (mpirun -x, srun --export; docs/CONFIG.md)" "$LOG/out"; then
    ok "input/... the message says how to pass them"
else bad "input/... the message says how to pass them" "$LOG/out"; fi
# Transports that differ fail before tsr_init ends, at the first message.
expect_fail "input/TSR_TRANSPORT=tcp on node 2 alone" \
    "does node 2 run with another TSR_TRANSPORT?" \
    $TSRUN -n 3 bash -c "[ \$TSR_NODE = 2 ] && export TSR_TRANSPORT=tcp; exec $B/tests/mp/lock_counter"

# The largest TSR_MEMORY, 16T minus 4K, works where the machine can reserve
# it (three views of 16 TiB), or is refused with the reason.
TSR_MEMORY=17592186040320 timeout -k 2 20 $P >"$LOG/out" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q PASS "$LOG/out"; then
    ok "input/TSR_MEMORY=16T minus 4K works"
elif [ $rc -ne 0 ] && grep -q "cannot \(reserve\|map\|create\).*TSR_MEMORY\|lower TSR_MEMORY" "$LOG/out"; then
    ok "input/TSR_MEMORY=16T minus 4K refused by this machine, with the reason"
else
    bad "input/TSR_MEMORY=16T minus 4K (exit $rc)" "$LOG/out"
fi
finish
