/* A write to read_only memory is a runtime error naming the variable and
 * its annotation, and the job stops with a non-zero status. */
#include "munin_test.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    long *table = munin_alloc(4 * 4096, TSR_READ_ONLY);
    long sum = table[600];
    tsr_barrier();
    if (tsr_node() == tsr_nodes() - 1)
        table[1000] = sum + 1; /* not allowed */
    tsr_barrier();
    tsr_finalize();
    return 0;
}
