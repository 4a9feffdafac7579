/*
 * uffd.c - the `uffd` detection backend: userfaultfd over the application
 * view, served by a handler thread.
 *
 * The app view stays mapped read-write as one mapping, and the access bytes
 * are kept by the page tables instead of protections:
 *   NONE  - the app view's page table entries are zapped (MADV_DONTNEED on a
 *           shared mapping keeps the page cache, so the runtime view's bytes
 *           stay); the next access is a minor fault (or a missing one if the
 *           page was never touched);
 *   READ  - the entry is write-protected with userfaultfd (UFFDIO_WRITEPROTECT):
 *           a write is a write-protect fault;
 *   WRITE - a plain writable entry.
 * The handler thread reads fault events, calls the fault callback when the
 * page's access byte does not already allow the access, and then installs
 * the page as the byte says: UFFDIO_CONTINUE maps the page cache page (which
 * the protocol filled through the runtime view), write-protected for READ;
 * a write-protect fault on a page now WRITE is resolved by removing the
 * protection. Pages are installed lazily, so a fresh allocation costs no
 * page tables until it is touched.
 *
 * Since the kernel reports every fault on a registered range, whoever takes
 * it (the application thread, another user thread, or the kernel itself
 * inside read(2) or write(2)), all of them are served. The handler thread
 * must never touch the app view itself, and neither may the comm thread:
 * the handler waits for the comm thread while fetching.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "detect/backend.h"
#include "detect/detect.h"
#include "detect/uffd.h"
#include "memory/region.h"
#include "util/log.h"
#include "util/thread.h"

/* Kernel ABI (6.4+) that older installed headers lack. */
#ifndef UFFDIO_CONTINUE_MODE_WP
#define UFFDIO_CONTINUE_MODE_WP ((__u64)1 << 1)
#endif

/* Missing and minor faults on shmem, write protection of shmem, and the
 * faulting thread's id (to stop a thread that strays outside allocations). */
#define FEATURES                                                                               \
    (UFFD_FEATURE_MISSING_SHMEM | UFFD_FEATURE_MINOR_SHMEM | UFFD_FEATURE_WP_HUGETLBFS_SHMEM | \
     UFFD_FEATURE_PAGEFAULT_FLAG_WP | UFFD_FEATURE_THREAD_ID)
#define MODES (UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_MINOR | UFFDIO_REGISTER_MODE_WP)
#define NEEDED_IOCTLS ((__u64)1 << _UFFDIO_CONTINUE | (__u64)1 << _UFFDIO_WRITEPROTECT)

static int uffd = -1;
static pthread_t handler;

/* A userfaultfd that also serves kernel-mode faults (no UFFD_USER_MODE_ONLY):
 * through the system call (root, or vm.unprivileged_userfaultfd=1), else
 * through /dev/userfaultfd where this user may open it. */
