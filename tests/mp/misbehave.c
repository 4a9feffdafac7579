/* One node misbehaves, the others run a normal job; tsrun must name the one
 * that misbehaved, whatever the others report.
 *
 *   misbehave exit NODE STATUS   NODE calls exit(STATUS) after tsr_init
 *   misbehave quit NODE          NODE exits 0 before calling tsr_init
 *   misbehave hang NODE          NODE never calls tsr_init (sleeps)
 *
 * The others join, wait in a barrier and leave. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tessera.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: misbehave exit|quit|hang NODE [STATUS]\n");
        return 2;
    }
    const char *mode = argv[1], *me = getenv("TSR_NODE");
    int culprit = me && atoi(me) == atoi(argv[2]);
    if (culprit && !strcmp(mode, "quit"))
        return 0;
    if (culprit && !strcmp(mode, "hang"))
        for (;;)
            pause();
    tsr_init(&argc, &argv);
    if (culprit && !strcmp(mode, "exit"))
        exit(argc > 3 ? atoi(argv[3]) : 3);
    tsr_barrier();
    tsr_finalize();
    return 0;
}
