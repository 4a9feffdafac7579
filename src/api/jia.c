/*
 * jia.c - JIAJIA 2.1's interface (include/jia.h) over Tessera's. The
 * allocation calls follow JIAJIA's mem.c: jia_alloc3 hands out `block`
 * bytes per host round robin from `starthost`, which is Tessera's cyclic
 * placement with a start node; jia_alloc is jia_alloc3(size, size, h) with
 * h advancing by one host per call.
 */
#include "jia.h"

#include "api/compat.h"
#include "memory/region.h"
#include "tessera.h"
#include "util/log.h"

int jiapid;
int jiahosts;

void jia_init(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    jiapid = tsr_node();
    jiahosts = tsr_nodes();
}

void jia_exit(void) { tsr_finalize(); }

static void check_init(const char *call)
{
    if (!jiahosts)
        log_die("%s called before jia_init", call);
}

unsigned long jia_alloc3(int size, int block, int starthost)
{
    check_init("jia_alloc3");
    if (size <= 0 || block <= 0)
        log_die("jia_alloc3(%d, %d, %d): size and block must be positive", size, block,
                starthost);
    if (starthost < 0 || starthost >= jiahosts)
        log_die("jia_alloc3(%d, %d, %d): starthost is not a host of this %d-host job", size,
                block, starthost, jiahosts);
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_CYCLIC;
    attr.block_pages = ((size_t)block + PAGE_SIZE - 1) / PAGE_SIZE;
    attr.start_node = starthost;
    return (unsigned long)tsr_alloc_attr((size_t)size, &attr);
}

unsigned long jia_alloc2(int size, int block) { return jia_alloc3(size, block, 0); }

unsigned long jia_alloc(int size)
{
    static int calls;
    check_init("jia_alloc");
    return jia_alloc3(size, size, calls++ % jiahosts);
}

void jia_lock(int lockid) { tsr_lock(compat_lock_id("jia_lock", lockid)); }

void jia_unlock(int lockid) { tsr_unlock(compat_lock_id("jia_unlock", lockid)); }

void jia_barrier(void) { tsr_barrier(); }

float jia_clock(void) { return (float)tsr_wtime(); }
