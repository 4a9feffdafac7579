/* util/io.c under a storm of signals whose handler is installed without
 * SA_RESTART (as a profiler's interval timer is): every blocking call in
 * it fails with EINTR again and again, and each function must still read
 * and write every byte, and wait and sleep as long as it was asked. The
 * handler counts the signals, so the test shows that they did interrupt. */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>

#include "check.h"
#include "util/cpu.h"
#include "util/io.h"

#define BIG (1 << 20) /* more than a pipe holds: writes block and are interrupted */

static volatile sig_atomic_t signals;
static void on_alarm(int sig) { signals++; }

static int pipefd[2];
static char out[BIG], in[BIG];

/* Writes `out` in three pieces, 30 ms apart. */
static void *slow_writer(void *arg)
{
    for (int k = 0; k < 3; k++) {
        io_sleep(0.03);
        io_write_all(pipefd[1], out + k * (BIG / 4), BIG / 4);
    }
    io_write_all(pipefd[1], out + 3 * (BIG / 4), BIG / 4);
    return NULL;
}

/* Reads `in` in small pieces, slowly, so that the writer blocks. */
static void *slow_reader(void *arg)
{
    io_sleep(0.05);
    CHECK(io_read_full(pipefd[0], in, BIG, now_s() + 10) == 0, "slow reader got everything");
    return NULL;
}

static void storm(long every_us)
{
    struct sigaction sa = {.sa_handler = on_alarm}; /* no SA_RESTART */
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, every_us}, {0, every_us}};
    setitimer(ITIMER_REAL, &it, NULL);
}

static void fill(void)
{
    for (int i = 0; i < BIG; i++)
        out[i] = (char)(i * 7 + 3);
    memset(in, 0, sizeof in);
    if (pipe(pipefd)) {
        perror("pipe");
        exit(2);
    }
}

int main(void)
{
    /* The main thread takes every signal; the helpers block them. */
    sigset_t alarm;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    storm(2000);

    fill();
    pthread_t t;
    pthread_sigmask(SIG_BLOCK, &alarm, NULL);
    pthread_create(&t, NULL, slow_writer, NULL);
    pthread_sigmask(SIG_UNBLOCK, &alarm, NULL);
    int before = signals;
    CHECK(io_read_full(pipefd[0], in, BIG, now_s() + 10) == 0, "io_read_full read everything");
    pthread_join(t, NULL);
    CHECK(!memcmp(in, out, BIG), "io_read_full's bytes are the ones written");
    CHECK(signals > before, "signals interrupted the read (%d)", signals - before);
    close(pipefd[0]);
    close(pipefd[1]);

    fill();
    pthread_sigmask(SIG_BLOCK, &alarm, NULL);
    pthread_create(&t, NULL, slow_reader, NULL);
    pthread_sigmask(SIG_UNBLOCK, &alarm, NULL);
    before = signals;
    CHECK(io_write_all(pipefd[1], out, BIG) == 0, "io_write_all wrote everything");
    pthread_join(t, NULL);
    CHECK(!memcmp(in, out, BIG), "io_write_all's bytes arrived");
    CHECK(signals > before, "signals interrupted the write (%d)", signals - before);

    double t0 = now_s();
    before = signals;
    io_sleep(0.2);
    CHECK(now_s() - t0 >= 0.2, "io_sleep slept its time (%.3f s)", now_s() - t0);
    CHECK(signals > before, "signals interrupted the sleep");

    t0 = now_s();
    CHECK(io_wait(pipefd[0], POLLIN, t0 + 0.1) == 0, "io_wait on a silent pipe reaches its deadline");
    CHECK(now_s() - t0 >= 0.1, "io_wait waited until its deadline (%.3f s)", now_s() - t0);
    return check_done("io_eintr");
}
