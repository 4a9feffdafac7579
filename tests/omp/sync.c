/* Mutual exclusion and combining across the team: reductions with every C
 * operator and min/max, named and unnamed critical sections, atomic
 * update, read, write and capture, omp_lock_t and omp_nest_lock_t, and
 * C11/__sync atomics, each made by every thread many times. */
#include <limits.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>

#define N 500

static long crit_total, named_a, named_b;
static atomic_long c11;
static long builtin;

int main(void)
{
    long sum = 0, diff = 0;
    double prod = 1.0;
    int band = ~0, bor = 0, bxor = 0, land = 1, lor = 0, mn = INT_MAX, mx = INT_MIN;
    double fmn = 1e300;
#pragma omp parallel for reduction(+ : sum) reduction(- : diff) reduction(* : prod) \
    reduction(& : band) reduction(| : bor) reduction(^ : bxor) reduction(&& : land) \
    reduction(|| : lor) reduction(min : mn, fmn) reduction(max : mx)
    for (int i = 1; i <= N; i++) {
        sum += i;
        diff -= i;
        if (i % 50 == 0)
            prod *= 1.5;
        band &= ~(1 << (i % 20));
        bor |= 1 << (i % 24);
        bxor ^= i;
        land = land && i > 0;
        lor = lor || i == N;
        int v = (i * 7919) % 1009 - 500;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
        fmn = v * 0.25 < fmn ? v * 0.25 : fmn;
    }
    printf("+ %ld, - %ld, * %.4f, & %#x, | %#x, ^ %d, && %d, || %d, min %d %.2f, max %d\n",
           sum, diff, prod, band, bor, bxor, land, lor, mn, fmn, mx);

    /* A for's reduction inside a region: libomp's blocking __kmpc_reduce. */
    long inner = 0, after = 0;
#pragma omp parallel
    {
#pragma omp for reduction(+ : inner)
        for (int i = 0; i < N; i++)
            inner += 3;
        /* the reduction's barrier: every thread sees the total */
#pragma omp atomic
        after += inner;
    }
    printf("inner reduction %ld, seen by the team %ld\n", inner, after / omp_get_max_threads());

    long upd = 0, cap_max = 0, last_write = -1, read_back = 0;
    double fupd = 0;
    omp_lock_t lock;
    omp_init_lock(&lock);
    omp_nest_lock_t nest;
    omp_init_nest_lock(&nest);
    long locked = 0, nested = 0;
#pragma omp parallel
    {
        long mine_max = 0;
#pragma omp for
        for (int i = 0; i < N; i++) {
#pragma omp critical
            crit_total += i;
#pragma omp critical(alpha)
            named_a += 2;
#pragma omp critical(beta)
            {
                named_b += 3;
#pragma omp critical(alpha)
                named_a -= 1;
            }
#pragma omp atomic
            upd += 5;
#pragma omp atomic update
            fupd += 0.5;
            long got;
#pragma omp atomic capture
            got = ++cap_max;
            if (got > mine_max)
                mine_max = got;
            omp_set_lock(&lock);
            locked++;
            omp_unset_lock(&lock);
            omp_set_nest_lock(&nest);
            omp_set_nest_lock(&nest);
            nested += 2;
            omp_unset_nest_lock(&nest);
            nested--;
            omp_unset_nest_lock(&nest);
            atomic_fetch_add(&c11, 2);
            __sync_fetch_and_add(&builtin, 1);
            __atomic_fetch_add(&builtin, 2, __ATOMIC_SEQ_CST);
        }
#pragma omp atomic write
        last_write = 42;
#pragma omp barrier
        long seen_write;
#pragma omp atomic read
        seen_write = last_write;
        /* one writer: every thread storing it at once would race */
#pragma omp master
        read_back = seen_write;
        /* capture hands out distinct values: the largest seen is N */
#pragma omp critical
        if (mine_max > cap_max + 1)
            cap_max = -1;
    }
    omp_destroy_lock(&lock);
    omp_destroy_nest_lock(&nest);
    printf("critical %ld, named %ld %ld, atomic %ld %.1f, capture %ld, write/read %ld, lock %ld, "
           "nest lock %ld, c11 %ld, builtins %ld\n", crit_total, named_a, named_b, upd, fupd,
           cap_max, read_back, locked, nested, (long)atomic_load(&c11), builtin);
    return 0;
}
