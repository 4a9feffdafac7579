#!/usr/bin/env bash
# Every size, attribute field, lock id and annotation given to the API is
# checked: a bad one stops the job with a message naming it and a non-zero
# exit (never a wrapped size, a division by zero or a crash), and a cyclic
# block_pages beyond 32 bits works.
. tests/lib.sh

# refuse CASE PATTERN [ENV...]: tests/mp/bad_args CASE on 2 nodes must fail
# printing PATTERN.
refuse() {
    local case=$1 pat=$2; shift 2
    expect_fail "input/api $case" "$pat" env "$@" $TSRUN -n 2 $B/tests/mp/bad_args "$case"
}

too_big="the size is larger than the whole shared region (TSR_MEMORY=1024 MiB)"
refuse size_max "tsr_alloc(18446744073709551615): $too_big, which is at most 16T minus 4K" TSR_MEMORY=1G
refuse size_rounds_over "tsr_alloc(18446744073709551515): $too_big, which is at most 16T minus 4K" TSR_MEMORY=1G
refuse size_32T "tsr_alloc(35184372088832): $too_big, which is at most 16T minus 4K" TSR_MEMORY=1G
refuse size_2G "tsr_alloc(2147483648): $too_big; raise it, e.g. TSR_MEMORY=8G (or tsrun -m)" TSR_MEMORY=1G
refuse attr_null "tsr_alloc_attr: attr is NULL"
refuse home "tsr_alloc_attr: attr->home 7 is not TSR_HOME_BLOCK, TSR_HOME_CYCLIC or TSR_HOME_NODE"
refuse home_node "tsr_alloc_attr: attr->home_node 2 is not a node of this 2-node job"
refuse home_node_negative "tsr_alloc_attr: attr->home_node -1 is not a node of this 2-node job"
refuse proto "tsr_alloc_attr: unknown protocol 9"
refuse annot "tsr_alloc_attr: unknown Munin annotation 99"
refuse munin_params "tsr_alloc_attr: Munin parameters 0x100 have unknown bits"
refuse munin_params_of "tsr_munin_params: unknown annotation 99"
refuse lock "tsr_lock(-1): lock id out of range \[0, 16384)"
refuse unlock "tsr_unlock(16384): lock id out of range \[0, 16384)"
refuse hint_lock "tsr_hint_lock_data(16384): lock id out of range \[0, 16384)"
refuse range_wraps "tsr_range_read(0xfffffffffffff000, 8192, step 0, count 1): the range wraps the address space"
refuse range_step_wraps "tsr_range_write_step(0x1000, 8, step 9223372036854775807, count 4): the range wraps"
refuse change_annotation "tsr_hint_change_annotation: unknown annotation 99"

for n in 1 3; do
    expect_ok "input/api block_pages 2^32 homes every page at node 0 (-n $n)" "node 0: huge_block PASS" \
        $TSRUN -n $n $B/tests/mp/bad_args huge_block
done
finish
