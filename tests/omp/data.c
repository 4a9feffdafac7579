/* Where shared data lives, without annotations: the heap (malloc, calloc,
 * realloc, posix_memalign, aligned_alloc, free), globals and static
 * locals, a caller's local array reached through a pointer, a
 * variable-length array, a struct on the stack, a nested region (run by a
 * team of one), and threadprivate variables with copyin. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096

double global_vec[N];
int tp_count = 0;
double tp_scale = 1.0;
#pragma omp threadprivate(tp_count, tp_scale)

struct point {
    int x, y;
    char tag[16];
};

/* Fills a caller's array: a pointer into the caller's frame. */
static void fill(double *a, int n, double k)
{
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        a[i] = i * k;
}

static double total(const double *a, int n)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}

static int counter(void)
{
    static int calls;
#pragma omp parallel
#pragma omp atomic
    calls++;
    return calls;
}

int main(int argc, char **argv)
{
    double local[N];
    fill(local, N, 0.5);
    fill(global_vec, N, 2.0);
    printf("local %.1f, global %.1f\n", total(local, N), total(global_vec, N));

    int n = N / 2 + argc; /* a variable-length array's size known only at run time */
    double vla[n];
    fill(vla, n, 1.0);
    printf("vla of %d: %.1f\n", n, total(vla, n));

    double *h = malloc(N * sizeof *h);
    long *z = calloc(N, sizeof *z);
    double *al = NULL;
    if (posix_memalign((void **)&al, 64, N * sizeof *al))
        return 1;
    float *aa = aligned_alloc(128, N * sizeof(float));
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
        h[i] = i;
        z[i] += i % 7;
        al[i] = -i;
        aa[i] = 0.25f * i;
    }
    long zs = 0;
    for (int i = 0; i < N; i++)
        zs += z[i];
    printf("malloc %.1f, calloc %ld, posix_memalign %.1f (aligned %d), aligned_alloc %.1f (%d)\n",
           total(h, N), zs, total(al, N), (int)((unsigned long)al % 64 == 0),
           (double)aa[N - 1], (int)((unsigned long)aa % 128 == 0));
    /* Every thread allocates, grows and frees blocks of its own in a region. */
    long mine[64] = {0};
#pragma omp parallel
    {
        int me = omp_get_thread_num();
        long *b = malloc(16 * sizeof *b);
        for (int i = 0; i < 16; i++)
            b[i] = me + i;
        b = realloc(b, 32 * sizeof *b);
        for (int i = 16; i < 32; i++)
            b[i] = me;
        for (int i = 0; i < 32; i++)
            mine[me] += b[i];
        free(b);
    }
    long all = 0;
    for (int t = 0; t < omp_get_max_threads(); t++)
        all += mine[t];
    printf("allocated in the region: %ld\n", all);
    h = realloc(h, 2 * N * sizeof *h);
    fill(h + N, N, 1.0);
    printf("realloc kept %.1f, grew %.1f\n", total(h, N), total(h + N, N));
    free(h);
    free(z);
    free(al);
    free(aa);

    char *dup = strdup("from the C library"); /* libc's malloc: freed by libc */
    printf("%s\n", dup);
    free(dup);
    /* A block the C library maps alone (its size): the 16 bytes before it
     * begin its own mapping, so free may read no further back. */
    char *text = malloc(1 << 20);
    memset(text, 'x', (1 << 20) - 1);
    text[(1 << 20) - 1] = 0;
    char *mapped = strdup(text);
    printf("a mapped block of %zu bytes\n", strlen(mapped));
    free(mapped);
    free(text);

    struct point p = {1, 2, "start"};
    int nested = -1;
#pragma omp parallel
    {
#pragma omp single
        {
            p.x += 10;
            strcpy(p.tag, "moved");
        }
        int outer = omp_get_thread_num();
#pragma omp parallel
        {
            /* each outer thread is its nested team's master: one writes */
#pragma omp master
            if (outer == 0)
                nested = omp_get_num_threads() * 100 + omp_get_level();
        }
    }
    printf("struct %d %d %s, nested team %d\n", p.x, p.y, p.tag, nested);
    printf("static local %d then %d\n", counter(), counter());

    /* Each thread's copy lives on across regions; copyin sets them all. */
    int per[64] = {0}, team = 0;
#pragma omp parallel
    tp_count = 10 * omp_get_thread_num();
#pragma omp parallel
    {
        tp_count++;
        per[omp_get_thread_num()] = tp_count;
#pragma omp master
        team = omp_get_num_threads();
    }
    tp_scale = 2.5;
    double scaled[64] = {0};
#pragma omp parallel copyin(tp_scale)
    scaled[omp_get_thread_num()] = tp_scale * (omp_get_thread_num() + 1);
    for (int t = 0; t < team; t++)
        printf("threadprivate: thread %d counted %d, copyin %.1f\n", t, per[t], scaled[t]);
    return 0;
}
