/* diff_encode / diff_apply on random pages: single bytes, bytes at page
 * edges, every other byte, every other word, whole pages, random runs. The
 * diff applied to the twin must give the page back exactly; two diffs of
 * disjoint byte sets made against one twin must merge (false sharing); a
 * malformed diff must be rejected. */
#include "coherence/diff.h"
#include "check.h"

static void random_page(uint8_t *p)
{
    for (int i = 0; i < DIFF_PAGE; i++)
        p[i] = (uint8_t)rand();
}

static void roundtrip(const char *what, const uint8_t *twin, const uint8_t *cur)
{
    static uint8_t diff[DIFF_MAX], out[DIFF_PAGE];
    size_t len = diff_encode(twin, cur, diff);
    CHECK(len <= DIFF_MAX, "%s: diff of %zu bytes exceeds DIFF_MAX", what, len);
    memcpy(out, twin, DIFF_PAGE);
    CHECK(diff_apply(out, diff, len) == 0, "%s: apply rejected its own diff", what);
    CHECK(memcmp(out, cur, DIFF_PAGE) == 0, "%s: round trip differs", what);
    CHECK((len == 0) == (memcmp(twin, cur, DIFF_PAGE) == 0), "%s: empty iff unchanged", what);
}

static void patterns(void)
{
    static uint8_t twin[DIFF_PAGE], cur[DIFF_PAGE];
    random_page(twin);
    memcpy(cur, twin, DIFF_PAGE);
    roundtrip("unchanged", twin, cur);
    int edges[] = {0, 1, 7, 8, 4088, 4095};
    for (size_t e = 0; e < sizeof edges / sizeof *edges; e++) {
        memcpy(cur, twin, DIFF_PAGE);
        cur[edges[e]] ^= 0x5a;
        roundtrip("single byte", twin, cur);
    }
    memcpy(cur, twin, DIFF_PAGE);
    for (int i = 0; i < DIFF_PAGE; i += 2)
        cur[i] ^= 1;
    roundtrip("every other byte", twin, cur);
    memcpy(cur, twin, DIFF_PAGE);
    for (int i = 0; i < DIFF_PAGE; i += 8)
        memset(cur + i, ~twin[i], 4);
    roundtrip("every other word", twin, cur);
    for (int i = 0; i < DIFF_PAGE; i++)
        cur[i] = (uint8_t)~twin[i];
    roundtrip("whole page", twin, cur);
}

static void random_runs(int trials)
{
    static uint8_t twin[DIFF_PAGE], cur[DIFF_PAGE];
    for (int t = 0; t < trials; t++) {
        random_page(twin);
        memcpy(cur, twin, DIFF_PAGE);
        int runs = rand() % 64;
        for (int r = 0; r < runs; r++) {
            int at = rand() % DIFF_PAGE, len = 1 + rand() % 40;
            for (int i = at; i < at + len && i < DIFF_PAGE; i++)
                cur[i] = (uint8_t)rand();
        }
        roundtrip("random runs", twin, cur);
    }
}

/* Two writers change disjoint bytes (interleaved within words) of copies of
 * one page; both diffs applied to the home copy must keep both changes. */
static void merge(int trials)
{
    static uint8_t twin[DIFF_PAGE], a[DIFF_PAGE], b[DIFF_PAGE], want[DIFF_PAGE], home[DIFF_PAGE];
    static uint8_t da[DIFF_MAX], db[DIFF_MAX];
    for (int t = 0; t < trials; t++) {
        random_page(twin);
        memcpy(a, twin, DIFF_PAGE);
        memcpy(b, twin, DIFF_PAGE);
        memcpy(want, twin, DIFF_PAGE);
        for (int i = 0; i < DIFF_PAGE; i++) {
            if (rand() % 3)
                continue;
            uint8_t v = (uint8_t)(twin[i] + 1 + rand() % 255);
            (i % 2 ? a : b)[i] = v;
            want[i] = v;
        }
        size_t la = diff_encode(twin, a, da), lb = diff_encode(twin, b, db);
        memcpy(home, twin, DIFF_PAGE);
        diff_apply(home, db, lb);
        diff_apply(home, da, la);
        CHECK(memcmp(home, want, DIFF_PAGE) == 0, "merge of two writers lost bytes (trial %d)", t);
    }
}

static void malformed(void)
{
    uint8_t page[DIFF_PAGE] = {0};
    uint16_t past_end[2] = {4090, 10};
    uint16_t empty_run[2] = {5, 0};
    uint8_t truncated[6] = {0, 0, 8, 0, 1, 2};
    CHECK(diff_apply(page, (uint8_t *)past_end, sizeof past_end) < 0, "run past page end accepted");
    CHECK(diff_apply(page, (uint8_t *)empty_run, sizeof empty_run) < 0, "empty run accepted");
    CHECK(diff_apply(page, truncated, sizeof truncated) < 0, "truncated run accepted");
    CHECK(diff_apply(page, truncated, 3) < 0, "truncated header accepted");
}

int main(void)
{
    srand(12345);
    patterns();
    random_runs(2000);
    merge(500);
    malformed();
    return check_done("diff_roundtrip");
}
