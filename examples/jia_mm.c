/*
 * jia_mm.c - matrix multiplication C = A x B, written the way JIAJIA's
 * example programs are: every host allocates the matrices together, each
 * with a placement that suits it; host 0 fills A and B; each host computes
 * a band of C's rows, which jia_alloc2 homes at that host; a lock
 * protects a shared count of the rows done.
 *
 *   tsrun -n 4 jia_mm
 *
 * Host 0 prints a checksum of C, the same for any number of hosts, the
 * count of rows, and the time.
 */
#include <stdio.h>

#include <jia.h>

#define N 128

double (*a)[N], (*b)[N], (*c)[N];
int *rows_done;

int main(int argc, char **argv)
{
    jia_init(argc, argv);
    int bytes = N * N * sizeof(double);
    int band = (N + jiahosts - 1) / jiahosts;

    a = (double (*)[N])jia_alloc3(bytes, bytes / jiahosts, 0);
    b = (double (*)[N])jia_alloc3(bytes, bytes / jiahosts, 1 % jiahosts);
    c = (double (*)[N])jia_alloc2(bytes, band * N * sizeof(double));
    rows_done = (int *)jia_alloc(sizeof(int));
    jia_barrier();

    if (jiapid == 0)
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                a[i][j] = (i * 7 + j * 3) % 11;
                b[i][j] = (i * 5 + j) % 13;
            }
    jia_barrier();

    float start = jia_clock();
    int begin = jiapid * band, end = begin + band < N ? begin + band : N;
    for (int i = begin; i < end; i++)
        for (int j = 0; j < N; j++) {
            double sum = 0;
            for (int k = 0; k < N; k++)
                sum += a[i][k] * b[k][j];
            c[i][j] = sum;
        }
    jia_lock(1);
    *rows_done += end > begin ? end - begin : 0;
    jia_unlock(1);
    jia_barrier();

    if (jiapid == 0) {
        double sum = 0;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                sum += c[i][j] * ((i + j) % 3 + 1);
        printf("checksum %.1f\n", sum);
        printf("rows %d of %d\n", *rows_done, N);
        printf("time %.3f s\n", jia_clock() - start);
    }
    jia_exit();
    return 0;
}
