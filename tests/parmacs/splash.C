/* A SPLASH-3-style program that uses every macro of SPLASH-3's pthreads
 * macro file the way the suite does, built both through
 * share/tessera/c.m4.tessera and through tests/parmacs/c.m4.pthreads; the
 * two builds must print the same lines (tests/sh/parmacs.sh).
 *
 *   splash -pP [-l N]    P processes; -l: ALOCKINIT N more locks (at most
 *                        MANY), whose last P every process then takes
 *
 * - MAIN_INITENV in a helper function without argc/argv (BARNES' ANLinit);
 * - a shared bump allocator over one G_MALLOCed pool, used by the master
 *   alone to build a linked list that the processes then walk (CHOLESKY);
 * - CREATE(f, P) with the master working, then WAIT_FOR_END; later two
 *   CREATEs in a row with sequential code between and no WAIT_FOR_END
 *   after the first (VOLREND), and the master's sequential code between;
 * - per-process task queues, each a lock and a condition variable inside a
 *   structure, filled by process 0 with CONDVARSIGNAL (CHOLESKY's mf.c);
 * - a tree combined bottom-up: each cell done under ALOCK with
 *   CONDVARBCAST, its parent waiting with CONDVARWAIT on AGETL, the cell
 *   published after a RELEASE_FENCE (BARNES' load.c);
 * - a value passed round the processes by pause flags (RADIX's prefix tree);
 * - ordinary globals written by one process and read by all after a
 *   barrier (FMM's Grid, WATER-NSQUARED's XTT);
 * - CLOCK, the ROI markers and PAGE_SIZE. */
MAIN_ENV

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAXP 64
#define TASKS 40 /* per process */
#define NLOCKS 16
#define LISTLEN 300
#define CELLS (2 * MAXP - 1)

struct Queue {
    LOCKDEC(lock)
    CONDVARDEC(have)
    long count, next, closed;
    long item[TASKS];
};

struct Cell {
    CONDVARDEC(done_cv)
    long done;
    long value;
};

struct Pass {
    PAUSEDEC(flag)
    long value;
};

struct ListNode {
    long value;
    struct ListNode *next;
};

/* -l N: N more locks, as many as WATER-SPATIAL's lock per cell box or
 * more than Tessera has (which must stop the job naming ALOCKINIT). */
#define MANY 70000
struct Many {
    ALOCKDEC(l, MANY)
    long n, count[MAXP];
};
struct Many *Lots;

struct GlobalMemory {
    LOCKDEC(idlock)
    LOCKDEC(sumlock)
    BARDEC(bar)
    ALOCKDEC(cl, NLOCKS)
    struct Queue queue[MAXP];
    struct Cell cell[CELLS];
    struct Pass pass[MAXP + 1];
    long id, taskdone[MAXP], seen[MAXP], walked[MAXP], part[MAXP], total;
};

struct GlobalMemory *Global;
struct ListNode *List;
char *Pool;
long PoolUsed, PoolSize;
long P, Phase, Scale;
long *Grid, GridN;
/* Written by one process in the parallel part, read by all after it. */
long Winner, WinnerSquare;

/* The shared allocator: the master carves nodes from one pool. */
static void *pool_take(long bytes)
{
    void *p = Pool + PoolUsed;
    PoolUsed += (bytes + 15) & ~15L;
    if (PoolUsed > PoolSize) {
        fprintf(stderr, "splash: pool exhausted\n");
        exit(1);
    }
    return p;
}

static void ANLinit(long many)
{
    MAIN_INITENV(, 40000000, );
    Global = (struct GlobalMemory *)G_MALLOC(sizeof(struct GlobalMemory));
    memset(Global, 0, sizeof *Global);
    LOCKINIT(Global->idlock);
    LOCKINIT(Global->sumlock);
    BARINIT(Global->bar, P);
    ALOCKINIT(Global->cl, NLOCKS);
    for (long i = 0; i < P; i++) {
        LOCKINIT(Global->queue[i].lock);
        CONDVARINIT(Global->queue[i].have);
    }
    for (long i = 0; i < 2 * P - 1; i++)
        CONDVARINIT(Global->cell[i].done_cv);
    for (long i = 0; i <= P; i++)
        PAUSEINIT(Global->pass[i].flag);
    if (many) {
        struct Many *m = (struct Many *)G_MALLOC(sizeof(struct Many));
        memset(m, 0, sizeof *m);
        m->n = many;
        ALOCKINIT(m->l, many);
        Lots = m;
    }
    PoolSize = LISTLEN * 32;
    Pool = (char *)G_MALLOC(PoolSize);
    struct ListNode **tail = &List;
    for (long i = 0; i < LISTLEN; i++) {
        struct ListNode *n = (struct ListNode *)pool_take(sizeof(struct ListNode));
        n->value = i * i % 97;
        n->next = NULL;
        *tail = n;
        tail = &n->next;
    }
}

