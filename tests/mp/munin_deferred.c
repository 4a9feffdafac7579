/*
 * Requests deferred behind an ownership transaction are all served, in
 * order, when it ends - also when one of them is a returned copy, which
 * starts no transaction of its own. Needs exactly 4 nodes.
 *
 * The manager of a conventional page (node 0) must find, in this order: a
 * write request (node 1), which must invalidate node 2's copy and so makes
 * the page busy; a returned copy (node 2, tsr_hint_invalidate); and a read
 * request (node 3). Node 3 stops node 0 with SIGSTOP, then each node in
 * turn sends its message and, once it is on its way (stats_posted counts
 * a message once the transport has it), hands over to the next with a
 * signal. Node 3 stops node 2, whose acknowledgement ends the transaction,
 * sends its own request, and resumes node 0. Node 0 reads its peers in
 * node order, so it defers the return and the read behind the write; once
 * it has deferred both (requests_deferred), it resumes node 2. Before the
 * fix, serving the return ended the deferral and node 3 waited forever
 * (the test script's time limit turns that into a failure). Every step
 * waits for the event it needs, not for time.
 *
 * Node 0's communication thread may have been stopped in the middle of a
 * pass over its peers: it then reads them from node 2 or 3 on, serves the
 * read at once, and defers fewer than two requests. Node 3, whose read
 * returned, resumes node 2 then: whatever order the messages take, the
 * job must finish and see node 1's write.
 */
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "munin_test.h"
#include "signal_when.h"
#include "stats/stats.h"

/* Waits until every thread of process pid is stopped (its comm thread
 * included: then no message to it is handled). */
static void wait_stopped(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    for (;;) {
        DIR *d = opendir(path);
        if (!d) {
            perror(path);
            exit(1);
        }
        int running = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            char stat[400], buf[256];
            if (e->d_name[0] == '.')
                continue;
            snprintf(stat, sizeof stat, "%s/%s/stat", path, e->d_name);
            FILE *f = fopen(stat, "r");
            if (!f || !fgets(buf, sizeof buf, f)) {
                running = 1;
            } else {
                char *state = strrchr(buf, ')');
                running |= !state || (state[2] != 'T' && state[2] != 't');
            }
            if (f)
                fclose(f);
        }
        closedir(d);
        if (!running)
            return;
        usleep(1000); /* only spaces the looks at /proc */
    }
}

/* Node 0, the manager: resumes node 2 once the return and the read wait
 * behind the write's transaction, which node 2's acknowledgement ends. */
static atomic_int job_done; /* node 0 passed the barrier after the requests */

static void *resume_when_deferred(void *node2)
{
    uint64_t deferred = 0;
    do {
        sched_yield();
        if (tsr_counter_get("requests_deferred", &deferred)) {
            fprintf(stderr, "munin_deferred: no counter requests_deferred\n");
            exit(1);
        }
    } while (deferred < 2 && !atomic_load(&job_done));
    if (deferred >= 2)
        kill(*(pid_t *)node2, SIGCONT);
    return NULL;
}

static void stop(pid_t pid)
{
    kill(pid, SIGSTOP);
    wait_stopped(pid);
}

static void wait_turn(const sigset_t *set)
{
    int sig;
    sigwait(set, &sig);
}

int main(int argc, char **argv)
{
    /* Blocked before tsr_init, so that the comm thread inherits the mask
     * and the turn signal waits for sigwait. */
    sigset_t turn;
    sigemptyset(&turn);
    sigaddset(&turn, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &turn, NULL);
    tsr_init(&argc, &argv);
    int me = tsr_node();
    if (tsr_nodes() != 4) {
        fprintf(stderr, "munin_deferred: needs 4 nodes, has %d\n", tsr_nodes());
        tsr_finalize();
        return 1;
    }
    pid_t *shared_pids = tsr_alloc(4 * sizeof *shared_pids), pids[4];
    long *page = munin_alloc_at(4096, TSR_CONVENTIONAL, 0);
    shared_pids[me] = getpid();
    tsr_barrier();
    /* Copied now: no node may need node 0 (their home) once it is stopped. */
    memcpy(pids, shared_pids, sizeof pids);
    if (me == 2)
        CHECK(page[0] == 0, "initial value %ld", page[0]); /* node 2 holds a copy */
    tsr_barrier();

    signal_when r; /* hands over once this node's message is on its way */
    pthread_t resumer;
    switch (me) {
    case 0:
        pthread_create(&resumer, NULL, resume_when_deferred, &pids[2]);
        break;
    case 1:
        wait_turn(&turn);
        signal_when_start(&r, stats_posted, 1, pids[2], SIGUSR1);
        page[0] = 42; /* the write request: node 2's copy must go */
        signal_when_join(&r);
        break;
    case 2:
        wait_turn(&turn);
        signal_when_start(&r, stats_posted, 1, pids[3], SIGUSR1);
        tsr_hint_invalidate(page); /* the return */
        signal_when_join(&r);
        break;
    case 3:
        stop(pids[0]);
        kill(pids[1], SIGUSR1);
        wait_turn(&turn);
        stop(pids[2]);
        signal_when_start(&r, stats_posted, 1, pids[0], SIGCONT);
        long seen = page[0]; /* the read request */
        CHECK(seen == 0 || seen == 42, "node 3 read %ld, neither 0 nor node 1's 42", seen);
        kill(pids[2], SIGCONT); /* served at once: node 0 did not defer it */
        signal_when_join(&r);
        break;
    }
    tsr_barrier();
    if (me == 0) {
        atomic_store(&job_done, 1);
        pthread_join(resumer, NULL);
    }
    CHECK(page[0] == 42, "node %d read %ld after the barrier, not node 1's 42", me, page[0]);
    tsr_barrier();
    return munin_finish("munin_deferred");
}
