/* tsr-test: suite */
/* The job of issue 42 and bench/scale_startup.py: start, take a lock and
 * add one to a shared counter, pass two barriers, leave. Node 0 checks
 * that every node added its one and prints "scale N PASS" after the
 * first barrier (the start-up time's end); every node prints "memory
 * NODE KB", the most memory it had resident (VmHWM: this program's own,
 * not its launcher's before exec). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"

static long resident_peak_kb(void)
{
    char line[128];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6))
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    long *count = tsr_alloc(sizeof *count);
    tsr_lock(0);
    (*count)++;
    tsr_unlock(0);
    tsr_barrier();
    int pass = *count == tsr_nodes();
    if (tsr_node() == 0)
        printf("scale %d %s (count %ld)\n", tsr_nodes(), pass ? "PASS" : "FAIL", *count);
    printf("memory %d %ld\n", tsr_node(), resident_peak_kb());
    fflush(stdout);
    tsr_barrier();
    tsr_finalize();
    return !pass;
}
