/* JIAJIA's interface: the page homes of jia_alloc3, jia_alloc2 and
 * jia_alloc are JIAJIA's (mem.c), read from the page table; shared data
 * written under jia_lock and before jia_barrier is seen everywhere.
 * With an argument, a misuse that must stop the job: "lock" (an id out of
 * range), "starthost" (jia_alloc3 with a host that does not exist). */
#include <stdio.h>
#include <string.h>

#include "jia.h"
#include "memory/region.h"

static int bad;

static int home_of(const void *base, long byte) { return region.meta[page_of((const char *)base + byte)].home; }

static void expect_home(const char *what, const void *base, long byte, int want)
{
    int got = home_of(base, byte);
    if (got != want && bad++ < 5)
        printf("host %d: %s: byte %ld homed at %d, want %d\n", jiapid, what, byte, got, want);
}

static void placement(void)
{
    int h = jiahosts;
    /* 3-page blocks (a block of 2.5 pages rounds up) from host 1 % h. */
    char *c3 = (char *)jia_alloc3(40 * 4096, 10240, 1 % h);
    for (long p = 0; p < 40; p++)
        expect_home("jia_alloc3", c3, p * 4096, (int)((p / 3 + 1) % h));
    char *c2 = (char *)jia_alloc2(12 * 4096, 4096);
    for (long p = 0; p < 12; p++)
        expect_home("jia_alloc2", c2, p * 4096, (int)(p % h));
    /* jia_alloc: each call's allocation wholly at the next host. */
    for (int call = 0; call < 5; call++) {
        char *one = (char *)jia_alloc(3 * 4096);
        for (long p = 0; p < 3; p++)
            expect_home("jia_alloc", one, p * 4096, call % h);
    }
}

static void sharing(void)
{
    long *sum = (long *)jia_alloc(sizeof(long));
    long *cells = (long *)jia_alloc3(jiahosts * 1024 * sizeof(long), 1024 * sizeof(long), 0);
    for (int round = 0; round < 10; round++) {
        jia_lock(7);
        *sum += jiapid + 1;
        jia_unlock(7);
        cells[jiapid * 1024 + round] = round + jiapid;
    }
    jia_barrier();
    long want = 10L * jiahosts * (jiahosts + 1) / 2;
    if (*sum != want && bad++ < 5)
        printf("host %d: sum %ld, want %ld\n", jiapid, *sum, want);
    for (int host = 0; host < jiahosts; host++)
        for (int round = 0; round < 10; round++)
            if (cells[host * 1024 + round] != round + host && bad++ < 5)
                printf("host %d: cell %d.%d wrong\n", jiapid, host, round);
}

int main(int argc, char **argv)
{
    jia_init(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "lock"))
        jia_lock(16384);
    if (argc > 1 && !strcmp(argv[1], "starthost"))
        jia_alloc3(4096, 4096, jiahosts);
    float t0 = jia_clock();
    placement();
    sharing();
    if (jia_clock() < t0 && bad++ < 5)
        printf("host %d: jia_clock went back\n", jiapid);
    printf("host %d: %d wrong %s\n", jiapid, bad, bad ? "FAIL" : "PASS");
    jia_exit();
    return bad != 0;
}