int uffd_open(uint64_t features, char *why, size_t len)
{
    int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
    if (fd < 0 && errno == EPERM) {
        int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
        if (dev >= 0) {
            fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC);
            close(dev);
        }
    }
    if (fd < 0) {
        snprintf(why, len, "userfaultfd is not available: %s (it needs root, access to "
                 "/dev/userfaultfd, or vm.unprivileged_userfaultfd=1)", strerror(errno));
        return -1;
    }
    struct uffdio_api api = {.api = UFFD_API, .features = features};
    if (ioctl(fd, UFFDIO_API, &api)) {
        snprintf(why, len, "this kernel's userfaultfd lacks features 0x%llx on shared memory: %s",
                 (unsigned long long)features, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

struct uffdio_range uffd_range(uint32_t first, uint32_t n)
{
    return (struct uffdio_range){(uintptr_t)page_app(first), (uint64_t)n << PAGE_SHIFT};
}

/* Serving faults needs UFFDIO_CONTINUE and UFFDIO_WRITEPROTECT on the range. */
int uffd_register(int fd, uint32_t first, uint32_t n, uint64_t mode)
{
    struct uffdio_register reg = {.range = uffd_range(first, n), .mode = mode};
    if (ioctl(fd, UFFDIO_REGISTER, &reg))
        return -1;
    if (mode == MODES && (reg.ioctls & NEEDED_IOCTLS) != NEEDED_IOCTLS) {
        errno = ENOTSUP;
        return -1;
    }
    return 0;
}

void uffd_write_protect(int fd, uint32_t first, uint32_t n, uint64_t mode)
{
    struct uffdio_writeprotect wp = {uffd_range(first, n), mode};
    if (ioctl(fd, UFFDIO_WRITEPROTECT, &wp))
        log_die_status(1, "userfaultfd write protection of %u page(s) at %p failed: %s", n,
                       (void *)page_app(first), strerror(errno));
}

/* Only what `old` may have left in the page tables needs undoing: a NONE
 * page has no entry, a READ page's entry is write-protected. Removing the
 * protection wakes nobody: a thread waiting on the page's fault goes on only
 * when serve() has finished with it, after the protocol's callback has
 * returned. The callback grants the access before it is done with the page
 * (LRC records the page dirty after making it writable), and a thread woken
 * there could reach its next release before the page is recorded. */
static void uffd_apply(uint32_t first, uint32_t n, int old, int access)
{
    if (access == old)
        return;
    if (access == ACCESS_NONE) {
        if (madvise(page_app(first), (size_t)n << PAGE_SHIFT, MADV_DONTNEED))
            log_die_status(1, "cannot drop %u page(s) at %p from the application view: %s", n,
                           (void *)page_app(first), strerror(errno));
    } else if (old != ACCESS_NONE) {
        uffd_write_protect(uffd, first, n,
                           access == ACCESS_READ ? UFFDIO_WRITEPROTECT_MODE_WP
                                                 : UFFDIO_WRITEPROTECT_MODE_DONTWAKE);
    }
}

static void wake(uint32_t p)
{
    struct uffdio_range r = uffd_range(p, 1);
    ioctl(uffd, UFFDIO_WAKE, &r);
}

/* Maps page p, which has no entry, with `access`. A page never touched has
 * no page cache page yet: one is allocated (zero) first. */
static void install(uint32_t p, int access, int minor)
{
    if (access == ACCESS_NONE) {
        wake(p); /* dropped again meanwhile: the access faults anew */
        return;
    }
    if (!minor)
        fallocate(region.memfd, 0, (off_t)p << PAGE_SHIFT, PAGE_SIZE);
    struct uffdio_continue c = {.range = uffd_range(p, 1),
                                .mode = access == ACCESS_READ ? UFFDIO_CONTINUE_MODE_WP : 0};
    if (ioctl(uffd, UFFDIO_CONTINUE, &c) && errno != EEXIST && errno != EAGAIN)
        log_die_status(1, "cannot map page %p into the application view: %s",
                       (void *)page_app(p), strerror(errno));
    if (c.mapped < 0)
        wake(p); /* mapped meanwhile by another fault: the access retries */
}

/* A fault outside any allocation: the program's own crash, as under segv. */
static void refuse(void *addr, pid_t tid, int is_write)
{
    log_warn("%s unallocated shared memory at %p", is_write ? "write to" : "read from", addr);
    signal(SIGSEGV, SIG_DFL);
    syscall(SYS_tgkill, getpid(), tid, SIGSEGV);
}

static void serve(const struct uffd_msg *msg)
{
    uint64_t flags = msg->arg.pagefault.flags;
    void *addr = (void *)(uintptr_t)msg->arg.pagefault.address;
    uint32_t p = page_of(addr);
    int is_write = (flags & UFFD_PAGEFAULT_FLAG_WRITE) != 0;
    if (detect_access_of(p) < (is_write ? ACCESS_WRITE : ACCESS_READ) &&
        detect_fault(addr, is_write) < 0) {
        refuse(addr, (pid_t)msg->arg.pagefault.feat.ptid, is_write);
        return;
    }
    /* Another thread (Munin's comm thread) may lower the access while the
     * page is being mapped: it stores the byte, then drops the entry. If
     * that drop ran before the page was mapped, the byte read again here
     * shows it, and the drop is made again. */
    int access = detect_access_of(p);
    if (!(flags & UFFD_PAGEFAULT_FLAG_WP))
        install(p, access, (flags & UFFD_PAGEFAULT_FLAG_MINOR) != 0);
    else if (access == ACCESS_WRITE)
        uffd_write_protect(uffd, p, 1, 0); /* also wakes the faulting thread */
    else
        wake(p);
    int now = detect_access_of(p);
    if (now < access)
        uffd_apply(p, 1, access, now);
}

static void *handler_main(void *arg)
{
    struct uffd_msg msg;
    for (;;) {
        ssize_t got = read(uffd, &msg, sizeof msg);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got != sizeof msg)
            log_die_status(1, "reading userfaultfd events failed: %s",
                           got < 0 ? strerror(errno) : "short read");
        if (msg.event == UFFD_EVENT_PAGEFAULT)
            serve(&msg);
    }
    return NULL;
}

static int uffd_start(char *why, size_t len)
{
    uffd = uffd_open(FEATURES, why, len);
    if (uffd < 0)
        return -1;
    /* One read-write mapping for good: access lives in the page tables. */
    if (mprotect(region.app, region.size, PROT_READ | PROT_WRITE) ||
        uffd_register(uffd, 0, region.npages, MODES)) {
        snprintf(why, len, "cannot register the shared region with userfaultfd: %s",
                 strerror(errno));
        mprotect(region.app, region.size, PROT_NONE);
        close(uffd);
        return -1;
    }
    thread_start(&handler, handler_main, "the userfaultfd handler thread");
    return 0;
}

/* Pages whose writes the kernel records (written.c) leave this context for
 * one with asynchronous write protection; on untracking they come back. */
void uffd_reclaim(uint32_t first, uint32_t n)
{
    if (uffd_register(uffd, first, n, MODES))
        log_die_status(1, "cannot register %u page(s) at %p with userfaultfd again: %s", n,
                       (void *)page_app(first), strerror(errno));
}

void uffd_release(uint32_t first, uint32_t n)
{
    struct uffdio_range r = uffd_range(first, n);
    if (ioctl(uffd, UFFDIO_UNREGISTER, &r))
        log_die_status(1, "cannot unregister %u page(s) at %p from userfaultfd: %s", n,
                       (void *)page_app(first), strerror(errno));
}

/* A window's mapping is new: it joins the region's userfaultfd context. */
static void uffd_window(uint32_t first, uint32_t n) { uffd_reclaim(first, n); }

const detect_backend uffd_backend = {"uffd", 1, uffd_start, uffd_apply,
                                     uffd_track, uffd_untrack, uffd_written, uffd_window};
