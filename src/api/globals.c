/*
 * globals.c - the program's ordinary globals in shared memory (globals.h).
 *
 * What is shared: the whole pages of the executable's writable PT_LOAD
 * segment that lie past its RELRO part (which is read-only after start-up):
 * .data and .bss, including the first page's bytes before .data and the
 * last page's bytes after .bss, which nothing else uses. The
 * runtime's own pages (tsr_private_*) are cut out, so the shared pages form
 * up to three windows of one allocation. Libraries' data (libc's included)
 * lies in their own segments and is not touched.
 */
#include "api/globals.h"

#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "coherence/coherence.h"
#include "detect/detect.h"
#include "memory/alloc.h"
#include "memory/region.h"
#include "util/config.h"
#include "util/log.h"

/* The runtime's data when it is linked into the program (src/private.ld);
 * weak, so 0 when the runtime is the shared library. */
extern char __start_tsr_private_data[] __attribute__((weak));
extern char __stop_tsr_private_data[] __attribute__((weak));
extern char __start_tsr_private_bss[] __attribute__((weak));
extern char __stop_tsr_private_bss[] __attribute__((weak));

/* Defined by a program that writes TSR_SHARE_GLOBALS; (tessera.h). */
extern const int tsr_share_globals_opt_in __attribute__((weak));

#define PAGE_DOWN(a) ((uintptr_t)(a) & ~(uintptr_t)(PAGE_SIZE - 1))
#define PAGE_UP(a) PAGE_DOWN((uintptr_t)(a) + PAGE_SIZE - 1)

typedef struct span {
    uintptr_t lo, hi;
} span;

typedef struct program {
    span data;      /* writable pages past RELRO */
    uintptr_t anon; /* where its zero-filled pages begin (.bss past the file's bytes) */
    span plt;       /* .got.plt, or empty */
    int relro;      /* whether it has a RELRO part (holding .got) */
} program;

static span windows[REGION_WINDOWS];
static uint32_t first[REGION_WINDOWS]; /* each window's first page in the region */
static uint32_t nwindows;
/* Where the program's zero-filled pages begin: one that no thread has
 * touched yet holds zeros without being in memory. */
static uintptr_t anon_lo;

/* .got.plt: the loader's table of library functions, which every library
 * call reads (the fault handler's too). */
static span plt_got(const struct dl_phdr_info *info, const ElfW(Dyn) *d)
{
    uintptr_t got = 0;
    size_t slots = 0;
    for (const ElfW(Dyn) *e = d; e->d_tag != DT_NULL; e++) {
        if (e->d_tag == DT_PLTGOT)
            got = e->d_un.d_ptr;
        else if (e->d_tag == DT_PLTRELSZ)
            slots = e->d_un.d_val / sizeof(ElfW(Rela));
    }
    if (!got)
        return (span){0, 0};
    /* The loader may have relocated the entry in place. */
    if (got < info->dlpi_addr)
        got += info->dlpi_addr;
    /* Three reserved slots, then one per PLT relocation. */
    return (span){got, got + (3 + slots) * sizeof(uintptr_t)};
}

/* The first image dl_iterate_phdr reports is the program. */
static int find_program(struct dl_phdr_info *info, size_t size, void *data)
{
    program *p = data;
    uintptr_t relro_end = 0;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && !p->data.hi) {
            p->data = (span){PAGE_DOWN(lo), PAGE_UP(lo + ph->p_memsz)};
            p->anon = PAGE_UP(lo + ph->p_filesz);
        }
        else if (ph->p_type == PT_GNU_RELRO)
            relro_end = PAGE_DOWN(lo + ph->p_memsz); /* what the loader protects */
        else if (ph->p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)lo;
    }
    p->relro = relro_end != 0;
    if (relro_end > p->data.lo && relro_end <= p->data.hi)
        p->data.lo = relro_end;
    if (dyn)
        p->plt = plt_got(info, dyn);
    return 1;
}

/* Cuts [lo, hi) out of the windows: a window it overlaps keeps what lies
 * on either side. The two cuts of one segment leave at most three. */
