/* A program with its own SIGSEGV handler, installed after tsr_init (with
 * sigaction, or with signal given "signal"): shared memory still works
 * across nodes, and the program's handler still gets its own faults. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "tessera.h"

#define ROUNDS 50

static sigjmp_buf back;
static volatile sig_atomic_t caught;

static void on_segv(int sig)
{
    caught++;
    siglongjmp(back, 1);
}

static void on_segv_info(int sig, siginfo_t *info, void *uctx) { on_segv(sig); }

static void install(int with_signal)
{
    if (with_signal) {
        signal(SIGSEGV, on_segv);
        return;
    }
    struct sigaction sa, now;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv_info;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGSEGV, NULL, &now);
    if (now.sa_sigaction != on_segv_info)
        printf("FAIL: sigaction does not give back the program's handler\n");
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    install(argc > 1 && !strcmp(argv[1], "signal"));
    long *counter = tsr_alloc(sizeof *counter);
    for (int i = 0; i < ROUNDS; i++) {
        tsr_lock(0);
        (*counter)++;
        tsr_unlock(0);
    }
    tsr_barrier();
    long want = (long)ROUNDS * tsr_nodes();
    printf("node %d: counter %ld want %ld %s\n", tsr_node(), *counter, want,
           *counter == want ? "PASS" : "FAIL");
    /* An address that was mapped a moment ago and no longer is. */
    volatile int *wild = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap((void *)wild, 4096);
    if (!sigsetjmp(back, 1))
        *wild = 42;
    printf("node %d: own handler ran %d time(s)\n", tsr_node(), (int)caught);
    tsr_barrier();
    tsr_finalize();
    return 0;
}
