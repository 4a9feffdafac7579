/* tsrun's descriptor budget (boot/budget.c): with tcp links on demand a
 * node needs room for the links every node opens (heartbeat ring, barrier
 * tree), not the mesh's N - 1, so a job whose mesh would pass the
 * system's fs.file-max is still accepted on demand; the per-process limit
 * is still raised toward the mesh's, since a node may come to talk to
 * every peer. */
#include <sys/resource.h>

#include "boot/budget.h"
#include "check.h"
#include "util/io.h"

int main(void)
{
    long mesh = budget_node(1024, 0), demand = budget_node(1024, 1);
    CHECK(mesh >= 1023, "a node of the 1,024-node mesh needs %ld descriptors", mesh);
    CHECK(demand >= 13 && demand < 100, "a node of 1,024 on demand needs %ld", demand);
    CHECK(budget_node(4, 1) == budget_node(4, 0), "4 nodes: 3 peers either way (%ld, %ld)",
          budget_node(4, 1), budget_node(4, 0));

    /* 4,096 nodes: the mesh holds about 17 million descriptors, on demand
     * about 4,096 times 50. */
    unsigned long long max = 0;
    io_read_number("/proc/sys/fs/file-max", &max);
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    char why[256] = "";
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 4096 + 200) {
        printf("budget: 4,096 nodes not tried: the hard descriptor limit is %llu\n",
               (unsigned long long)rl.rlim_max);
    } else {
        CHECK(!budget_fit(4096, 0, 1, why, sizeof why), "4,096 nodes on demand refused: %s", why);
        getrlimit(RLIMIT_NOFILE, &rl);
        CHECK(rl.rlim_cur >= (rlim_t)budget_node(4096, 0) || rl.rlim_cur == rl.rlim_max,
              "the soft limit %llu was not raised toward the mesh's %ld",
              (unsigned long long)rl.rlim_cur, budget_node(4096, 0));
        if (max && max < 4096ull * (unsigned long long)budget_node(4096, 0))
            CHECK(budget_fit(4096, 0, 0, why, sizeof why) && strstr(why, "fs.file-max"),
                  "4,096 nodes in a mesh accepted (file-max %llu): '%s'", max, why);
    }
    return check_done("budget");
}
