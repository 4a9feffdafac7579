/*
 * globals.h - the program's ordinary globals in shared memory
 * (TSR_SHARE_GLOBALS=1; docs/GLOBALS.md).
 *
 * The writable data of the executable (its .data and .bss, whole pages) is
 * moved at tsr_init into the shared region at its own addresses: its pages
 * become one allocation, homed at node 0 and kept by the default protocol,
 * shown at the globals' addresses through region windows (region.h). The
 * runtime's own globals stay private: the library's objects keep their
 * data in sections of their own (tsr_private_data, tsr_private_bss,
 * src/private.ld), page-aligned, which are left out. At tsr_finalize the
 * pages become private memory again, holding the job's final values.
 */
#ifndef TSR_GLOBALS_H
#define TSR_GLOBALS_H

/* Shares the globals if TSR_SHARE_GLOBALS=1; after coh_init, before the
 * transport starts (node 0's restoring writes need no message). Exits
 * naming the cause when the program cannot have them shared. */
void globals_share(void);
/* After tsr_finalize's barrier: every node fetches the final contents and
 * keeps them as private memory, so the program may read its globals (and
 * libc its copies of stdout, environ...) after tsr_finalize. */
void globals_unshare(void);

#endif
