/* Helper of tests/sh/layout.sh: prints where this node's program, a libc
 * function, the heap and the stack lie, and whether randomisation is off. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/personality.h>

#include "tessera.h"

static int a_global;

int main(int argc, char **argv)
{
    int on_stack;
    void *heap = malloc(16);
    tsr_init(&argc, &argv);
    int persona = personality(0xffffffff);
    printf("node %d global=%p libc=%p heap=%p stack=%p norandom=%d\n", tsr_node(),
           (void *)&a_global, (void *)&printf, heap, (void *)&on_stack,
           (persona & ADDR_NO_RANDOMIZE) != 0);
    fflush(stdout);
    tsr_finalize();
    free(heap);
    return 0;
}
