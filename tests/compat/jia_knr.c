/*
 * jia_knr.c - every call, variable and macro of JIAJIA 2.x's jia.h, in the
 * style of JIAJIA's applications: K&R definitions, an implicit-int main.
 * Built with the public header only, `cc -std=gnu89`
 * (tests/sh/compat.sh). Each host prints "host H of N: OK" when every
 * check holds, and exits non-zero if not. With the argument "error", the
 * last host calls jia_error.
 */
#include <stdio.h>
#include <string.h>

#include <jia.h>

#define ROWS 64
#define ROW 1024 /* ints: one page a row */

int *grid, *counter, *one;
double *per_host;
int bad;
LOCKDEC(anl_lock)
BARDEC(anl_barrier)

void check(ok, what)
    int ok;
    char *what;
{
    if (!ok) {
        printf("host %d: %s is wrong\n", jiapid, what);
        bad++;
    }
}

/* Fills column `col` of this host's share of the rows, and checks after a
 * barrier that the shares covered every row once. */
void share(col, mult)
    int col, mult;
{
    int i, begin = 0, end = ROWS - 1;

    jia_divtask(&begin, &end);
    for (i = begin; i <= end; i++)
        grid[i * ROW + col] += mult * (i + 1);
    jia_barrier();
    for (i = 0; i < ROWS; i++)
        if (grid[i * ROW + col] != mult * (i + 1))
            break;
    check(i == ROWS, "jia_divtask's shares");
}

void messages()
{
    int out[2], in[2], got, from, i, sum = 0;
    double mine[2], total[2];
    int imax, fmin_ok;
    float fmine, fmin;
    char text[32];

    from = (jiapid + jiahosts - 1) % jiahosts;
    out[0] = jiapid * 10;
    out[1] = -jiapid;
    jia_send((char *) out, sizeof(out), (jiapid + 1) % jiahosts, 7);
    got = jia_recv((char *) in, sizeof(in), from, 7);
    check(got == sizeof(in) && in[0] == from * 10 && in[1] == -from, "the ring of jia_send");

    jia_send((char *) &jiapid, sizeof(int), 0, 100 + jiapid);
    if (jiapid == 0)
        for (i = 0; i < jiahosts; i++) {
            got = jia_recv((char *) out, 1, MSG_PROC_ALL, MSG_TAG_ALL);
            sum += out[0] & 0xff;
            check(got == 1, "a jia_recv shorter than the message");
        }
    check(jiapid != 0 || sum == jiahosts * (jiahosts - 1) / 2, "jia_recv from any host");

    mine[0] = jiapid + 1;
    mine[1] = -jiapid;
    jia_reduce((char *) mine, (char *) total, 2, SUM_DOUBLE, jiahosts - 1);
    check(jiapid != jiahosts - 1 ||
              (total[0] == jiahosts * (jiahosts + 1) / 2 && total[1] == -total[0] + jiahosts),
          "jia_reduce(SUM_DOUBLE)");
    jia_reduce((char *) &jiapid, (char *) &imax, 1, MAX_INT, 0);
    check(jiapid != 0 || imax == jiahosts - 1, "jia_reduce(MAX_INT)");
    fmine = 2.5f * jiapid - 1;
    jia_reduce((char *) &fmine, (char *) &fmin, 1, MIN_FLOAT, 0);
    fmin_ok = jiapid != 0 || fmin == -1.0f;
    check(fmin_ok, "jia_reduce(MIN_FLOAT)");

    memset(text, 0, sizeof(text));
    if (jiapid == jiahosts / 2)
        sprintf(text, "from host %d", jiapid);
    jia_bcast(text, sizeof(text), jiahosts / 2);
    sprintf((char *) out, "%d", jiahosts / 2);
    check(strncmp(text, "from host ", 10) == 0 && strcmp(text + 10, (char *) out) == 0,
          "jia_bcast");
}

main(argc, argv)
    int argc;
    char **argv;
{
    int i, *anl;
    float before, start, now;

    before = jia_clock();
    jia_init(argc, argv);
    if (argc > 1 && strcmp(argv[1], "error") == 0 && jiapid == jiahosts - 1)
        jia_error("stopped by host %d of %d\n", jiapid, jiahosts);
    jia_config(HMIG, ON);
    jia_config(ADWD, ON);
    jia_config(BROADCAST, OFF);
    jia_config(WVEC, OFF);
    jia_startstat();
    CLOCK(start)

    grid = (int *) jia_alloc3(ROWS * ROW * sizeof(int), 2 * ROW * sizeof(int), 1 % jiahosts);
    counter = (int *) jia_alloc(sizeof(int));
    per_host = (double *) jia_alloc2(jiahosts * 4096, 4096);
    one = (int *) jia_alloc2p(4096, jiahosts - 1);
    anl = (int *) G_MALLOC(sizeof(int));
    i = jia_alloc1(4096) != 0;
    check(i && grid && counter && per_host && one && anl, "the allocations");
    LOCKINIT(anl_lock)
    BARINIT(anl_barrier)
    BARRIER(anl_barrier, jiahosts)

    for (i = 0; i < 50; i++) {
        jia_lock(3);
        (*counter)++;
        jia_unlock(3);
        LOCK(anl_lock)
        (*anl)++;
        UNLOCK(anl_lock)
    }
    per_host[jiapid * 512] = jiapid + 0.5;
    jia_barrier();
    check(*counter == 50 * jiahosts && *anl == 50 * jiahosts, "the counts made under locks");
    for (i = 0; i < jiahosts; i++)
        check(per_host[i * 512] == i + 0.5, "the values written before a barrier");

    share(0, 1);
    jia_config(LOADBAL, ON);
    jia_loadcheck();
    share(1, 3);
    jia_loadcheck();
    share(2, 5);
    jia_config(LOADBAL, OFF);

    /* Scope consistency, as in JIAJIA: a condition variable carries no
     * write; what host 0 wrote under lock 7 is seen under lock 7. */
    if (jiapid == 0) {
        jia_lock(7);
        one[0] = 42;
        jia_unlock(7);
        jia_setcv(5);
    } else
        jia_waitcv(5);
    jia_lock(7);
    check(one[0] == 42, "what host 0 wrote under a lock before jia_setcv");
    jia_unlock(7);
    jia_wait();
    if (jiapid == 0)
        jia_resetcv(5);
    jia_wait();

    messages();
    for (i = 0; i < 200; i++)
        jia_wait();
    CLOCK(now)
    check(before >= 0 && start >= before && now >= start && jia_clock() >= now, "jia_clock");
    jia_stopstat();
    printf("host %d of %d: %s\n", jiapid, jiahosts, bad ? "FAIL" : "OK");
    jia_exit();
    return bad != 0;
}
