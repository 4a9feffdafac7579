#!/usr/bin/env bash
# Every argument of the global address API is checked: a bad engine or
# cache shape, a size of 0, a node outside the job, bytes past the segment,
# a misaligned offset, a missing signal, a freed allocation. Each stops the
# job with a message naming the call and the argument, and a non-zero exit.
. tests/lib.sh

refuse() {
    local case=$1 pat=$2
    expect_fail "input/ga $case" "$pat" $TSRUN -n 2 $B/tests/mp/ga_bad_args "$case"
}

refuse engine "tsr_ga_alloc: attr->engine 9 is not a tsr_ga_engine"
refuse node_bits "tsr_ga_alloc: attr->cache_node_bits 13 is not -1 or 0 to 12"
refuse size0 "tsr_ga_alloc(0): a segment holds 1 byte to 1099511627776 bytes"
refuse node "tsr_ga_read32: node 2 is not a node of this 2-node job"
refuse past_end "tsr_ga_write64: 8 bytes at offset 64 pass the end of the 64-byte segment"
refuse misaligned "tsr_ga_read32: offset 6 is not a multiple of the access size, 4"
refuse signal_null "tsr_ga_read8_async: result and signal must not be NULL"
refuse bulk_past_end "tsr_ga_get: 8 bytes at offset 60 pass the end of the 64-byte segment"
refuse freed "tsr_ga_read8: 0x[0-9a-f]* is not a live global allocation"
finish
