/*
 * omp_mem.c - the program's memory in shared memory, without annotations.
 *
 * tsrcc's pass (compiler/omp_pass.cpp) renames the program's calls to the
 * C allocator to the tsr_omp_* functions here, which take tsr_malloc
 * memory, and moves every local variable whose address escapes (those a
 * parallel region shares among them) to a frame stack of the node's own in
 * shared memory: a pointer to the master's local variable then means the
 * same bytes on every node.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "omp_rt.h"

/* ---- the allocator ----------------------------------------------------- */

/* Before each block: its size and what the allocator returned (aligned
 * blocks differ), then which allocator it came from with the node that took
 * it, and the block's address mixed with a key, so that free and realloc
 * need no lookup. A block without them was allocated inside the C library
 * (strdup, getline...): the last 16 bytes, which free reads first, lie in
 * such a block's own chunk header (glibc's, or a sanitizer's), mapped
 * whatever came before it. */
#define MAGIC 0x4f4d5053u /* "OMPS" */
#define ADDRESS_KEY 0x9e3779b97f4a7c15u
enum { FROM_LIBC = -1, FROM_REPLICATED = -2 };
typedef struct header {
    uint64_t size;
    void *base;
    uint32_t magic; /* the last 16 bytes: checked before the rest is read */
    int32_t node;   /* the node that took it, or FROM_LIBC (before tsr_init),
                     * FROM_REPLICATED (tsr_alloc in a replicated section) */
    uint64_t check; /* the block's address ^ ADDRESS_KEY */
} header;
_Static_assert(sizeof(header) - offsetof(header, magic) == 16, "free reads 16 bytes first");

static int started;

static void *take(size_t size, size_t align)
{
    if (align < sizeof(header))
        align = sizeof(header);
    if (size > SIZE_MAX - align - sizeof(header)) {
        errno = ENOMEM;
        return NULL;
    }
    size_t total = size + align + sizeof(header);
    /* In a replicated section every node makes the same call: a collective
     * allocation gives them the same memory, where tsr_malloc would give
     * each its own. A team spread over the nodes runs outside sections, on
     * threads that may not ask (tsr_replicated is the tsr_init thread's). */
    int from = !started ? FROM_LIBC
               : !omp_me.spread && tsr_replicated() ? FROM_REPLICATED : tsr_node();
    char *base = from == FROM_LIBC ? malloc(total)
                 : from == FROM_REPLICATED ? tsr_alloc(total) : tsr_malloc(total);
    if (!base)
        return NULL;
    uintptr_t p = ((uintptr_t)base + sizeof(header) + align - 1) & ~(uintptr_t)(align - 1);
    header *h = (header *)p - 1;
    *h = (header){size, base, MAGIC, from, p ^ ADDRESS_KEY};
    return (void *)p;
}

/* The sanitizers would report reading a C library block's chunk header;
 * only the magic word and the check are compared. */
__attribute__((no_sanitize("thread", "address"))) static header *header_of(void *p)
{
    header *h = (header *)p - 1;
    return h->magic == MAGIC && h->check == ((uintptr_t)p ^ ADDRESS_KEY) ? h : NULL;
}

OMP_API void *tsr_omp_malloc(size_t size) { return take(size, 16); }

OMP_API void *tsr_omp_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = take(n * size, 16);
    if (p)
        memset(p, 0, n * size);
    return p;
}

/* Memory another node took is left where it is (tsr_free_local frees only
 * a node's own), and so is a replicated section's (tsr_free, collective,
 * would need every node to free it at once); the job's end releases it. */
OMP_API void tsr_omp_free(void *p)
{
    if (!p)
        return;
    header *h = header_of(p);
    if (!h) {
        free(p);
        return;
    }
    h->magic = 0;
    if (h->node == FROM_LIBC)
        free(h->base);
    else if (h->node == tsr_node())
        tsr_free_local(h->base);
}

