/*
 * hooks.c - what a layer above (Themis' global address space, src/ga/)
 * asks to be run at every synchronization event, so that its own state,
 * which no coherence protocol sees, follows the same release-consistency
 * rules: `release` before this node's accesses must be visible to the
 * next holder (a lock's release, a barrier's arrival), `acquire` once
 * another node's may be (a lock's grant, a barrier's departure). Pause
 * flags are locks underneath, so they run both too. The layer above
 * registers; this one only calls back, never up by name.
 */
#include <stddef.h>

#include "sync/sync.h"

static void (*on_release)(void), (*on_acquire)(void);

void sync_set_hooks(void (*release)(void), void (*acquire)(void))
{
    on_release = release;
    on_acquire = acquire;
}

void sync_releasing(void)
{
    if (on_release)
        on_release();
}

void sync_acquired(void)
{
    if (on_acquire)
        on_acquire();
}
