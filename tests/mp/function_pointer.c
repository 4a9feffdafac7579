/* One address layout per job: a function pointer, and a pointer to a libc
 * function, stored in shared memory by the last node are called by every
 * other node after a barrier (without tsrun's layout, each node would
 * load the program and libc elsewhere). */
/* tsr-test: suite */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"

typedef struct table {
    long (*combine)(long, long);
    size_t (*length)(const char *);
    int writer;
} table;

static long add_scaled(long a, long b) { return a + 10 * b; }

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), last = tsr_nodes() - 1;
    table *t = tsr_alloc(sizeof *t);
    if (me == last)
        *t = (table){add_scaled, strlen, me};
    tsr_barrier();
    long got = t->combine(1, 2);
    size_t len = t->length("tessera");
    int ok = got == 21 && len == 7 && t->writer == last;
    printf("node %d: combine %ld length %zu written by node %d %s\n", me, got, len, t->writer,
           ok ? "PASS" : "FAIL");
    tsr_finalize();
    return !ok;
}