OMP_API void *tsr_omp_realloc(void *p, size_t size)
{
    if (!p)
        return tsr_omp_malloc(size);
    header *h = header_of(p);
    if (!h)
        return realloc(p, size);
    void *q = tsr_omp_malloc(size);
    if (!q)
        return NULL;
    memcpy(q, p, h->size < size ? h->size : size);
    tsr_omp_free(p);
    return q;
}

OMP_API int tsr_omp_posix_memalign(void **out, size_t align, size_t size)
{
    if (!align || (align & (align - 1)) || align % sizeof(void *))
        return EINVAL;
    void *p = take(size, align);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

OMP_API void *tsr_omp_aligned_alloc(size_t align, size_t size)
{
    void *p = NULL;
    int e = tsr_omp_posix_memalign(&p, align, size);
    if (e)
        errno = e;
    return p;
}

/* ---- the frame stack --------------------------------------------------- */

/* The pass brackets each function that has such variables with
 * frame_enter and frame_leave, and allocates them in between; a stack
 * grows up from `lo`. Before main (constructors) the job has not started,
 * every region runs on this node alone, and private memory serves. Then
 * each thread of a node has a stack of its own (tsr_malloc); with replicated
 * sequential code, that code's frames are on a stack at the same address
 * everywhere (tsr_alloc), since every node makes them and passes their
 * addresses to the regions. */
typedef struct stack {
    char *lo, *sp, *hi;
} stack;

static _Alignas(64) char early_bytes[64 << 10];
static stack early = {early_bytes, early_bytes, early_bytes + sizeof early_bytes};
static __thread stack own; /* each thread's (a pool thread's: omp_frames_start) */
static stack replicated;
static __thread stack *cur = &early;
static size_t stack_bytes;

OMP_API void *tsr_omp_frame_enter(void) { return cur->sp; }

OMP_API void tsr_omp_frame_leave(void *mark) { cur->sp = mark; }

OMP_API void *tsr_omp_frame_alloc(size_t size, size_t align)
{
    char *p = (char *)(((uintptr_t)cur->sp + align - 1) & ~(uintptr_t)(align - 1));
    if (size > (size_t)(cur->hi - p)) {
        if (cur == &early)
            omp_die("the locals of code run before main (constructors) need more than %zu "
                    "KiB", sizeof early_bytes >> 10);
        omp_die("node %d's shared stack (TSR_OMP_STACK=%zu MiB) is full: raise TSR_OMP_STACK",
                tsr_node(), (size_t)(cur->hi - cur->lo) >> 20);
    }
    cur->sp = p + size;
    return p;
}

void *omp_frames_own(void)
{
    stack *outer = cur;
    cur = &own;
    return outer;
}

void omp_frames_back(void *outer) { cur = outer; }

static stack stack_of(char *lo, size_t bytes)
{
    if (!lo)
        omp_die("node %d has no room for a %zu MiB shared stack (TSR_OMP_STACK) in its "
                "tsr_malloc arena: lower TSR_OMP_STACK or the threads per node, or raise "
                "TSR_MALLOC_MEMORY", tsr_node(), bytes >> 20);
    return (stack){lo, lo, lo + bytes};
}

void omp_frames_start(void)
{
    own = stack_of(tsr_malloc(stack_bytes), stack_bytes);
    cur = &own;
}

void omp_mem_init(void)
{
    const char *s = getenv("TSR_OMP_STACK");
    char *end = NULL;
    unsigned long mib = s && *s ? strtoul(s, &end, 10) : 64;
    if (end && (*end || mib < 1 || mib > 65536))
        omp_die("TSR_OMP_STACK=%s: a size in MiB, 1 to 65536", s);
    stack_bytes = mib << 20;
    omp_frames_start();
    if (omp_replicate) {
        replicated = stack_of(tsr_alloc(mib << 20), mib << 20);
        cur = &replicated;
    }
    started = 1;
}
