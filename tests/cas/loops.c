/* FileCheck tests of the CAS-DSM pass (tests/sh/cas_pass.sh compiles this
 * at each level with -O2 -fno-vectorize -fno-unroll-loops and checks the
 * IR against the prefix of that level). Where checks land, and which the
 * discarding levels drop. */
void tsr_barrier(void);

/* One read and one write check before the loop, none inside. */
void copy(double *a, const double *b, long n)
{
    for (long i = 0; i < n; i++)
        a[i] = b[i] * 2;
}
// BASIC-LABEL: define {{.*}} @copy(
// BASIC: phi
// BASIC: call void @tsr_range_read(ptr {{.*}}, i64 8)
// BASIC: call void @tsr_range_write(ptr {{.*}}, i64 8)
// HOIST-LABEL: define {{.*}} @copy(
// HOIST-DAG: call void @tsr_range_read(ptr %{{[0-9a-z.]+}}, i64
// HOIST-DAG: call void @tsr_range_write(ptr %{{[0-9a-z.]+}}, i64
// HOIST: phi
// HOIST-NOT: call void @tsr_range
// HOIST: {{^}}}

/* Reads of a[i-1] and a[i+1], a write of b[i]: three checks when hoisted;
 * merged, the reads of a become one. */
void smooth(double *b, const double *a, long n)
{
    for (long i = 1; i < n - 1; i++)
        b[i] = (a[i - 1] + a[i + 1]) * 0.5;
}
// AGH-LABEL: define {{.*}} @smooth(
// AGH-COUNT-2: call void @tsr_range_read(
// AGH: call void @tsr_range_write(
// AGH: phi
// AGH-NOT: call void @tsr_range
// AGH: {{^}}}
// DISC-LABEL: define {{.*}} @smooth(
// DISC: call void @tsr_range_read(
// DISC-NOT: call void @tsr_range_read(
// DISC: call void @tsr_range_write(
// DISC-NOT: call void @tsr_range
// DISC: {{^}}}

/* The same array read and written at a[i-1], a[i], a[i+1]: one write check
 * once merged (a write check makes pages readable too). */
void relax(double *a, long n)
{
    for (long i = 1; i < n - 1; i++)
        a[i] = (a[i - 1] + 2 * a[i] + a[i + 1]) * 0.25;
}
// DISC-LABEL: define {{.*}} @relax(
// DISC-NOT: call void @tsr_range_read(
// DISC: call void @tsr_range_write(
// DISC-NOT: call void @tsr_range
// DISC: {{^}}}

/* A column of a row-major matrix, rows of 8 KiB: the strided form, one
 * 8-byte block per row, 8192 bytes apart; the read and the write check of
 * the same blocks merged into the write. */
void column(double (*m)[1024], long n, long c)
{
    for (long i = 0; i < n; i++)
        m[i][c] += 1;
}
// HOIST-LABEL: define {{.*}} @column(
// AGH: call void @tsr_range_read_step(ptr {{.*}}, i64 8, i64 8192, i64
// HOIST: call void @tsr_range_write_step(ptr {{.*}}, i64 8, i64 8192, i64
// DISC-NOT: call void @tsr_range
// HOIST-NOT: call void @tsr_range
// HOIST: {{^}}}

/* A loop nest: aghoist checks each row before the inner loop, maxaghoist
 * the whole matrix once before the outer loop (rows one after another).
 * The inner loop is entered only if m > 0: the check before the nest is of
 * no bytes otherwise (the second select), so a write check never covers a
 * store that will not run. */
void scale(double *a, long n, long m)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < m; j++)
            a[i * m + j] *= 2;
}
// AGH-LABEL: define {{.*}} @scale(
// AGH: phi
// AGH: call void @tsr_range_read(
// AGH: phi
// MAXH-LABEL: define {{.*}} @scale(
// MAXH: call void @tsr_range_read(
// MAXH: call void @tsr_range_write(
// MAXH: phi
// MAXH-NOT: call void @tsr_range
// MAXH: {{^}}}
// MAXD-LABEL: define {{.*}} @scale(
// MAXD: select i1 %{{[0-9]+}}, i64 %{{[0-9]+}}, i64 0
// MAXD-NEXT: select i1 %{{[0-9]+}}, i64 %{{[0-9]+}}, i64 0
// MAXD-NEXT: call void @tsr_range_write(
// MAXD: phi
// MAXD-NOT: call void @tsr_range
// MAXD: {{^}}}

/* A barrier in the outer loop: an acquire there may invalidate what a check
 * before the loop made consistent, so the check stays inside. */
void phases(double *a, long n, long m)
{
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < m; j++)
            a[j] += 1;
        tsr_barrier();
    }
}
// MAXH-LABEL: define {{.*}} @phases(
// MAXH: phi
// MAXH: call void @tsr_range_write(
// MAXH: call void @tsr_barrier

/* Two loops over the same bytes with nothing between: the second loop's
 * check is covered by the first's and discarded. */
double twice(const double *a, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += a[i];
    for (long i = 0; i < n; i++)
        s *= a[i];
    return s;
}
// AGH-LABEL: define {{.*}} @twice(
// AGH-COUNT-2: call void @tsr_range_read(
// DISC-LABEL: define {{.*}} @twice(
// DISC: call void @tsr_range_read(
// DISC-NOT: call void @tsr_range
// DISC: {{^}}}

/* The same with a barrier between: both checks stay. */
double twice_sync(const double *a, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += a[i];
    tsr_barrier();
    for (long i = 0; i < n; i++)
        s *= a[i];
    return s;
}
// DISC-LABEL: define {{.*}} @twice_sync(
// DISC: call void @tsr_range_read(
// DISC: call void @tsr_barrier
// DISC: call void @tsr_range_read(

