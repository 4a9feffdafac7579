/* The last node leaves without tsr_finalize while the others wait in a
 * barrier: they must stop with a message naming it, and tsrun must fail. */
#include <stdlib.h>

#include "tessera.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    if (tsr_node() == tsr_nodes() - 1)
        exit(0);
    tsr_barrier();
    tsr_finalize();
    return 0;
}
