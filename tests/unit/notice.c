/* Write-notice sets (coherence/notice.h), through their interface only:
 * versions only rise, clear empties, prune drops what another set covers,
 * count_since/encode give exactly the changes after a stamp, and the wire
 * form merges back into an equal set (rejecting a torn buffer). */
#include "check.h"
#include "coherence/notice.h"

/* Every set below is static: notice.h has no free, and a set reachable at
 * exit is not reported as a leak by the sanitizer build (make check-asan). */

static void add_get(void)
{
    static notice_set s;
    CHECK(notice_get(&s, 7) == 0, "empty set has a version for page 7");
    CHECK(notice_add(&s, 7, 3) == 1, "first notice of page 7 not a change");
    CHECK(notice_add(&s, 7, 3) == 0, "same version counted as a change");
    CHECK(notice_add(&s, 7, 2) == 0, "older version counted as a change");
    CHECK(notice_get(&s, 7) == 3, "older version lowered page 7 to %u", notice_get(&s, 7));
    CHECK(notice_add(&s, 7, 9) == 1, "newer version not a change");
    CHECK(notice_get(&s, 7) == 9, "page 7 at %u, want 9", notice_get(&s, 7));
    /* Enough pages to grow the set several times over. */
    for (uint32_t p = 100; p < 5100; p++)
        notice_add(&s, p, p * 2);
    int wrong = 0;
    for (uint32_t p = 100; p < 5100; p++)
        wrong += notice_get(&s, p) != p * 2;
    CHECK(wrong == 0, "%d of 5000 pages lost their version while the set grew", wrong);
    CHECK(notice_get(&s, 99) == 0 && notice_get(&s, 7) == 9, "growth disturbed other pages");
    notice_clear(&s);
    CHECK(notice_get(&s, 7) == 0 && notice_get(&s, 200) == 0, "clear left notices");
    CHECK(notice_count_since(&s, 0) == 0, "clear left %u entries", notice_count_since(&s, 0));
    CHECK(notice_add(&s, 7, 1) == 1, "a cleared page's old version still counts");
}

static void prune(void)
{
    static notice_set s, covered;
    notice_add(&s, 1, 5);
    notice_add(&s, 2, 5);
    notice_add(&s, 3, 5);
    notice_add(&covered, 1, 5); /* equal: covered */
    notice_add(&covered, 2, 9); /* newer: covered */
    notice_add(&covered, 3, 4); /* older: not covered */
    notice_add(&covered, 4, 1); /* absent from s */
    notice_prune(&s, &covered);
    CHECK(notice_get(&s, 1) == 0 && notice_get(&s, 2) == 0, "covered notices kept");
    CHECK(notice_get(&s, 3) == 5, "notice newer than the covering one dropped");
    CHECK(notice_get(&s, 4) == 0, "prune added a page");
    CHECK(notice_count_since(&s, 0) == 1, "%u entries after prune, want 1", notice_count_since(&s, 0));
}

/* The wire form of the changes after a stamp, merged into a fresh set. */
static void through_wire(const notice_set *s, uint32_t since, notice_set *t)
{
    static uint32_t buf[2 * 64];
    size_t len = notice_encode(s, since, buf);
    CHECK(len == notice_count_since(s, since) * NOTICE_WIRE, "encode wrote %zu bytes for %u notices",
          len, notice_count_since(s, since));
    CHECK(notice_merge_wire(t, buf, len) == 0, "merge rejected encode's output");
}

static void deltas(void)
{
    static notice_set s, all, delta;
    notice_add(&s, 10, 1);
    notice_add(&s, 11, 1);
    uint32_t stamp = s.clock; /* what a sender records after a send */
    CHECK(notice_count_since(&s, stamp) == 0, "changes after the latest stamp");
    notice_add(&s, 11, 2);
    notice_add(&s, 12, 1);
    notice_add(&s, 10, 1); /* no change: not a delta */
    CHECK(notice_count_since(&s, 0) == 3, "%u entries, want 3", notice_count_since(&s, 0));
    CHECK(notice_count_since(&s, stamp) == 2, "%u changed since the stamp, want 2",
          notice_count_since(&s, stamp));
    through_wire(&s, 0, &all);
    through_wire(&s, stamp, &delta);
    CHECK(notice_get(&all, 10) == 1 && notice_get(&all, 11) == 2 && notice_get(&all, 12) == 1,
          "full encoding did not round-trip");
    CHECK(notice_get(&delta, 10) == 0 && notice_get(&delta, 11) == 2 && notice_get(&delta, 12) == 1,
          "delta encoding carried the wrong pages");
}

static void merge_max(void)
{
    static notice_set s;
    uint32_t wire[] = {5, 3, 6, 1, 5, 2}; /* page 5 twice: the higher version wins */
    notice_add(&s, 6, 4);
    CHECK(notice_merge_wire(&s, wire, sizeof wire) == 0, "merge rejected a valid buffer");
    CHECK(notice_get(&s, 5) == 3, "page 5 at %u, want 3 (the maximum)", notice_get(&s, 5));
    CHECK(notice_get(&s, 6) == 4, "merge lowered page 6 to %u", notice_get(&s, 6));
    CHECK(notice_merge_wire(&s, wire, NOTICE_WIRE + 3) == -1, "torn buffer accepted");
    CHECK(notice_merge_wire(&s, wire, 0) == 0, "empty buffer rejected");
}

int main(void)
{
    add_get();
    prune();
    deltas();
    merge_max();
    return check_done("notice");
}
