/*
 * sor_memory.c - does the kind of memory SOR sweeps explain Tessera's gap to
 * MPI? One node's band of SOR (apps/sor) swept on one thread, the same
 * kernel, over each kind of memory in turn:
 *
 *   malloc       calloc'd, as the MPI version's band
 *   malloc-thp   anonymous, 2 MiB aligned, madvise(MADV_HUGEPAGE)
 *   memfd        a MAP_SHARED mapping of a memfd, as Tessera's shared region
 *   memfd-thp    the same with madvise(MADV_HUGEPAGE)
 *
 * Modes take turns, round after round, so that load on the host falls on
 * all alike. For each: the median seconds of a sweep pair, the minor faults
 * of the timed sweeps (none once the band is touched), and the huge pages
 * the kernel gave the band (smaps AnonHugePages + ShmemPmdMapped +
 * FilePmdMapped). Usage: sor_memory [rows cols iterations rounds]; default
 * one node's half of the bench input, 2048 x 4096 x 20, 5 rounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sor.h"

enum { MODES = 4, MAX_ROUNDS = 64 };
static const char *mode_name[MODES] = {"malloc", "malloc-thp", "memfd", "memfd-thp"};

#define HUGE_SIZE ((size_t)2 << 20)

/* `len` bytes of the mode's memory, 2 MiB aligned where huge pages may be
 * asked for, in a mapping of len + HUGE_SIZE bytes at *map. */
static void *band_memory(int mode, size_t len, void **map)
{
    if (mode == 0)
        return *map = app_calloc(len, 1);
    void *p;
    if (mode == 1) {
        p = mmap(NULL, len + HUGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                 0);
    } else {
        int fd = memfd_create("sor-memory", MFD_CLOEXEC);
        if (fd < 0 || ftruncate(fd, (off_t)(len + HUGE_SIZE))) {
            perror("memfd");
            exit(2);
        }
        p = mmap(NULL, len + HUGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
    }
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    *map = p;
    char *aligned = (char *)(((uintptr_t)p + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1));
    if (mode != 2 && madvise(aligned, len, MADV_HUGEPAGE))
        perror("madvise(MADV_HUGEPAGE)");
    return aligned;
}

/* Huge-page kB that smaps counts in the mapping holding `addr`. */
static long huge_kb(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[256];
    int inside = 0;
    long kb = 0, v;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2) /* a mapping's first line */
            inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
        else if (inside && (sscanf(line, "AnonHugePages: %ld", &v) == 1 ||
                            sscanf(line, "ShmemPmdMapped: %ld", &v) == 1 ||
                            sscanf(line, "FilePmdMapped: %ld", &v) == 1))
            kb += v;
    }
    fclose(f);
    return kb;
}

static long minor_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One round of one mode: fresh memory, initialised (the first touch), then
 * the timed sweeps. Returns seconds per red+black pair. */
static double run(int mode, const sor_params *p, long *faults, long *huge)
{
    size_t len = (size_t)(p->rows + 2) * (size_t)p->width * sizeof(double);
    void *map[2];
    double *rows[2] = {band_memory(mode, len, &map[0]), band_memory(mode, len, &map[1])};
    double **m[2];
    for (int c = 0; c < 2; c++) {
        m[c] = app_calloc((size_t)(p->rows + 2), sizeof(double *));
        for (long i = 0; i < p->rows + 2; i++)
            m[c][i] = rows[c] + i * p->width;
    }
    sor_init_rows(m[0], m[1], p, 0, p->rows + 2);
    long before = minor_faults();
    double start = app_now();
    for (long it = 0; it < p->iterations; it++) {
        sor_sweep(m[0], m[1], SOR_RED, p, 1, p->rows + 1);
        sor_sweep(m[1], m[0], SOR_BLACK, p, 1, p->rows + 1);
    }
    double seconds = (app_now() - start) / (double)p->iterations;
    *faults = minor_faults() - before;
    *huge = huge_kb(rows[0]) + huge_kb(rows[1]);
    for (int c = 0; c < 2; c++) {
        free(m[c]);
        if (mode == 0)
            free(map[c]);
        else
            munmap(map[c], len + HUGE_SIZE);
    }
    return seconds;
}

int main(int argc, char **argv)
{
    sor_params p;
    sor_parse(argc, argv, &p);
    if (argc < 2) { /* one node's band of the bench input (apps/sor/app.mk) */
        char *def[] = {argv[0], "2048", "4096", "20"};
        sor_parse(4, def, &p);
    }
    long rounds = app_arg(argc, argv, 4, "rounds", 5);
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "%s: rounds must be 1..%d\n", argv[0], MAX_ROUNDS);
        return 2;
    }
    static double secs[MODES][MAX_ROUNDS];
    long faults[MODES] = {0}, huge[MODES] = {0};
    for (long r = 0; r < rounds; r++)
        for (int mode = 0; mode < MODES; mode++)
            secs[mode][r] = run(mode, &p, &faults[mode], &huge[mode]);

    printf("# %s, rounds %ld; seconds per red+black sweep pair\n", p.size, rounds);
    printf("%-11s %10s %10s %10s %16s %14s\n", "memory", "median", "min", "max",
           "faults/sweeps", "huge pages kB");
    for (int mode = 0; mode < MODES; mode++) {
        qsort(secs[mode], (size_t)rounds, sizeof(double), cmp_double);
        printf("%-11s %10.4f %10.4f %10.4f %16ld %14ld\n", mode_name[mode],
               secs[mode][rounds / 2], secs[mode][0], secs[mode][rounds - 1], faults[mode],
               huge[mode]);
    }
    return 0;
}
