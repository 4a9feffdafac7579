/* Red-black SOR in the style of a SPLASH program (PARMACS macros,
 * share/tessera/c.m4.tessera), after apps/sor. The master reads the size
 * and the iterations from standard input, G_MALLOCs the grid, initialises
 * it and the globals on node 0 alone, and CREATEs the processes (the
 * master is one of them). Each process takes an id under a lock, relaxes its band of rows
 * between barriers, and adds its part of the checksum under a lock. The
 * master compares the checksum with the same computation in private
 * memory and prints one line. Input: "N ITERATIONS". */
MAIN_ENV

#define MAXN 512

struct GlobalMemory {
    LOCKDEC(idlock)
    LOCKDEC(sumlock)
    BARDEC(bar)
    int id;
    double sum;
};

struct GlobalMemory *Global;
double *Grid; /* N x N, G_MALLOCed */
int N, Iters, P;

static void init(double *g, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            g[i * n + j] = i == 0 || j == 0 ? 1.0 + 0.01 * (i + j) : 0.0;
}

/* Relaxes the points of one colour in rows [lo, hi). */
static void sweep(double *g, int n, int colour, int lo, int hi)
{
    for (int i = lo < 1 ? 1 : lo; i < hi && i < n - 1; i++)
        for (int j = 1 + (i + colour) % 2; j < n - 1; j += 2)
            g[i * n + j] = 0.25 * (g[(i - 1) * n + j] + g[(i + 1) * n + j] + g[i * n + j - 1] +
                                   g[i * n + j + 1]);
}

static double checksum(const double *g, int n, int lo, int hi)
{
    double s = 0;
    for (int i = lo; i < hi; i++)
        for (int j = 0; j < n; j++)
            s += g[i * n + j] * (1 + (i + j) % 7);
    return s;
}

void SlaveStart(void)
{
    int me;
    LOCK(Global->idlock)
    me = Global->id++;
    UNLOCK(Global->idlock)
    int lo = N * me / P, hi = N * (me + 1) / P;
    for (int it = 0; it < Iters; it++)
        for (int colour = 0; colour < 2; colour++) {
            sweep(Grid, N, colour, lo, hi);
            BARRIER(Global->bar, P)
        }
    double part = checksum(Grid, N, lo, hi);
    LOCK(Global->sumlock)
    Global->sum += part;
    UNLOCK(Global->sumlock)
}

int main(int argc, char **argv)
{
    unsigned long start, end;
    MAIN_INITENV
    if (scanf("%d %d", &N, &Iters) != 2 || N < 3 || N > MAXN || Iters < 0) {
        fprintf(stderr, "sor: want \"N ITERATIONS\" on standard input, 3 <= N <= %d\n", MAXN);
        exit(2);
    }
    P = tsr_nodes();
    Global = (struct GlobalMemory *)G_MALLOC(sizeof(struct GlobalMemory));
    Grid = (double *)G_MALLOC(sizeof(double) * N * N);
    LOCKINIT(Global->idlock)
    LOCKINIT(Global->sumlock)
    BARINIT(Global->bar)
    Global->id = 0;
    Global->sum = 0;
    init(Grid, N);
    CLOCK(start)
    CREATE(SlaveStart, P)
    WAIT_FOR_END(P)
    CLOCK(end)

    double *ref = malloc(sizeof(double) * N * N);
    init(ref, N);
    for (int it = 0; it < Iters; it++)
        for (int colour = 0; colour < 2; colour++)
            sweep(ref, N, colour, 0, N);
    double want = checksum(ref, N, 0, N);
    int ok = Global->sum > want * (1 - 1e-12) && Global->sum < want * (1 + 1e-12);
    printf("sor %d %d: checksum %.6f, want %.6f %s\n", N, Iters, Global->sum, want,
           ok ? "PASS" : "FAIL");
    (void)start;
    (void)end;
    if (!ok)
        exit(1);
    MAIN_END
}
