/* Makes one Themis call with the bad argument named by argv[1], which
 * Tessera must refuse with a message naming it (tests/sh/ga_bad_args.sh). */
#include <stdio.h>
#include <string.h>

#include "tessera_ga.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    const char *c = argc > 1 ? argv[1] : "";
    tsr_ga_attr attr = TSR_GA_ATTR_DEFAULT;
    if (!strcmp(c, "engine"))
        attr.engine = (tsr_ga_engine)9;
    if (!strcmp(c, "node_bits"))
        attr.cache_node_bits = 13;
    tsr_ga *ga = tsr_ga_alloc(!strcmp(c, "size0") ? 0 : 64, &attr);
    int peer = (tsr_node() + 1) % tsr_nodes();
    if (!strcmp(c, "node"))
        tsr_ga_read32(ga, tsr_nodes(), 0);
    if (!strcmp(c, "past_end"))
        tsr_ga_write64(ga, peer, 64, 1);
    if (!strcmp(c, "misaligned"))
        tsr_ga_read32(ga, peer, 6);
    if (!strcmp(c, "signal_null"))
        tsr_ga_read8_async(ga, peer, 0, (uint8_t *)tsr_ga_local(ga), NULL);
    if (!strcmp(c, "bulk_past_end"))
        tsr_ga_get(ga, peer, 60, tsr_ga_local(ga), 8);
    if (!strcmp(c, "freed")) {
        tsr_ga_free(ga);
        tsr_ga_read8(ga, peer, 0);
    }
    printf("node %d: case '%s' was not refused\n", tsr_node(), c);
    tsr_finalize();
    return 0;
}
