/* Waits for messages that never come, one way per mode (argv[1]), and two
 * long waits that do end; tests/sh/wait_deadlock.sh asserts that the first
 * stop within seconds naming every wait (sync/deadlock.c) and that the
 * others finish with no deadlock reported.
 *
 *   recv_ring   every host jia_recv's from the next one
 *   recv_any    every host jia_recv's from any host
 *   wait_recv   host 0 in jia_wait, the others jia_recv from host 0
 *   cond        every process in Tmk_lock_cond_wait
 *   late_send   every host but the last jia_recv's from any host; the last
 *               sends to each after 3 s
 *   late_signal every process but the last waits on a condition for a
 *               flag that the last sets after 3 s, and broadcasts */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "jia.h"
#include "tmk.h"

static void jia_mode(const char *mode)
{
    char c = 0;
    int last = jiapid == jiahosts - 1;
    if (!strcmp(mode, "recv_ring"))
        jia_recv(&c, 1, (jiapid + 1) % jiahosts, 0);
    if (!strcmp(mode, "recv_any"))
        jia_recv(&c, 1, MSG_PROC_ALL, MSG_TAG_ALL);
    if (!strcmp(mode, "wait_recv")) {
        if (jiapid == 0)
            jia_wait();
        else
            jia_recv(&c, 1, 0, 0);
    }
    if (!strcmp(mode, "late_send")) {
        if (!last) {
            jia_recv(&c, 1, MSG_PROC_ALL, MSG_TAG_ALL);
        } else {
            sleep(3);
            for (int h = 0; h < jiahosts - 1; h++)
                jia_send(&c, 1, h, 0);
        }
    }
    printf("done\n");
    jia_exit();
}

static int *flag;

static void tmk_mode(const char *mode)
{
    if (Tmk_proc_id == 0) {
        flag = Tmk_malloc(sizeof *flag);
        *flag = 0;
        Tmk_distribute(&flag, sizeof flag);
    }
    Tmk_barrier(0);
    int last = Tmk_proc_id == Tmk_nprocs - 1;
    if (!strcmp(mode, "late_signal") && last) {
        sleep(3);
        Tmk_lock_acquire(0);
        *flag = 1;
        Tmk_lock_cond_broadcast(0, 0);
        Tmk_lock_release(0);
    } else {
        Tmk_lock_acquire(0);
        while (!*flag)
            Tmk_lock_cond_wait(0, 0);
        Tmk_lock_release(0);
    }
    printf("done\n");
    Tmk_exit(0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "cond") || !strcmp(mode, "late_signal")) {
        Tmk_startup(argc, argv);
        tmk_mode(mode);
    }
    jia_init(argc, argv);
    jia_mode(mode);
    return 0;
}
