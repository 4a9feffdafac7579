/*
 * tsr_micro's access detection rows: what a fault and exact write tracking
 * cost by themselves, without protocol work, range checks that find
 * their pages consistent already, and a timeline hook (docs/TRACE.md).
 */
#include "coherence/coherence.h"
#include "coherence/hlrc/hlrc.h"
#include "detect/detect.h"
#include "memory/region.h"
#include "micro.h"
#include "stats/trace.h"
#include "tessera.h"
#include "util/cpu.h"

static int grant(void *addr, int is_write)
{
    detect_set_access(page_of(addr), 1, is_write ? ACCESS_WRITE : ACCESS_READ);
    return 0;
}

/* Node 0 times a read of pages with no access, then a write of the same
 * pages now readable, while the fault callback only grants the access. The
 * pages are homed at node 1, so that no write tracking applies to them. */
void bench_faults(void)
{
    enum { PAGES = 256, ROUNDS = 8 };
    volatile char *a = alloc_homed_at(PAGES * 4096, 1);
    uint32_t first = page_of((const void *)a);
    double rd = 0, wr = 0;
    if (tsr_node() == 0) {
        detect_on_fault(grant);
        for (int r = 0; r < ROUNDS; r++) {
            detect_set_access(first, PAGES, ACCESS_NONE);
            double t0 = now_s();
            for (int p = 0; p < PAGES; p++)
                (void)a[p * 4096];
            double t1 = now_s();
            for (int p = 0; p < PAGES; p++)
                a[p * 4096] = 0; /* the zero page stays what the protocol holds */
            wr += now_s() - t1;
            rd += t1 - t0;
        }
        detect_on_fault(coh_fault);
        detect_set_access(first, PAGES, ACCESS_READ); /* the protocol's READ */
    }
    report("detect_read_fault", rd, PAGES * ROUNDS);
    report("detect_write_fault", wr, PAGES * ROUNDS);
    tsr_free((void *)a);
}

static void ignore_page(uint32_t page) {}

/* Node 0's own home pages, where writes are tracked exactly (uffd): the
 * first write to each after a scan, and a scan that finds nothing written.
 * The scans here take what the next release would have announced; nobody
 * else reads these pages. */
void bench_tracking(void)
{
    enum { PAGES = 4096, SCANS = 32 };
    volatile char *a = alloc_homed_at(PAGES * 4096, 0);
    uint32_t first = page_of((const void *)a);
    if (tsr_node() == 0 && region.meta[first].state == HOME_EXACT) {
        for (int p = 0; p < PAGES; p++)
            a[p * 4096] = 1;
        detect_written(first, PAGES, ignore_page);
        double t0 = now_s();
        for (int p = 0; p < PAGES; p++)
            a[p * 4096] = 2;
        report("exact_first_write", now_s() - t0, PAGES);
        detect_written(first, PAGES, ignore_page);
        t0 = now_s();
        for (int s = 0; s < SCANS; s++)
            detect_written(first, PAGES, ignore_page);
        report("release_scan_1000", now_s() - t0, SCANS * PAGES / 1000);
    }
    tsr_free((void *)a);
}

/* A range check that finds its pages consistent already, as most do in an
 * iterative program: one page, and 64. */
void bench_noop_checks(void)
{
    enum { PAGES = 64, CHECKS = 200000 };
    char *a = tsr_alloc(PAGES * 4096);
    static const int sizes[] = {1, PAGES};
    for (int k = 0; k < 2; k++) {
        double t0 = now_s();
        for (int i = 0; i < CHECKS; i++)
            tsr_range_read(a, (size_t)sizes[k] * 4096);
        report(k ? "check_noop_64" : "check_noop_1", now_s() - t0, CHECKS);
    }
    tsr_free(a);
}

/* A span hook as the fault path has it, with tracing off (the job's
 * default) or on (TSR_TRACE): the compiler barrier makes each turn read
 * trace_on again, as a hook between two calls does. */
void bench_trace_hook(void)
{
    enum { HOOKS = 1000000 };
    double t0 = now_s();
    for (uint32_t i = 0; i < HOOKS; i++) {
        __asm__ volatile("" ::: "memory");
        uint64_t t = trace_begin();
        TRACE_SPAN(t, EV_RANGE, 0, i, 0);
    }
    report(trace_on ? "trace_hook_on" : "trace_hook", now_s() - t0, HOOKS);
}