/* Process 0 deals the tasks round the queues, waking each owner. */
static void deal(void)
{
    for (long t = 0; t < TASKS * P; t++) {
        struct Queue *q = &Global->queue[t % P];
        LOCK(q->lock);
        q->item[q->count++] = t;
        CONDVARSIGNAL(q->have);
        UNLOCK(q->lock);
    }
    for (long i = 0; i < P; i++) {
        LOCK(Global->queue[i].lock);
        Global->queue[i].closed = 1;
        CONDVARSIGNAL(Global->queue[i].have);
        UNLOCK(Global->queue[i].lock);
    }
}

static long take_tasks(long me)
{
    struct Queue *q = &Global->queue[me];
    long sum = 0;
    for (;;) {
        LOCK(q->lock);
        while (q->next == q->count && !q->closed)
            CONDVARWAIT(q->have, q->lock);
        long more = q->next < q->count;
        long t = more ? q->item[q->next++] : 0;
        UNLOCK(q->lock);
        if (!more)
            return sum;
        sum += t * 3 + 1;
    }
}

/* Cell c's value: its own for a leaf (process c - (P - 1)), else the sum
 * of its children's once both are done. */
static void combine(long me)
{
    long leaf = P - 1 + me;
    ALOCK(Global->cl, leaf % NLOCKS);
    Global->cell[leaf].value = (me + 1) * 10;
    RELEASE_FENCE();
    Global->cell[leaf].done = 1;
    CONDVARBCAST(Global->cell[leaf].done_cv);
    AULOCK(Global->cl, leaf % NLOCKS);
    if (me >= P - 1)
        return;
    long sum = 0;
    for (long k = 1; k <= 2; k++) {
        long ch = 2 * me + k;
        ALOCK(Global->cl, ch % NLOCKS);
        while (!Global->cell[ch].done)
            CONDVARWAIT(Global->cell[ch].done_cv, AGETL(Global->cl, ch % NLOCKS));
        sum += Global->cell[ch].value;
        AULOCK(Global->cl, ch % NLOCKS);
    }
    ALOCK(Global->cl, me % NLOCKS);
    Global->cell[me].value = sum;
    ACQUIRE_FENCE();
    Global->cell[me].done = 1;
    CONDVARBCAST(Global->cell[me].done_cv);
    AULOCK(Global->cl, me % NLOCKS);
}

/* The value goes round: process i waits for pass[i], adds, raises pass[i+1]. */
static void ring(long me)
{
    if (me == 0) {
        Global->pass[0].value = 7;
        SETPAUSE(Global->pass[0].flag);
    }
    WAITPAUSE(Global->pass[me].flag);
    CLEARPAUSE(Global->pass[me].flag);
    Global->pass[me + 1].value = Global->pass[me].value * 2 + me;
    FULL_FENCE();
    SETPAUSE(Global->pass[me + 1].flag);
}

void SlaveStart(void)
{
    long me;
    LOCK(Global->idlock);
    me = Global->id++;
    UNLOCK(Global->idlock);
    BARRIER(Global->bar, P);
    if (me == 0)
        deal();
    Global->taskdone[me] = take_tasks(me);
    combine(me);
    ring(me);
    if (me == P - 1) {
        Winner = 1000 + me;
        WinnerSquare = Winner * Winner;
    }
    long walked = 0;
    for (struct ListNode *n = List; n; n = n->next)
        walked += n->value;
    Global->walked[me] = walked;
    BARRIER(Global->bar, P);
    Global->seen[me] = Winner * Winner == WinnerSquare ? Winner : -1;
    for (long j = 0; Lots && j < P; j++) {
        ALOCK(Lots->l, Lots->n - 1 - j);
        Lots->count[j]++;
        AULOCK(Lots->l, Lots->n - 1 - j);
    }
}

