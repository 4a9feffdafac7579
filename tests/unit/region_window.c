/* Region windows (memory/region.h): pages shown at another address keep
 * their page numbers both ways (page_app, page_of, region_contains), share
 * the runtime view's memory, never make a run cross a window's edge
 * (region_run), and are forgotten by region_drop_windows. */
#include <stdlib.h>
#include <sys/mman.h>

#include "check.h"
#include "memory/region.h"
#include "util/config.h"

int main(void)
{
    /* TSR_BASE stays as the environment says: the sanitizer builds move it. */
    setenv("TSR_MEMORY", "64M", 1);
    config_load();
    region_init();
    /* Two areas, as the program's globals would be, away from TSR_BASE. */
    char *a = mmap(NULL, 8 * PAGE_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(a != MAP_FAILED, "mmap");
    char *b = a + 4 * PAGE_SIZE;
    region_add_window(a, 10, 2);
    region_add_window(b, 12, 3);

    CHECK(page_app(10) == a && page_app(11) == a + PAGE_SIZE, "window 1 at %p", (void *)page_app(10));
    CHECK(page_app(12) == b && page_app(14) == b + 2 * PAGE_SIZE, "window 2 at %p",
          (void *)page_app(12));
    CHECK(page_app(9) == region.app + 9 * PAGE_SIZE && page_app(15) == region.app + 15 * PAGE_SIZE,
          "pages beside the windows moved");
    CHECK(page_of(a + PAGE_SIZE + 5) == 11 && page_of(b) == 12 && page_of(b + 3 * PAGE_SIZE - 1) == 14,
          "page_of in the windows");
    CHECK(page_of(region.app + 20 * PAGE_SIZE) == 20, "page_of in the region");
    CHECK(region_contains(a) && region_contains(b + 3 * PAGE_SIZE - 1), "windows not contained");
    CHECK(!region_contains(a + 2 * PAGE_SIZE) && !region_contains(b + 3 * PAGE_SIZE),
          "a gap between or after the windows is contained");

    CHECK(region_run(0, 5) == 5 && region_run(15, 5) == 5, "runs away from the windows");
    CHECK(region_run(8, 10) == 2, "a run into window 1 gives %u, want 2", region_run(8, 10));
    CHECK(region_run(10, 10) == 2 && region_run(11, 1) == 1, "runs in window 1");
    CHECK(region_run(12, 10) == 3, "a run from window 2 gives %u, want 3", region_run(12, 10));

    a[PAGE_SIZE + 7] = 42;
    CHECK(page_rt(11)[7] == 42, "a window's page is not the runtime view's page");

    region_drop_windows();
    CHECK(page_app(10) == region.app + 10 * PAGE_SIZE && !region_contains(a),
          "windows remembered after region_drop_windows");
    return check_done("region_window");
}
