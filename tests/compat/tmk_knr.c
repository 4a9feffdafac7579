/*
 * tmk_knr.c - every call and variable of TreadMarks 1.0's Tmk.h, in the
 * style of the distribution's examples: K&R definitions, an implicit-int
 * main, Tmk_errexit where an allocation fails. Built with the public
 * header only, `cc -std=gnu89` (tests/sh/compat.sh). Each process prints
 * "process P of N: OK" when every check holds, and exits non-zero if not.
 * With the argument "errexit", the last process calls Tmk_errexit with a
 * message of two lines, which must come out as one.
 *
 * The condition variables are made to wait for real: each waiter counts
 * itself under the lock and waits without letting it go in between, and
 * process 0 signals only once the count is complete, so every signal finds
 * every waiter waiting.
 */
#include <stdio.h>
#include <string.h>

#include <Tmk.h>

struct shared {
    int count;
    int waiting, go, tickets, taken;
};

struct shared *sh;
int *table;
int bad;

void check(ok, what)
    int ok;
    char *what;
{
    if (!ok) {
        Tmk_err("process %u: %s is wrong\n", Tmk_proc_id, what);
        bad++;
    }
}

void work(arg)
    Tmk_sched_arg_t arg;
{
    int *slots = (int *) arg->shared[0];

    Tmk_lock_acquire(1);
    slots[Tmk_proc_id] += arg->byvalue[0].int_by_value + Tmk_proc_id;
    Tmk_lock_release(1);
}

/* Every process but 0 waits on (2, cond) until process 0, which waits on
 * (2, 1) until all of them wait, lets them go with `all` (broadcast) or
 * one signal each. */
void conditions(all)
    int all;
{
    unsigned i;

    Tmk_lock_acquire(2);
    if (Tmk_proc_id == 0) {
        while (sh->waiting < (int) Tmk_nprocs - 1)
            Tmk_lock_cond_wait(2, 1);
        sh->waiting = 0;
        if (all) {
            sh->go = 1;
            Tmk_lock_cond_broadcast(2, 0);
        } else
            for (i = 1; i < Tmk_nprocs; i++) {
                sh->tickets++;
                Tmk_lock_cond_signal(2, 3);
            }
    } else {
        if (++sh->waiting == (int) Tmk_nprocs - 1)
            Tmk_lock_cond_signal(2, 1);
        if (all)
            while (!sh->go)
                Tmk_lock_cond_wait(2, 0);
        else {
            while (sh->tickets == 0)
                Tmk_lock_cond_wait(2, 3);
            sh->tickets--;
            sh->taken++;
        }
    }
    Tmk_lock_release(2);
    Tmk_barrier(2);
}

main(argc, argv)
    int argc;
    char **argv;
{
    struct Tmk_sched_arg arg;
    unsigned i;
    int round;

    Tmk_startup(argc, argv);
    if (argc > 1 && strcmp(argv[1], "errexit") == 0 && Tmk_proc_id == Tmk_nprocs - 1)
        Tmk_errexit("stopped by process %u\nof %u\n", Tmk_proc_id, Tmk_nprocs);
    check(Tmk_page_size == 4096 && Tmk_npages > 0 && Tmk_nprocs <= TMK_NPROCS, "the sizes");

    if (Tmk_proc_id == 0) {
        if ((sh = (struct shared *) Tmk_malloc(sizeof(struct shared))) == 0)
            Tmk_errexit("out of shared memory");
        memset(sh, 0, sizeof(struct shared));
        if ((table = (int *) Tmk_sbrk(Tmk_nprocs * sizeof(int))) == 0)
            Tmk_errexit("out of shared memory");
        memset(table, 0, Tmk_nprocs * sizeof(int));
        Tmk_distribute((char *) &sh, sizeof(sh));
        Tmk_distribute(&table, sizeof(table));
    }
    Tmk_barrier(0);

    for (i = 0; i < 100; i++) {
        Tmk_lock_acquire(0);
        sh->count++;
        Tmk_lock_release(0);
    }
    Tmk_barrier(1);
    check(sh->count == 100 * (int) Tmk_nprocs, "the count made under a lock");
    check(Tmk_stat.acquires >= 100 && Tmk_stat.arrivals >= 2, "Tmk_stat");

    conditions(1);
    check(sh->go == 1, "the broadcast");
    conditions(0);
    check(sh->taken == (int) Tmk_nprocs - 1 && sh->tickets == 0, "the signals");
    if (Tmk_proc_id == 0)
        check(Tmk_stat.signals == Tmk_nprocs - 1 && Tmk_stat.broadcasts == 1,
              "the signals and broadcasts counted");
    else
        check(Tmk_stat.waits == 2, "the waits counted");

    if (Tmk_sched_start(0)) {
        for (round = 1; round <= 2; round++) {
            arg.sharedLen = 1;
            arg.byvalueLen = 1;
            arg.shared[0] = table;
            arg.byvalue[0].int_by_value = 1000 * round;
            Tmk_sched_fork(work, &arg);
            Tmk_sched_start(0);
        }
        Tmk_sched_exit();
    }
    Tmk_barrier(3);
    for (i = 0; i < Tmk_nprocs; i++)
        check(table[i] == 3000 + 2 * (int) i, "the work of the forked functions");
    Tmk_barrier(4);

    if (Tmk_proc_id == 0) {
        Tmk_free(sh);
        check((sh = (struct shared *) Tmk_malloc(sizeof(struct shared))) != 0,
              "Tmk_malloc after Tmk_free");
    }
    printf("process %u of %u: %s\n", Tmk_proc_id, Tmk_nprocs, bad ? "FAIL" : "OK");
    Tmk_exit(bad != 0);
}
