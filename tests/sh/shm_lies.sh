#!/usr/bin/env bash
# Over the shm backend a peer's lies are in memory, not in messages: a ring
# head, a fast box's place or its message's length that claims more than
# was written (tests/mp/shm_lies.c). The node that reads one must stop the
# job with a protocol error naming the liar, within seconds, and read
# nothing past its ring.
. tests/lib.sh

P=$B/tests/mp/shm_lies
[ -x "$P" ] || skip_all "$P is not built"

lie() {
    expect_fail "shm_lies: $1 is refused, naming node 1" "node 0: protocol error: node 1's $2" \
        env TSR_TRANSPORT=shm TSR_HEARTBEAT=0 $TSRUN -n 2 $P "$1"
}
lie head "ring claims 266240 unread bytes, more than its 262144"
lie box-place "fast box claims a place"
lie box-length "fast box claims more than its 240 bytes"
finish
