/* A node that sends tsrun statistics notes of its own before tsr_finalize,
 * for tests/sh/launcher.sh: a well-formed one, which joins the job's table
 * as a counter, and one whose name holds a byte no counter name has, which
 * tsrun must refuse, naming the node, and which must not reach the table. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"
#include "boot/boot_proto.h"
#include "tessera.h"
#include "util/io.h"

static void send_note(const char *name, uint64_t value)
{
    boot_stat s = {BOOT_MAGIC, BOOT_STAT, BOOT_STAT_COUNT, {0}, value, {0}};
    memcpy(s.name, name, strlen(name));
    io_write_all(boot.launcher_fd, &s, sizeof s);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    if (tsr_node() == 1) {
        send_note("forged_ok", 7);
        send_note("forged\x1b[2J", 9);
    }
    tsr_finalize();
    return 0;
}