static void cut(uintptr_t lo, uintptr_t hi)
{
    span kept[2 * REGION_WINDOWS];
    uint32_t n = 0;
    lo = PAGE_DOWN(lo);
    hi = PAGE_UP(hi);
    for (uint32_t i = 0; i < nwindows; i++) {
        span w = windows[i];
        if (lo >= hi || hi <= w.lo || lo >= w.hi) {
            kept[n++] = w;
            continue;
        }
        if (lo > w.lo)
            kept[n++] = (span){w.lo, lo};
        if (hi < w.hi)
            kept[n++] = (span){hi, w.hi};
    }
    if (n > REGION_WINDOWS)
        log_die("TSR_SHARE_GLOBALS=1: the program's writable data is split in %u pieces", n);
    memcpy(windows, kept, n * sizeof *kept);
    nwindows = n;
}

static int in_windows(uintptr_t lo, uintptr_t hi)
{
    for (uint32_t i = 0; i < nwindows; i++)
        if (lo < windows[i].hi && hi > windows[i].lo)
            return 1;
    return 0;
}

static int holds(const void *addr) { return in_windows((uintptr_t)addr, (uintptr_t)addr + 1); }

/* Copies whole pages of the program's globals. Under AddressSanitizer
 * those pages hold redzones between the variables, which a whole-page copy
 * must read: the copy is left uninstrumented, and goes word by word
 * through volatile so that the compiler does not turn it into a (checked)
 * call of memcpy. */
__attribute__((no_sanitize_address)) static void copy_pages(void *dst, const void *src,
                                                            size_t len)
{
    volatile uint64_t *d = dst;
    const volatile uint64_t *s = src;
    for (size_t i = 0; i < len / sizeof *d; i++)
        d[i] = s[i];
}

/* The pages of [lo, lo + n pages) that are in memory (mincore), or NULL
 * if that cannot be told; free()d by the caller. */
static unsigned char *resident(uintptr_t lo, uint32_t n)
{
    unsigned char *in = malloc(n);
    if (in && mincore((void *)lo, (size_t)n << PAGE_SHIFT, in)) {
        free(in);
        in = NULL;
    }
    return in;
}

/* Copies the window's pages into the region, but for the zero-filled ones
 * never touched, which hold zeros as the region's new pages do: RAYTRACE's
 * 256 MiB array of per-process stacks, of which a run uses a few pages,
 * was copied whole, and the copy allocated all of it. */
static void copy_in(uint32_t page, uintptr_t lo, uint32_t n)
{
    unsigned char *in = resident(lo, n);
    for (uint32_t k = 0; k < n; k++) {
        uintptr_t at = lo + ((uintptr_t)k << PAGE_SHIFT);
        if (!in || at < anon_lo || (in[k] & 1))
            copy_pages(page_rt(page + k), (void *)at, PAGE_SIZE);
    }
    free(in);
}

/* A write that changes nothing, to the first byte of a page (which may be
 * a redzone under AddressSanitizer). */
__attribute__((no_sanitize_address)) static void touch_page(char *page)
{
    volatile char *c = page;
    *c = *c;
}

/* Finds the windows; exits if the program cannot have its globals shared. */
static uint32_t find_windows(void)
{
    program p = {.relro = 0};
    dl_iterate_phdr(find_program, &p);
    windows[0] = p.data;
    nwindows = p.data.hi > p.data.lo;
    anon_lo = p.anon;
    cut((uintptr_t)__start_tsr_private_data, (uintptr_t)__stop_tsr_private_data);
    cut((uintptr_t)__start_tsr_private_bss, (uintptr_t)__stop_tsr_private_bss);
    /* A page the fault handler reads must never be invalid: the handler
     * would fault again inside itself. */
    if (nwindows && (!p.relro || in_windows(p.plt.lo, p.plt.hi)))
        log_die("TSR_SHARE_GLOBALS=1: the program's %s lies beside its globals, and every "
                "library call reads it; link it with -Wl,-z,relro,-z,now (in pkg-config's flags "
                "for tessera), which moves it to the read-only part", p.relro ? ".got.plt" : ".got");
    if (holds(&region) || holds(&cfg))
        log_die("TSR_SHARE_GLOBALS=1: the runtime's own state lies among the program's globals; "
                "link with libtessera.a or libtessera.so, whose data is kept apart");
    uint32_t pages = 0;
    for (uint32_t i = 0; i < nwindows; i++)
        pages += (uint32_t)((windows[i].hi - windows[i].lo) >> PAGE_SHIFT);
    return pages;
}

