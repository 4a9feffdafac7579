/*
 * tmk.c - TreadMarks 1.0's interface (include/tmk.h) over Tessera's.
 *
 * Tmk_distribute sends the bytes to every other node, where the comm thread
 * writes them into the program's own copy of the variable and acknowledges;
 * the caller waits for every acknowledgement. Writing into the program's
 * private memory from another thread at an arbitrary moment is what
 * TreadMarks' contract allows: the value is promised only after the next
 * barrier, and a program that uses the variable before then on another
 * process races with the distribution under TreadMarks as well. Because the
 * caller returns only once every copy is written, that barrier (which the
 * caller reaches after returning) orders the write before any use.
 */
#include "tmk.h"

#include <stdlib.h>
#include <string.h>

#include "api/compat.h"
#include "api/image.h"
#include "api/malloc.h"
#include "memory/region.h"
#include "tessera.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/log.h"

unsigned Tmk_proc_id;
unsigned Tmk_nprocs;

static void on_distribute(int src, const tsr_msg_hdr *h, void *payload)
{
    /* Every node has node 0's address layout (layout.c), so an honest
     * sender names a global this node has too. */
    void *dst = image_address((uint32_t)h->arg[0], h->arg[2], h->len);
    if (!dst) {
        am_reject(src, h, "no writable global at offset 0x%llx of loaded image %u",
                  (unsigned long long)h->arg[2], (unsigned)h->arg[0]);
        return;
    }
    memcpy(dst, payload, h->len);
    am_send(src, MSG_DISTRIBUTE_ACK, 0, h->arg[1], 0, NULL, 0);
}

static void on_distribute_ack(int src, const tsr_msg_hdr *h, void *payload)
{
    waiter *w = req_ctx(h->arg[1]);
    req_close(h->arg[1]);
    waiter_done(w);
}

void Tmk_startup(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    am_register(MSG_DISTRIBUTE, on_distribute);
    am_register(MSG_DISTRIBUTE_ACK, on_distribute_ack);
    Tmk_proc_id = (unsigned)tsr_node();
    Tmk_nprocs = (unsigned)tsr_nodes();
    /* Tmk_malloc's memory is TreadMarks' own protocol's, as in TreadMarks. */
    malloc_use_protocol(TSR_PROTO_LRC);
    /* No node may distribute before every node can receive it. */
    tsr_barrier();
}

void Tmk_exit(int status)
{
    tsr_finalize();
    exit(status);
}

char *Tmk_malloc(unsigned size) { return tsr_malloc(size); }

void Tmk_free(char *ptr) { tsr_free_local(ptr); }

void Tmk_distribute(char *ptr, int size)
{
    uint32_t image;
    uint64_t offset;
    if (!Tmk_nprocs)
        log_die("Tmk_distribute called before Tmk_startup");
    if (size < 0)
        log_die("Tmk_distribute(%p, %d): negative size", (void *)ptr, size);
    /* Globals shared (TSR_SHARE_GLOBALS=1) are seen by all at the next
     * barrier, which is all Tmk_distribute promises. */
    if (region_contains(ptr))
        return;
    if ((unsigned)size > MSG_BYTES_MAX)
        log_die("Tmk_distribute(%p, %d): more than %u MiB, the most one call copies",
                (void *)ptr, size, MSG_BYTES_MAX >> 20);
    if (image_locate(ptr, (size_t)size, &image, &offset))
        log_die("Tmk_distribute(%p, %d): not a writable global variable of the program (only "
                "globals have a known place in every process)", (void *)ptr, size);
    waiter w;
    waiter_init(&w, (uint32_t)cfg.nodes - 1);
    for (int node = 0; node < cfg.nodes; node++)
        if (node != cfg.node)
            am_send(node, MSG_DISTRIBUTE, image, req_open(node, MSG_DISTRIBUTE_ACK, &w), offset,
                    ptr, (size_t)size);
    waiter_wait(&w);
}

void Tmk_lock_acquire(unsigned id) { tsr_lock(compat_lock_id("Tmk_lock_acquire", id)); }

void Tmk_lock_release(unsigned id) { tsr_unlock(compat_lock_id("Tmk_lock_release", id)); }

void Tmk_barrier(unsigned id) { tsr_barrier(); }

void Tmk_fork(void (*fn)(void *arg), void *arg) { tsr_fork(fn, arg); }

void Tmk_join(void) { tsr_join(); }

void Tmk_serve(void) { tsr_serve(); }
