/*
 * backend.h - what a transport backend provides to the active-message layer.
 * A shared-memory, UDP or MPI backend implements these and nothing above the
 * transport changes.
 */
#ifndef TSR_BACKEND_H
#define TSR_BACKEND_H

#include "transport/transport.h"

typedef struct tsr_backend {
    const char *name;
    /* Connects to every other node (bootstrap done) and starts progress. */
    void (*start)(void);
    /* Queues or writes m to dest (dest != self); never blocks on the peer. */
    void (*post)(int dest, am_msg *m);
    /* Delivers m to this node's own handlers from the progress thread. */
    void (*post_self)(am_msg *m);
    /* Tells the progress thread a reply is awaited (hybrid spin). */
    void (*expect_reply)(void);
    /* After every node said BYE: stops progress and closes connections. */
    void (*shutdown)(void);
} tsr_backend;

extern const tsr_backend tcp_backend;

#endif
