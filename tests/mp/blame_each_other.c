/* Every node stops at once because, it says, the next one failed (as the
 * nodes of a start-up whose mesh timed out did at 512 nodes): tsrun must
 * still end the job non-zero naming a node, though no node's own exit is
 * left to wait for (tests/sh/node_exit.sh). */
#include "boot/boot.h"
#include "tessera.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    tsr_barrier();
    boot_stop((tsr_node() + 1) % tsr_nodes(), "was blamed by every other node", -1);
}