/* An index read from memory is not analysable: a[idx[i]] is left to fault,
 * and only idx gets a check. */
void gather(double *a, const int *idx, long n)
{
    for (long i = 0; i < n; i++)
        a[idx[i]] += 1;
}
// HOIST-LABEL: define {{.*}} @gather(
// HOIST: call void @tsr_range_read(ptr {{.*}}, i64
// HOIST-NOT: call void @tsr_range
// HOIST: {{^}}}

/* The stack is never shared: no check at any level. */
double local(long n)
{
    volatile double t[64];
    for (long i = 0; i < 64; i++)
        t[i] = (double)(i * n);
    return t[n & 63];
}
// ALL-LABEL: define {{.*}} @local(
// ALL-NOT: call void @tsr_range
// ALL: {{^}}}

/* A struct assignment (a 16-byte memcpy) in a loop is planned like a load
 * and a store: one read and one write check before the loop. A memset of
 * a length known only at run time is checked in place, over its length. */
typedef struct pair {
    double re, im;
} pair;
void copy_pairs(pair *dst, const pair *src, long n)
{
    for (long i = 0; i < n; i++)
        dst[i] = src[n - 1 - i];
}
// HOIST-LABEL: define {{.*}} @copy_pairs(
// HOIST-DAG: call void @tsr_range_read(
// HOIST-DAG: call void @tsr_range_write(
// HOIST: phi
// HOIST-NOT: call void @tsr_range
// HOIST: {{^}}}

void clear(char *a, long n)
{
    __builtin_memset(a, 0, (unsigned long)n);
}
// ALL-LABEL: define {{.*}} @clear(
// ALL: call void @tsr_range_write(ptr %0, i64 %1)
// ALL-NEXT: call void @llvm.memset

/* A row copy whose check cannot leave its loop (the loop synchronizes):
 * too short to be checked in place as a long copy, yet costing far more
 * than a check, it is checked in place anyway (the row the optimiser
 * peels off an unrolled copy loop lands like this, issue 46). A struct
 * copy there stays unchecked: its check would cost as much as the copy. */
void copy_row_each_barrier(double *dst, const double *src, pair *p, const pair *q, long n)
{
    for (long it = 0; it < n; it++) {
        __builtin_memcpy(dst, src, 2048);
        *p = *q;
        tsr_barrier();
    }
}
// HOIST-LABEL: define {{.*}} @copy_row_each_barrier(
// HOIST: phi
// HOIST-DAG: call void @tsr_range_write(ptr %0, i64 2048)
// HOIST-DAG: call void @tsr_range_read(ptr %1, i64 2048)
// HOIST: call void @llvm.memcpy{{.*}}i64 2048
// HOIST-NOT: call void @tsr_range
// HOIST: {{^}}}

/* Rows through tables of row pointers (SOR's initialisation, issue 46):
 * each red point is stored in one of two branches (the top row or not),
 * and each branch loads red[i] again, as LLVM cannot move a load that not
 * every path runs. The pass loads the entry once before the inner loop
 * (every path loads it and nothing in the loop writes it) and, since every
 * path stores to red[i][k], checks the row for writing: write checks for
 * both rows, and no row pointer loaded inside the loop. */
static double first_value(long i, long k, long n)
{
    if (i == 0)
        return 1.0;
    return k == 0 || k > n ? 0.0 : (double)(k * i % 7);
}
void init_rows(double **red, double **black, long n, long lo, long hi)
{
    for (long i = lo; i < hi; i++)
        for (long k = 0; k < n; k++) {
            red[i][k] = first_value(i, 2 * k, n);
            black[i][k] = first_value(i, 2 * k + 1, n);
        }
}
// HOIST-LABEL: define {{.*}} @init_rows(
// HOIST: call void @tsr_range_write(
// HOIST: call void @tsr_range_write(
// HOIST: phi
// HOIST-NOT: load ptr
// HOIST-NOT: call void @tsr_range
// HOIST: {{^}}}

/* A store under a condition may never run (data never negative): no write
 * check for it at any hoisting level, only the read check of its load, so
 * that a loop nest that writes nothing makes no twin, takes no page and
 * breaks no read_only promise. If it does run, it faults as without the
 * pass. (The single loop is issue 51's program, tests/cas/clip_run.c,
 * whose IR cas_pass.sh checks too.) At the max levels the whole matrix is
 * read once. */
void clip_rows(double *a, long n, long m)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < m; j++)
            if (a[i * m + j] < 0)
                a[i * m + j] = 0;
}
// HOIST-LABEL: define {{.*}} @clip_rows(
// MAXH: call void @tsr_range_read(
// MAXH: phi
// HOIST-NOT: call void @tsr_range_write
// MAXH-NOT: call void @tsr_range
// HOIST: {{^}}}

/* A row is doubled only when its flag is set: the store runs on every
 * iteration of the inner loop, not of the outer one, so at the max levels
 * its write check stays before the inner loop, which runs only for the
 * rows doubled, while the reads are checked once before the nest. */
void double_flagged(double *a, const int *flag, long n, long m)
{
    for (long i = 0; i < n; i++)
        if (flag[i])
            for (long j = 0; j < m; j++)
                a[i * m + j] *= 2;
}
// MAXH-LABEL: define {{.*}} @double_flagged(
// MAXH-NOT: call void @tsr_range_write
// MAXH: phi
// MAXH: call void @tsr_range_write(
// MAXH-NOT: call void @tsr_range
// MAXH: {{^}}}
