/*
 * tmk_queue.c - a work queue, written the way TreadMarks' examples are
 * (<Tmk.h>, Tmk_errexit where an allocation fails), using the rest of its
 * API: Tmk_sched_fork runs the workers on every process; process 0
 * produces tasks into a bounded queue in Tmk_sbrk memory and takes tasks
 * itself when the queue is full; the others take tasks, waiting on a
 * condition variable of the queue's lock while it is empty; Tmk_stat says
 * what it cost.
 *
 *   tsrun -n 4 tmk_queue [tasks]
 *
 * Process 0 prints the number of tasks done and the sum of their results,
 * the same for any number of processes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#include <Tmk.h>

#define QUEUE 8
#define LOCK 0
#define NOT_EMPTY 0

struct queue {
    int head, tail;     /* tasks [head, tail) are queued, at index % QUEUE */
    int produced, done; /* tasks made so far; tasks finished */
    int task[QUEUE];
    double sum;         /* the results of the finished tasks */
};

static int tasks = 200;

/* A task: the sum of k * k for k up to a few thousand. */
static double run(int t)
{
    double s = 0;
    for (int k = 0; k <= 1000 + t % 97 * 50; k++)
        s += (double)k * k;
    return s;
}

static void finish(struct queue *q, double result)
{
    Tmk_lock_acquire(LOCK);
    q->sum += result;
    q->done++;
    Tmk_lock_release(LOCK);
}

/* Takes a task, or returns -1 once every task has been made and taken.
 * Process 0 never waits: it makes the tasks. */
static int take(struct queue *q)
{
    int t = -1;
    Tmk_lock_acquire(LOCK);
    for (;;) {
        if (Tmk_proc_id == 0 && q->produced < tasks && q->tail - q->head < QUEUE) {
            q->task[q->tail++ % QUEUE] = q->produced++;
            Tmk_lock_cond_signal(LOCK, NOT_EMPTY);
            if (q->produced == tasks)
                Tmk_lock_cond_broadcast(LOCK, NOT_EMPTY);
            continue;
        }
        if (q->head < q->tail) {
            t = q->task[q->head++ % QUEUE];
            break;
        }
        if (q->produced == tasks)
            break;
        Tmk_lock_cond_wait(LOCK, NOT_EMPTY);
    }
    Tmk_lock_release(LOCK);
    return t;
}

static void worker(Tmk_sched_arg_t arg)
{
    struct queue *q = arg->shared[0];
    int t;
    while ((t = take(q)) >= 0)
        finish(q, run(t));
}

int main(int argc, char **argv)
{
    struct Tmk_sched_arg arg = {.sharedLen = 1};
    struct timeval start, end;
    if (argc > 1)
        tasks = atoi(argv[1]);
    Tmk_startup(argc, argv);
    if (!Tmk_sched_start(0))
        Tmk_exit(0); /* a worker: Tmk_sched_exit has ended the loop */

    struct queue *q = Tmk_sbrk(sizeof *q);
    if (!q)
        Tmk_errexit("out of shared memory for the queue");
    *q = (struct queue){0};
    gettimeofday(&start, NULL);
    arg.shared[0] = q;
    Tmk_sched_fork(worker, &arg);
    Tmk_sched_start(0); /* the join: every worker has finished */
    gettimeofday(&end, NULL);
    if (q->done != tasks)
        Tmk_errexit("%d tasks done of %d", q->done, tasks);
    printf("tasks %d, sum of results %.0f\n", q->done, q->sum);
    printf("time %.3f s; process 0: %u messages, %u lock acquires, %u signals, %u broadcasts\n",
           (end.tv_sec - start.tv_sec) + (end.tv_usec - start.tv_usec) / 1e6, Tmk_stat.messages,
           Tmk_stat.acquires, Tmk_stat.signals, Tmk_stat.broadcasts);
    Tmk_free(q);
    Tmk_sched_exit();
    Tmk_exit(0);
}
