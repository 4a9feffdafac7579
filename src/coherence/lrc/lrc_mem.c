/*
 * lrc_mem.c - the lazy protocol's memory: intervals, write notices and
 * diffs. A write fault on a page whose last diff was not made yet makes it
 * in the fault handler, so allocation must be async-signal-safe: blocks of
 * power-of-two size classes come from free lists under a spin lock, carved
 * from mmap'd chunks (a system call, safe in a handler); bigger blocks are
 * mmap'd alone. The bytes in use, and their peak, are what garbage
 * collection bounds (TSR_LRC_GC_BYTES).
 */
#include "coherence/lrc/lrc.h"

#include <stdatomic.h>
#include <sys/mman.h>

#include "stats/stats.h"
#include "util/cpu.h"
#include "util/log.h"

STATS_COUNTER(lrc_peak_bytes, "LRC: most bytes of intervals, notices and diffs held at once");

#define MIN_SHIFT 5  /* 32 bytes */
#define MAX_SHIFT 14 /* 16 KiB: a diff of a page fits */
#define NCLASS (MAX_SHIFT - MIN_SHIFT + 1)
#define CHUNK (1u << 20)

/* Every block starts with its size (class blocks: the class's). */
typedef struct block {
    size_t size;
    struct block *next; /* on a free list */
} block;
#define HDR 16

static block *free_list[NCLASS];
static atomic_flag busy = ATOMIC_FLAG_INIT;
static _Atomic size_t in_use;

static void *map(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        log_die_status(1, "out of memory (LRC intervals and diffs: %zu bytes)", n);
    return p;
}

static void count(long delta)
{
    size_t now = atomic_fetch_add(&in_use, (size_t)delta) + (size_t)delta;
    uint64_t peak = atomic_load(&lrc_peak_bytes.value);
    while (now > peak && !atomic_compare_exchange_weak(&lrc_peak_bytes.value, &peak, now))
        ;
}

/* Fills a class's free list from a new chunk. Called with the lock held. */
static void refill(int c)
{
    size_t size = (size_t)1 << (c + MIN_SHIFT);
    char *chunk = map(CHUNK);
    for (size_t at = 0; at + size <= CHUNK; at += size) {
        block *b = (block *)(chunk + at);
        b->size = size;
        b->next = free_list[c];
        free_list[c] = b;
    }
}

void *lrc_alloc(size_t n)
{
    size_t need = n + HDR;
    if (need > ((size_t)1 << MAX_SHIFT)) {
        size_t size = (need + 4095) & ~(size_t)4095;
        block *b = map(size);
        b->size = size;
        count((long)size);
        return (char *)b + HDR;
    }
    int c = 0;
    while (((size_t)1 << (c + MIN_SHIFT)) < need)
        c++;
    while (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire))
        cpu_relax();
    if (!free_list[c])
        refill(c);
    block *b = free_list[c];
    free_list[c] = b->next;
    atomic_flag_clear_explicit(&busy, memory_order_release);
    count((long)b->size);
    return (char *)b + HDR;
}

size_t lrc_size(const void *p) { return ((const block *)((const char *)p - HDR))->size; }

void lrc_free(void *p)
{
    if (!p)
        return;
    block *b = (block *)((char *)p - HDR);
    size_t size = b->size;
    count(-(long)size);
    if (size > ((size_t)1 << MAX_SHIFT)) {
        munmap(b, size);
        return;
    }
    int c = 0;
    while (((size_t)1 << (c + MIN_SHIFT)) < size)
        c++;
    while (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire))
        cpu_relax();
    b->next = free_list[c];
    free_list[c] = b;
    atomic_flag_clear_explicit(&busy, memory_order_release);
}

size_t lrc_bytes(void) { return atomic_load(&in_use); }

void lrc_mem_init(void) { stats_register(&lrc_peak_bytes); }
