/*
 * aslr.c - TSR_ASLR and the personality bit that gives every node of a job
 * the same address layout (aslr.h).
 */
#include "util/aslr.h"

#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/personality.h>

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

void aslr_restart(char **argv)
{
    if (aslr_keep() || !argv || !argv[0])
        return;
    int now = personality(0xffffffff);
    if (now == -1 || (now & ADDR_NO_RANDOMIZE) ||
        personality((unsigned long)now | ADDR_NO_RANDOMIZE) == -1)
        return;
    execv("/proc/self/exe", argv);
    /* Not restarted: the layout check at tsr_init says why the job stops. */
}
