#!/usr/bin/env bash
# tsr_malloc / tsr_free_local: one node allocates alone and the others use
# the memory once the pointer reaches them (tests/mp/malloc_local.c), and
# the misuses that must stop the job naming the cause (tests/mp/malloc_err.c).
. tests/lib.sh
for n in 1 2 3 4; do
    run "allocate alone, publish under a lock, share, free and reuse (-n $n)" \
        $TSRUN -n $n $B/tests/mp/malloc_local
done
run "the same with TSR_WRITE_DETECT=all (-n 4)" env TSR_WRITE_DETECT=all $TSRUN -n 4 $B/tests/mp/malloc_local
run "the same with TSR_PROGRESS=block (-n 3)" env TSR_PROGRESS=block $TSRUN -n 3 $B/tests/mp/malloc_local
# Under TSR_PROTO=lrc the memory is TreadMarks': no home to fetch from, so
# the other nodes learn the pages from the write notices that name them.
for n in 1 2 3 4; do
    run "the same with TSR_PROTO=lrc (-n $n)" env TSR_PROTO=lrc $TSRUN -n $n $B/tests/mp/malloc_local
done
run "the same with TSR_PROTO=lrc TSR_DETECT=uffd (-n 4)" \
    env TSR_PROTO=lrc TSR_DETECT=uffd $TSRUN -n 4 $B/tests/mp/malloc_local
# Munin objects allocated alone (tests/mp/munin_malloc.c, in the matrix's
# munin set) beside TreadMarks' protocol, whose locks carry both payloads.
run "Munin objects allocated alone, in a TSR_PROTO=lrc job (-n 3)" \
    env TSR_PROTO=lrc $TSRUN -n 3 $B/tests/mp/munin_malloc
for n in 1 2 4; do
    expect_fail "access to an unallocated arena address names it (-n $n)" \
        "access to 0x[0-9a-f]* in node $((n - 1))'s tsr_malloc arena, which node $((n - 1)) has not allocated" \
        $TSRUN -n $n $B/tests/mp/malloc_err unallocated
done
# misuse NODES MODE NAME PATTERN: malloc_err MODE on NODES nodes must stop
# the job printing PATTERN.
misuse() {
    expect_fail "$3" "$4" $TSRUN -n "$1" $B/tests/mp/malloc_err "$2"
}
misuse 3 foreign_free "tsr_free_local by another node names the allocator" \
    "tsr_free_local(0x[0-9a-f]*): node 2 allocated it, and only that node may free it"
misuse 3 bound_free "a Munin object bound to a lock cannot be freed" \
    "tsr_free_local(0x[0-9a-f]*): the object is bound to lock 5 (tsr_hint_lock_data)"
misuse 2 lrc_attr "tsr_malloc_attr refuses TreadMarks' protocol in a home-based job" \
    "keeps this node's own allocations only when the whole job chose it"
misuse 2 null_attr "tsr_malloc_attr refuses no attributes" "tsr_malloc_attr(64, NULL): no attributes"
misuse 2 munin_thread "a second thread may not allocate a Munin object" \
    "tsr_malloc_attr(TSR_PROTO_MUNIN): called from thread [0-9]*, not from thread [0-9]* that called tsr_init"
misuse 2 munin_thread_free "a second thread may not free a Munin object" \
    "tsr_free_local(0x[0-9a-f]*): called from a second thread on memory of protocol munin"
misuse 2 full "a full arena names TSR_MALLOC_MEMORY" "has no room for it; raise TSR_MALLOC_MEMORY"
expect_fail "bad TSR_MALLOC_MEMORY" "TSR_MALLOC_MEMORY='lots' is not a size" \
    env TSR_MALLOC_MEMORY=lots $TSRUN -n 2 $B/tests/mp/malloc_local
expect_fail "TSR_MALLOC_MEMORY not below TSR_MEMORY" "TSR_MALLOC_MEMORY='2G' is out of range: below TSR_MEMORY" \
    env TSR_MEMORY=1G TSR_MALLOC_MEMORY=2G $TSRUN -n 2 $B/tests/mp/malloc_local
finish
