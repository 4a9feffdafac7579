/* Message framing over the real transport: node 0 echoes payloads of many
 * sizes (0 bytes to 9 MiB, odd lengths, larger than the receive buffer) off
 * every other node, and checks every byte that comes back. */
/* tsr-test: suite */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"
#include "transport/transport.h"

static const size_t sizes[] = {0, 1, 3, 7, 8, 31, 64, 4095, 4096, 4097, 65536, 262143, 262144,
                               262145, 1000003, 9 << 20};

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int bad = 0;
    if (tsr_node() == 0) {
        size_t max = 9 << 20;
        unsigned char *out = malloc(max + 16), *back = malloc(max);
        for (size_t i = 0; i < max + 16; i++)
            out[i] = (unsigned char)(i * 131 + (i >> 11));
        for (int peer = 1; peer < tsr_nodes(); peer++)
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                memset(back, 0, sizes[k]);
                am_echo(peer, out + k, sizes[k], back);
                bad += memcmp(out + k, back, sizes[k]) != 0;
            }
        free(out);
        free(back);
    }
    tsr_barrier();
    printf("node %d: %d corrupted echoes %s\n", tsr_node(), bad, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
