/*
 * aslr.c - TSR_ASLR and the personality bit that gives every node of a job
 * the same address layout (aslr.h).
 */
#include "util/aslr.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>

int aslr_keep(void)
{
    const char *s = getenv("TSR_ASLR");
    if (!s || !*s || !strcmp(s, "off"))
        return 0;
    return strcmp(s, "keep") ? -1 : 1;
}

int aslr_prepare_exec(void)
{
    if (aslr_keep())
        return 0;
    int now = personality(0xffffffff);
    if (now == -1 || personality((unsigned long)now | ADDR_NO_RANDOMIZE) == -1)
        return -1;
    return 0;
}

/* The program's own file, by the path it was started from when that path
 * still names it: the kernel names a process after the file it executes,
 * and a restart through /proc/self/exe would call every node `exe`
 * (pgrep, top and killall would miss them). */
static const char *own_path(void)
{
    static char path[PATH_MAX];
    struct stat now, there;
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0 || stat("/proc/self/exe", &now))
        return "/proc/self/exe";
    path[n] = 0;
    if (stat(path, &there) || there.st_dev != now.st_dev || there.st_ino != now.st_ino)
        return "/proc/self/exe"; /* replaced or deleted since */
    return path;
}

void aslr_restart(char **argv)
{
    if (aslr_keep() || !argv || !argv[0])
        return;
    int now = personality(0xffffffff);
    if (now == -1 || (now & ADDR_NO_RANDOMIZE) ||
        personality((unsigned long)now | ADDR_NO_RANDOMIZE) == -1)
        return;
    execv(own_path(), argv);
    /* Not restarted: the layout check at tsr_init says why the job stops. */
}
