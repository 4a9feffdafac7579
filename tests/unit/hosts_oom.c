/* launcher/hosts.c when memory runs out while it parses `tsrun -H`: each
 * allocation in turn fails, and the parse must fail saying so, with the
 * list still whole (the hosts added before, in the block realloc left
 * live). hosts.c is compiled in here with its realloc and strdup replaced:
 * this realloc always moves the block, as a real one may, so a list left
 * pointing at the old block shows. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int calls, fail_at; /* the allocation that fails (1: the first) */
static void *live;         /* the block the last realloc returned */

static void *moving_realloc(void *p, size_t n)
{
    if (++calls == fail_at)
        return NULL;
    void *q = malloc(n);
    if (q && p) {
        size_t old = malloc_usable_size(p);
        memcpy(q, p, old < n ? old : n);
        free(p);
    }
    return live = q;
}

static char *failing_strdup(const char *s) { return ++calls == fail_at ? NULL : strdup(s); }

#define realloc moving_realloc
#define strdup failing_strdup
#include "launcher/hosts.c"
#undef realloc
#undef strdup

static void free_list(host_list *hl)
{
    for (int i = 0; i < hl->count; i++)
        free(hl->host[i].name);
    free(hl->host);
}

int main(void)
{
    /* Allocations in order: the spec's copy, then for each host the list's
     * realloc and the name's copy. */
    for (fail_at = 1; fail_at <= 7; fail_at++) {
        host_list hl = {0};
        char why[128] = "";
        calls = 0;
        live = NULL;
        int rc = hosts_parse_list(&hl, "a,b:2,c", why, sizeof why);
        int added = fail_at <= 2 ? 0 : (fail_at - 2) / 2; /* hosts in before the failure */
        CHECK(rc == -1 && !strcmp(why, "out of memory for the host list"),
              "allocation %d failed: rc %d, why '%s'", fail_at, rc, why);
        CHECK(hl.count == added && hl.host == live,
              "allocation %d failed: %d hosts kept (want %d), list %s the live block", fail_at,
              hl.count, added, hl.host == live ? "in" : "not in");
        for (int i = 0; i < hl.count && hl.host == live; i++)
            CHECK(!strcmp(hl.host[i].name, i ? "b" : "a"), "allocation %d failed: host %d is %s",
                  fail_at, i, hl.host[i].name);
        if (hl.host == live)
            free_list(&hl);
    }
    host_list hl = {0};
    char why[128] = "";
    fail_at = 0;
    CHECK(hosts_parse_list(&hl, "a,b:2,c", why, sizeof why) == 0 && hl.count == 3 &&
              hl.slots == 4, "with memory enough: %d hosts, %d slots (%s)", hl.count, hl.slots,
          why);
    free_list(&hl);
    return check_done("hosts_oom");
}
