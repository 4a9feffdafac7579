/*
 * diff.c - libFuzzer target: random bytes as the payload of a diff message
 * (coherence/outbox.h's entries), each entry's diff applied to a page
 * (coherence/diff.c), and the whole input applied as one diff. A diff that
 * diff_apply(NULL, ...) accepts must apply without touching anything
 * outside the page; one it refuses must be refused when applied too.
 */
#include <stdint.h>
#include <stdlib.h>

#include "coherence/diff.h"
#include "coherence/outbox.h"

static uint8_t page[DIFF_PAGE];

static void apply(const uint8_t *diff, size_t len)
{
    int valid = diff_apply(NULL, diff, len) == 0;
    if ((diff_apply(page, diff, len) == 0) != valid)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apply(data, size);
    size_t pos = 0;
    for (int i = 0; i < 64; i++) {
        outbox_entry e;
        if (outbox_next(data, size, &pos, &e))
            break;
        if (e.bytes < data || e.bytes + e.len > data + size)
            abort();
        apply(e.bytes, e.len);
    }
    return 0;
}