void globals_share(void)
{
    if (!cfg.share_globals && !(&tsr_share_globals_opt_in && tsr_share_globals_opt_in))
        return;
    if (cfg.aslr_keep)
        log_die("TSR_SHARE_GLOBALS: the program shares its globals, which needs one address "
                "layout on every node: not with TSR_ASLR=keep");
    uint32_t pages = find_windows();
    if (!pages)
        return;
    uint32_t first_page = alloc_pages(pages);
    if (first_page == UINT32_MAX)
        log_die("TSR_SHARE_GLOBALS=1: no room for the program's %u page(s) of globals in the "
                "shared region (TSR_MEMORY=%zu MiB)", pages, region.size >> 20);
    /* Every node's own values become its copy of the pages. They are in the
     * shared memory before the mapping replaces the originals, so nothing
     * (a library call through .got.plt, libc reading its copy-relocated
     * stdout) ever sees the pages empty. */
    for (uint32_t i = 0, at = 0; i < nwindows; i++) {
        uint32_t n = (uint32_t)((windows[i].hi - windows[i].lo) >> PAGE_SHIFT);
        copy_in(first_page + at, windows[i].lo, n);
        first[i] = first_page + at;
        region_add_window((char *)windows[i].lo, first_page + at, n);
        detect_add_window(first_page + at, n);
        at += n;
    }
    tsr_attr home0 = TSR_ATTR_DEFAULT;
    home0.home = TSR_HOME_NODE;
    home0.home_node = 0;
    home0.proto = TSR_PROTO_HLRC; /* whatever TSR_PROTO says: node 0 writes them all below */
    coh_map(first_page, pages, &home0);
    /* Node 0 is the home: a write to each page through the application
     * view makes its values a new version of every page, whose notices
     * reach the others at tsr_init's barrier, so their first access fetches
     * node 0's globals whatever they did before tsr_init. Alone, it has
     * nobody to tell. */
    if (cfg.node == 0 && cfg.nodes > 1)
        for (uint32_t p = first_page; p < first_page + pages; p++)
            touch_page(page_app(p));
    log_debug("TSR_SHARE_GLOBALS: %u page(s) of globals shared in %u window(s)", pages, nwindows);
}

/* Copies window i's pages out of the region into `copy` (zero-filled), but
 * for the pages that are valid here and that the region never stored,
 * which hold zeros; a stale page is read, which fetches it. */
static void copy_out(char *copy, uint32_t i)
{
    uint32_t n = (uint32_t)((windows[i].hi - windows[i].lo) >> PAGE_SHIFT);
    unsigned char *in = resident(windows[i].lo, n);
    for (uint32_t k = 0; k < n; k++)
        if (!in || (in[k] & 1) || detect_access_of(first[i] + k) == ACCESS_NONE)
            copy_pages(copy + ((size_t)k << PAGE_SHIFT),
                       (void *)(windows[i].lo + ((uintptr_t)k << PAGE_SHIFT)), PAGE_SIZE);
    free(in);
}

void globals_unshare(void)
{
    for (uint32_t i = 0; i < nwindows; i++) {
        size_t len = windows[i].hi - windows[i].lo;
        char *copy = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (copy == MAP_FAILED)
            log_die("tsr_finalize: cannot keep the shared globals: %m");
        copy_out(copy, i);
        /* Moved, not copied again: the private pages take the copy's place. */
        if (mremap(copy, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)windows[i].lo) ==
            MAP_FAILED)
            log_die("tsr_finalize: cannot keep the shared globals: %m");
    }
    region_drop_windows();
    nwindows = 0;
}