/* Fills this process's rows of the grid (the second CREATE). */
void FillStart(void)
{
    long me;
    LOCK(Global->idlock);
    me = Global->id++ % P;
    UNLOCK(Global->idlock);
    for (long i = GridN * me / P; i < GridN * (me + 1) / P; i++)
        Grid[i] = (i % 13) * Scale;
    BARRIER(Global->bar, P);
}

/* Sums the whole grid on every process (the third CREATE). */
void SumStart(void)
{
    long me, sum = 0;
    LOCK(Global->idlock);
    me = Global->id++ % P;
    UNLOCK(Global->idlock);
    for (long i = 0; i < GridN; i++)
        sum += Grid[i];
    Global->part[me] = sum;
    LOCK(Global->sumlock);
    Global->total += sum;
    UNLOCK(Global->sumlock);
    BARRIER(Global->bar, P);
}

int main(int argc, char **argv)
{
    unsigned long start, end;
    long many = 0;
    int c;
    P = 1;
    while ((c = getopt(argc, argv, "p:l:")) != -1) {
        if (c == 'p')
            P = atol(optarg);
        else if (c == 'l')
            many = atol(optarg);
        else
            exit(2);
    }
    if (P < 1 || P > MAXP || many < 0 || many > MANY || (many && many < P)) {
        fprintf(stderr, "splash: -p from 1 to %d, -l from -p to %d\n", MAXP, MANY);
        exit(2);
    }
    ANLinit(many);
    CLOCK(start);
    SPLASH3_ROI_BEGIN();
    CREATE(SlaveStart, P);
    WAIT_FOR_END(P);
    SPLASH3_ROI_END();

    int ok = 1;
    long want_tasks = 0, tasks = 0, want_walk = 0, want_ring = 7;
    for (long t = 0; t < TASKS * P; t++)
        want_tasks += t * 3 + 1;
    for (long i = 0; i < P; i++)
        tasks += Global->taskdone[i];
    printf("tasks dealt through condition variables: %ld, want %ld\n", tasks, want_tasks);
    ok &= tasks == want_tasks;
    printf("tree root: %ld, want %ld\n", Global->cell[0].value, 5 * P * (P + 1));
    ok &= Global->cell[0].value == 5 * P * (P + 1);
    for (long i = 0; i < P; i++)
        want_ring = want_ring * 2 + i;
    printf("ring of pause flags: %ld, want %ld\n", Global->pass[P].value, want_ring);
    ok &= Global->pass[P].value == want_ring;
    for (long i = 0; i < LISTLEN; i++)
        want_walk += i * i % 97;
    for (long i = 0; i < P; i++) {
        ok &= Global->walked[i] == want_walk && Global->seen[i] == 1000 + P - 1;
        if (Global->walked[i] != want_walk || Global->seen[i] != 1000 + P - 1)
            printf("process %ld: list sum %ld, winner %ld\n", i, Global->walked[i], Global->seen[i]);
    }
    printf("list of %d nodes from the pool walked by %ld processes, winner %ld seen by all\n", LISTLEN,
           P, Winner);
    int took = 1;
    for (long j = 0; Lots && j < P; j++)
        took &= Lots->count[j] == P;
    if (Lots)
        printf("last %ld of %ld more locks each taken by every process: %s\n", P, Lots->n,
               took ? "yes" : "no");
    ok &= took;

    /* Sequential code between CREATEs: the master allocates and sets up. */
    Scale = 3;
    GridN = 5000;
    Grid = (long *)G_MALLOC(sizeof(long) * GridN);
    Global->id = 0;
    CREATE(FillStart, P);
    for (long i = 0; i < GridN; i += 1000)
        Grid[i] += 1; /* the master alone, between the two CREATEs */
    Global->id = 0;
    CREATE(SumStart, P);
    WAIT_FOR_END(P);
    CLOCK(end);
    long want_grid = 5;
    for (long i = 0; i < GridN; i++)
        want_grid += (i % 13) * 3;
    for (long i = 0; i < P; i++)
        ok &= Global->part[i] == want_grid;
    printf("grid summed by every process: %ld, want %ld; total %ld\n", Global->part[0], want_grid,
           Global->total);
    ok &= Global->total == want_grid * P;
    printf("PAGE_SIZE %d, clock ran %s\n", PAGE_SIZE, end >= start ? "forward" : "backward");
    printf("splash -p%ld: %s\n", P, ok ? "PASS" : "FAIL");
    if (!ok)
        exit(1);
    MAIN_END;
}
