/*
 * aslr.c - TSR_ASLR and the personality bit that gives every node of a job
 * the same address layout (aslr.h).
 */
#include "util/aslr.h"

#include <stdlib.h>
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
