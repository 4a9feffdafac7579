/* Pages read one-sided from their home (coherence/hlrc/hlrc_onesided.c).
 * A home rewrites P pages every round while the other nodes read them
 * between barriers: each round's read must see that round's values. Over
 * ucx with TSR_FETCH=direct the readers get every page one-sided, P a
 * round each, and the home serves no page request at all: its release
 * learns of the copies from the marks the readers set. Under any other
 * transport, or by message, nothing is read one-sided.
 *
 * Then S more pages that the home writes every round but nobody reads
 * until the last rounds: cache-only detection leaves them sticky at the
 * home (written without faults), which a one-sided reader must not copy;
 * it asks for them, and the values must still be each round's. */
/* tsr-test: hlrc */
#include <stdio.h>
#include <string.h>

#include "counter.h"
#include "tessera.h"
#include "transport/core.h"
#include "util/config.h"

#define PAGE 4096
#define P 8
#define S 4
#define ROUNDS 12
#define WORDS (PAGE / sizeof(long))

static int check(const long *a, size_t pages, long r, const char *what)
{
    int bad = 0;
    for (size_t w = 0; w < pages * WORDS; w += 61)
        if (a[w] != r * 100000 + (long)w && bad++ < 5)
            printf("node %d, round %ld, %s: word %zu is %ld, want %ld\n", tsr_node(), r, what, w,
                   a[w], r * 100000 + (long)w);
    return bad;
}

static void write_round(long *a, size_t pages, long r)
{
    for (size_t w = 0; w < pages * WORDS; w += 61)
        a[w] = r * 100000 + (long)w;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), bad = 0;
    /* What the configuration promises, not what the runtime did. */
    int onesided = cfg.fetch_direct && cfg.proto != PROTO_LRC && tsr_nodes() > 1 &&
                   !strcmp(transport_name(), "ucx");
    tsr_attr at = TSR_ATTR_DEFAULT;
    at.home = TSR_HOME_NODE;
    at.home_node = 0;
    /* s first: readahead from a's pages, which goes up, must not take s's. */
    long *s = tsr_alloc_attr((size_t)S * PAGE, &at);
    long *a = tsr_alloc_attr((size_t)P * PAGE, &at);
    uint64_t got0 = counter("pages_got_onesided"), served0 = counter("pages_served");
    for (long r = 1; r <= ROUNDS; r++) {
        if (me == 0) {
            write_round(a, P, r);
            write_round(s, S, r);
        }
        tsr_barrier();
        if (me)
            bad += check(a, P, r, "read pages");
        tsr_barrier();
    }
    uint64_t got = counter("pages_got_onesided") - got0, served = counter("pages_served") - served0;
    if (me && onesided && got != (uint64_t)P * ROUNDS) {
        printf("node %d: %llu pages read one-sided, want %d\n", me, (unsigned long long)got,
               P * ROUNDS);
        bad++;
    }
    if (me == 0 && onesided && served) {
        printf("node 0: served %llu pages by message, want none\n", (unsigned long long)served);
        bad++;
    }
    if (!onesided && got) {
        printf("node %d: %llu pages read one-sided where none can be\n", me,
               (unsigned long long)got);
        bad++;
    }
    uint64_t refused0 = counter("onesided_refused");
    for (long r = ROUNDS + 1; r <= ROUNDS + 3; r++) {
        if (me == 0)
            write_round(s, S, r);
        tsr_barrier();
        if (me)
            bad += check(s, S, r, "sticky pages");
        tsr_barrier();
    }
    /* Only the first reader of a sticky page is sure to be refused: the
     * home protects the page when it serves that reader's request, and a
     * reader that comes after may then read it one-sided. So the readers'
     * refusals are summed, in a page homed at node 0. */
    long *refusals = tsr_alloc_attr(PAGE, &at);
    if (me)
        refusals[me] = (long)(counter("onesided_refused") - refused0);
    tsr_barrier();
    long refused = 0;
    for (int n = 1; n < tsr_nodes(); n++)
        refused += refusals[n];
    if (me == 0 && onesided && cfg.cache_only && cfg.detect == DETECT_SEGV && !refused) {
        printf("node 0: no one-sided read refused a sticky page\n");
        bad++;
    }
    tsr_finalize();
    if (!bad)
        printf("fetch_onesided: node %d ok (%s)\n", me,
               me == 0 ? "home" : onesided ? "one-sided reads" : "no one-sided reads");
    return bad != 0;
}
