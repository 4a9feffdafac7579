#!/usr/bin/env bash
# A shared region larger than the address-space limit allows: the node
# stops saying that the limit (ulimit -v) refused the reservation, with the
# limit's value and the TSR_MEMORY that would fit, whichever view of the
# region (the application's, at TSR_BASE, or the runtime's) the kernel
# refuses first. 4000000 KiB is 3906 MiB; a quarter of it, 976 MiB.
. tests/lib.sh
P=$B/tests/mp/lock_counter
limit='address-space limit (ulimit -v) is 3906 MiB, .* at most a quarter of the limit (976 MiB)'

expect_fail "reserve/runtime view refused under ulimit -v: the limit named" \
    "^tessera: node 0: cannot reserve 2048 MiB of address space for the runtime view .*$limit" \
    bash -c "ulimit -v 4000000 && TSR_MEMORY=2G exec $P"
expect_fail "reserve/application view refused under ulimit -v: the limit named" \
    "^tessera: node 0: cannot reserve 8192 MiB of address space for the application view .*$limit" \
    bash -c "ulimit -v 4000000 && TSR_MEMORY=8G exec $P"
expect_fail "reserve/under tsrun -m, the nodes name the limit" \
    "^tessera: node [01]: cannot reserve .*$limit" \
    bash -c "ulimit -v 4000000 && exec $TSRUN -n 2 -m 2G $P"
finish
