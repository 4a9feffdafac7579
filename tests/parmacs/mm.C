/* Matrix multiply in the style of a SPLASH program (PARMACS macros),
 * after apps/mm, using the lock arrays and the PAUSE family. The master
 * reads N from standard input and G_MALLOCs and fills A and B alone. Processes take blocks of rows from a shared
 * counter under a lock; each finished block is counted in its band's entry
 * of a lock array (ALOCK); the process that finishes the last block raises
 * a pause flag, which the master waits for before it checks C against a
 * private computation. Input: "N". */
MAIN_ENV

#define MAXN 256
#define BLOCK 8
#define BANDS 4

struct GlobalMemory {
    LOCKDEC(nextlock)
    ALOCKDEC(bandlock, BANDS)
    PAUSEDEC(alldone)
    int next;
    int done[BANDS];
    int finished;
};

struct GlobalMemory *Global;
double *A, *B, *C;
int N;

static double a_at(int i, int j) { return (i % 5) + 0.5 * (j % 3); }
static double b_at(int i, int j) { return ((i + j) % 4) - 1.0; }

static void rows(int lo, int hi)
{
    for (int i = lo; i < hi; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < N; k++)
                s += A[i * N + k] * B[k * N + j];
            C[i * N + j] = s;
        }
}

void SlaveStart(void)
{
    int blocks = (N + BLOCK - 1) / BLOCK;
    for (;;) {
        int b;
        LOCK(Global->nextlock)
        b = Global->next++;
        UNLOCK(Global->nextlock)
        if (b >= blocks)
            break;
        rows(b * BLOCK, (b + 1) * BLOCK < N ? (b + 1) * BLOCK : N);
        int band = b % BANDS, last;
        ALOCK(Global->bandlock, band)
        Global->done[band]++;
        AULOCK(Global->bandlock, band)
        LOCK(Global->nextlock)
        last = ++Global->finished == blocks;
        UNLOCK(Global->nextlock)
        if (last)
            SETPAUSE(Global->alldone)
    }
}

int main(int argc, char **argv)
{
    MAIN_INITENV
    if (scanf("%d", &N) != 1 || N < 1 || N > MAXN) {
        fprintf(stderr, "mm: want N on standard input, 1 <= N <= %d\n", MAXN);
        exit(2);
    }
    int P = tsr_nodes();
    Global = (struct GlobalMemory *)G_MALLOC(sizeof(struct GlobalMemory));
    A = (double *)G_MALLOC(sizeof(double) * N * N);
    B = (double *)G_MALLOC(sizeof(double) * N * N);
    C = (double *)G_MALLOC(sizeof(double) * N * N);
    LOCKINIT(Global->nextlock)
    ALOCKINIT(Global->bandlock, BANDS)
    PAUSEINIT(Global->alldone)
    Global->next = Global->finished = 0;
    for (int i = 0; i < BANDS; i++)
        Global->done[i] = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i * N + j] = a_at(i, j);
            B[i * N + j] = b_at(i, j);
        }
    CREATE(SlaveStart, P)
    WAITPAUSE(Global->alldone)

    int bad = 0, blocks = 0;
    for (int i = 0; i < BANDS; i++)
        blocks += Global->done[i];
    for (int i = 0; i < N && !bad; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < N; k++)
                s += a_at(i, k) * b_at(k, j);
            if (C[i * N + j] != s) {
                printf("mm %d: C[%d][%d] = %g, want %g\n", N, i, j, C[i * N + j], s);
                bad = 1;
                break;
            }
        }
    printf("mm %d: %d blocks counted in %d bands %s\n", N, blocks, BANDS, bad ? "FAIL" : "PASS");
    WAIT_FOR_END(P)
    if (bad)
        exit(1);
    MAIN_END
}
