/* One way for the last node to end the job, per mode (argv[1]), while the
 * others wait in a barrier; tests/sh/node_exit.sh checks that the node says
 * why on its stderr and that tsrun repeats it, whole.
 *   die       a misuse the runtime stops (log_die)
 *   long      the same with a reason longer than 115 bytes (a write to
 *             Munin read_only memory names two addresses and a size)
 *   exit3     the program's own exit(3) before tsr_finalize
 *   kill      SIGKILL, which no process can report itself
 *   segv      an access to an address no one mapped
 *   abort     abort()
 *   fpe       an integer division by zero
 *   status1   a return from main with status 1 after tsr_finalize (the
 *             program's own verdict, which tsrun reports as a failure) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"
#include "tessera_munin.h"

/* Read through volatile so that the compiler keeps what the mode asks. */
static volatile long zero, seven = 7;

static void end_this_node(const char *mode)
{
    if (!strcmp(mode, "die")) {
        tsr_attr a = TSR_ATTR_DEFAULT;
        a.home = TSR_HOME_NODE;
        a.home_node = tsr_nodes() + 5;
        tsr_alloc_attr(4096, &a);
    } else if (!strcmp(mode, "exit3")) {
        exit(3);
    } else if (!strcmp(mode, "kill")) {
        raise(SIGKILL);
    } else if (!strcmp(mode, "segv")) {
        *(volatile long *)(16 + zero) = 1;
    } else if (!strcmp(mode, "abort")) {
        abort();
    } else if (!strcmp(mode, "fpe")) {
        printf("%ld\n", seven / zero);
    }
    fprintf(stderr, "node_exit: mode %s did not end the node\n", mode);
    exit(2);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    if (argc != 2) {
        fprintf(stderr, "usage: node_exit die|long|exit3|kill|segv|abort|fpe|status1\n");
        return 2;
    }
    long *ro = NULL;
    if (!strcmp(argv[1], "long")) {
        tsr_attr a = TSR_ATTR_DEFAULT;
        a.proto = TSR_PROTO_MUNIN;
        a.annot = TSR_READ_ONLY;
        ro = tsr_alloc_attr(4096, &a);
    }
    if (tsr_node() == tsr_nodes() - 1 && strcmp(argv[1], "status1")) {
        if (ro)
            ro[1] = 1; /* not allowed: stops the node naming the variable */
        else
            end_this_node(argv[1]);
    }
    tsr_barrier();
    int last = tsr_node() == tsr_nodes() - 1;
    tsr_finalize();
    return last && !strcmp(argv[1], "status1");
}
