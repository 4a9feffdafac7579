/* Shared memory given to the kernel or touched by a second thread:
 *   read    - read(2) from a file into invalid shared pages (a non-home node)
 *   write   - write(2) of invalid shared pages into a pipe
 *   thread  - a second user thread reads invalid shared pages
 *   freed   - the last node reads memory after tsr_free: it must crash
 *   maps    - every other page invalid: prints how many mappings the shared
 *             region has become (one per home run under uffd, one per
 *             page under segv)
 * The first three need a detection backend that serves faults taken inside
 * system calls and by any thread (TSR_DETECT=uffd); under another they print
 * SKIP with the reason and pass. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect/detect.h"
#include "tessera.h"

#define SLICE 8192 /* bytes per node: two pages */

static unsigned char pattern[SLICE];

static void die(const char *what)
{
    fprintf(stderr, "node %d: %s: FAIL\n", tsr_node(), what);
    exit(1);
}

/* Node 0 (the home of every page) writes `fill` everywhere, so that at the
 * barrier every other node's copy is invalid. */
static unsigned char *invalid_buffer(int fill)
{
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    attr.home_node = 0;
    unsigned char *buf = tsr_alloc_attr((size_t)SLICE * tsr_nodes(), &attr);
    if (tsr_node() == 0)
        memset(buf, fill, (size_t)SLICE * tsr_nodes());
    tsr_barrier();
    return buf;
}

static void check_read(void)
{
    unsigned char *buf = invalid_buffer(0xaa), *mine = buf + (size_t)SLICE * tsr_node();
    char path[] = "/tmp/tsr-detect-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, pattern, SLICE) != SLICE || lseek(fd, 0, SEEK_SET))
        die("cannot write the temporary file");
    unlink(path);
    ssize_t got = read(fd, mine, SLICE);
    if (got != SLICE) {
        perror("read into shared memory");
        die("read(2) into invalid shared pages");
    }
    close(fd);
    tsr_barrier();
    if (tsr_node() == 0)
        for (int i = 1; i < tsr_nodes(); i++)
            if (memcmp(buf + (size_t)SLICE * i, pattern, SLICE))
                die("the home does not see the bytes read(2) put in shared memory");
}

static void check_write(void)
{
    unsigned char *buf = invalid_buffer(0x5c), got[SLICE], want[SLICE];
    int fds[2];
    memset(want, 0x5c, SLICE);
    if (pipe(fds))
        die("pipe");
    if (write(fds[1], buf, SLICE) != SLICE) {
        perror("write from shared memory");
        die("write(2) of invalid shared pages");
    }
    if (read(fds[0], got, SLICE) != SLICE || memcmp(got, want, SLICE))
        die("the pipe does not carry the shared bytes");
    close(fds[0]);
    close(fds[1]);
}

/* The second thread touches shared memory only: the API is the
 * application thread's (it learns the size from it). */
static size_t thread_bytes;

static void *sum_pages(void *arg)
{
    long sum = 0;
    for (size_t i = 0; i < thread_bytes; i++)
        sum += ((volatile unsigned char *)arg)[i];
    return (void *)sum;
}

static void check_thread(void)
{
    unsigned char *buf = invalid_buffer(3);
    pthread_t t;
    void *sum;
    thread_bytes = (size_t)SLICE * tsr_nodes();
    if (pthread_create(&t, NULL, sum_pages, buf) || pthread_join(t, &sum))
        die("pthread");
    if ((long)sum != 3L * SLICE * tsr_nodes())
        die("a second thread reads the wrong shared bytes");
}

static void check_freed(void)
{
    volatile int *p = tsr_alloc(4096);
    p[0] = 1;
    tsr_free((void *)p);
    if (tsr_node() == tsr_nodes() - 1) {
        fprintf(stderr, "node %d: reading freed shared memory at %p\n", tsr_node(), (void *)p);
        if (p[0] != 12345)
            die("a read of freed shared memory did not crash");
    }
}

/* Mappings of /proc/self/maps that lie inside [lo, hi). */
static int mappings_within(const char *lo, const char *hi)
{
    FILE *f = fopen("/proc/self/maps", "r");
    unsigned long a, b;
    int count = 0;
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "%lx-%lx", &a, &b) == 2 && a < (unsigned long)hi && b > (unsigned long)lo)
            count++;
    if (f)
        fclose(f);
    return count;
}

static void check_maps(void)
{
    enum { PAGES = 64 };
    volatile unsigned char *buf = tsr_alloc(PAGES * 4096);
    if (tsr_node() == 0)
        for (int i = 0; i < PAGES; i += 2)
            buf[i * 4096] = 1;
    tsr_barrier();
    for (int i = 1; i < PAGES; i += 2)
        (void)buf[i * 4096];
    printf("node %d: %d mappings\n", tsr_node(),
           mappings_within((const char *)buf, (const char *)buf + PAGES * 4096));
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "";
    for (int i = 0; i < SLICE; i++)
        pattern[i] = (unsigned char)(i * 7 + 1);
    const char *verdict = "PASS";
    if (strcmp(mode, "freed") && strcmp(mode, "maps") && !detect_serves_kernel_faults()) {
        printf("node %d: SKIP %s: access detection '%s' does not serve faults taken inside "
               "system calls or by other threads (TSR_DETECT=uffd does)\n",
               tsr_node(), mode, detect_backend_name());
        verdict = "SKIPPED";
    } else if (!strcmp(mode, "read")) {
        check_read();
    } else if (!strcmp(mode, "write")) {
        check_write();
    } else if (!strcmp(mode, "thread")) {
        check_thread();
    } else if (!strcmp(mode, "freed")) {
        check_freed();
    } else if (!strcmp(mode, "maps")) {
        check_maps();
    } else {
        fprintf(stderr, "usage: detect_syscall read|write|thread|freed|maps\n");
        return 2;
    }
    int me = tsr_node();
    tsr_finalize();
    printf("node %d: %s %s\n", me, mode, verdict);
    return 0;
}
