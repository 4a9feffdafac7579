/* Node 1 stops on its own error (a lock id out of range) right after
 * tsr_init, while node 0 may still be mapping its memory for direct page
 * copies (tests/sh/peer_error.sh). */
#include "tessera.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    if (tsr_node() == 1)
        tsr_lock(-1);
    tsr_barrier();
    tsr_finalize();
    return 0;
}
