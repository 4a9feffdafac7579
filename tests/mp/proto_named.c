/* An allocation whose attributes name TSR_PROTO_HLRC is kept by the
 * home-based protocol whatever TSR_PROTO says, and one with the default
 * attributes (TSR_PROTO_JOB) by TSR_PROTO's: under TSR_PROTO=lrc or scope
 * the named one used to take the job's protocol. The same for tsr_malloc_attr.
 * Each allocation is also used: node 0 writes it under a lock, and every
 * other node reads node 0's values after taking the lock. */
/* tsr-test: lrc -n 2,3 */
/* tsr-test: hlrc -n 2,3 */
#include <stdlib.h>
#include <string.h>

#include "coherence/protocol.h"
#include "memory/region.h"
#include "node_check.h"
#include "tessera.h"

/* The protocol of the page after p's: tsr_malloc's small blocks share
 * pages, whose first allocation chose their protocol, so the allocations
 * below are three pages long and their second page is theirs alone. */
static const char *kept_by(const char *p) { return coh_protocol_of(page_of(p + 4096))->name; }

/* Node 0 writes `v` at p under lock 0; the others wait for it there. */
static void use(long *p, long v)
{
    if (tsr_node() == 0) {
        tsr_lock(0);
        *p = v;
        tsr_unlock(0);
    }
    tsr_barrier();
    tsr_lock(0);
    CHECK(*p == v, "read %ld where node 0 wrote %ld", *p, v);
    tsr_unlock(0);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    const char *job = getenv("TSR_PROTO") ? getenv("TSR_PROTO") : "hlrc";
    tsr_attr dflt = TSR_ATTR_DEFAULT, hlrc = TSR_ATTR_DEFAULT;
    hlrc.proto = TSR_PROTO_HLRC;
    long *a = tsr_alloc_attr(3 * 4096, &dflt), *b = tsr_alloc_attr(3 * 4096, &hlrc);
    char *c = tsr_malloc_attr(3 * 4096, &dflt), *d = tsr_malloc_attr(3 * 4096, &hlrc);
    CHECK(!strcmp(kept_by((char *)a), job), "TSR_ATTR_DEFAULT's allocation kept by %s, not %s",
          kept_by((char *)a), job);
    CHECK(!strcmp(kept_by((char *)b), "hlrc"), "an allocation naming TSR_PROTO_HLRC kept by %s",
          kept_by((char *)b));
    CHECK(!strcmp(kept_by(c), job), "TSR_ATTR_DEFAULT's tsr_malloc_attr kept by %s, not %s",
          kept_by(c), job);
    CHECK(!strcmp(kept_by(d), "hlrc"), "a tsr_malloc_attr naming TSR_PROTO_HLRC kept by %s",
          kept_by(d));
    use(a, 11);
    use(b, 22);
    int me = tsr_node();
    tsr_finalize();
    return check_verdict(me, "proto_named");
}
