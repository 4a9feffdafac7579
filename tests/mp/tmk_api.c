/* TreadMarks' interface: Tmk_distribute copies a global of the last process
 * (a pointer to Tmk_malloc memory, and an array) to every other process,
 * where it is seen after the next barrier although address-space layout
 * randomization loads the program at a different address in each process;
 * Tmk_malloc memory written under Tmk_lock_acquire is seen by all; Tmk_free
 * makes room that Tmk_malloc reuses. Tmk_malloc's memory is kept by
 * TreadMarks' protocol, as in TreadMarks: no node fetches a page, and every
 * process but the allocator asks for diffs (a home-based page would be
 * fetched from the allocator instead). With an argument, a misuse that must
 * stop the job: "stack" (Tmk_distribute of a local variable), "big" (of
 * more than 64 MiB), "lock" (an id out of range). */
#include <stdio.h>
#include <string.h>

#include "tessera.h"
#include "tmk.h"

static long *counter;    /* Tmk_malloc'd by the last process, distributed */
static int table[2000];  /* filled by the last process, distributed */
static char huge[(64 << 20) + 1]; /* too big to distribute (never touched) */

int main(int argc, char **argv)
{
    Tmk_startup(argc, argv);
    unsigned last = Tmk_nprocs - 1, bad = 0;
    if (argc > 1 && !strcmp(argv[1], "stack")) {
        int local = 1;
        Tmk_distribute((char *)&local, sizeof local);
    }
    if (argc > 1 && !strcmp(argv[1], "big"))
        Tmk_distribute(huge, sizeof huge);
    if (argc > 1 && !strcmp(argv[1], "lock"))
        Tmk_lock_acquire(TMK_NLOCKS);
    if (Tmk_proc_id == last) {
        counter = (long *)Tmk_malloc(sizeof *counter);
        *counter = 100;
        for (int i = 0; i < 2000; i++)
            table[i] = i * 3 + 1;
        Tmk_distribute((char *)&counter, sizeof counter);
        Tmk_distribute((char *)table, sizeof table);
    }
    Tmk_barrier(5);
    for (int i = 0; i < 2000; i++)
        bad += table[i] != i * 3 + 1;
    for (int i = 0; i < 10; i++) {
        Tmk_lock_acquire(2);
        (*counter)++;
        Tmk_lock_release(2);
    }
    Tmk_barrier(6);
    bad += *counter != 100 + 10 * (long)Tmk_nprocs;
    tsr_stats s;
    uint64_t diff_requests = 0;
    tsr_stats_get(&s);
    if (tsr_counter_get("diff_requests", &diff_requests))
        bad++;
    if (s.page_fetches || (Tmk_proc_id != last && !diff_requests)) {
        printf("proc %u: %llu page fetches, %llu diff requests: not TreadMarks' protocol\n",
               Tmk_proc_id, (unsigned long long)s.page_fetches,
               (unsigned long long)diff_requests);
        bad++;
    }
    if (Tmk_proc_id == last) {
        char *old = (char *)counter;
        Tmk_free(old);
        bad += Tmk_malloc(sizeof *counter) != old;
    }
    printf("proc %u: table, counter %ld: %u wrong %s\n", Tmk_proc_id, *counter, bad,
           bad ? "FAIL" : "PASS");
    Tmk_exit(bad != 0);
}
