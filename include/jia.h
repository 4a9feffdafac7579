/*
 * jia.h - JIAJIA 2.1's programming interface, on Tessera. A program written
 * for JIAJIA compiles unchanged against this header and links with
 * libtessera (`pkg-config --cflags --libs tessera`); start it with
 * `tsrun -n N prog` (no .jiahosts file), or alone as a one-host job.
 *
 * Shared memory is kept by home-based lazy release consistency, JIAJIA's
 * own protocol, with the page homes JIAJIA's allocation calls ask for.
 * What differs: jiapid and jiahosts are variables, not macros; lock ids are
 * 0 .. 4095; memory is limited by TSR_MEMORY, not by JIAJIA's compiled-in
 * Maxmemsize.
 */
#ifndef JIA_H
#define JIA_H

#include "tessera.h" /* TSR_API */

#ifdef __cplusplus
extern "C" {
#endif

/* This host's id, 0 .. jiahosts-1, and the number of hosts; set by jia_init. */
extern TSR_API int jiapid;
extern TSR_API int jiahosts;

/* Joins the job; every host calls it first. */
TSR_API void jia_init(int argc, char **argv);
/* Every host calls it last: waits for the others (a barrier) and leaves the
 * job. The process goes on. */
TSR_API void jia_exit(void);

/* Every host calls these with the same arguments in the same order and gets
 * the same address, zeroed and page aligned (cast it). jia_alloc3 homes
 * `block` bytes (rounded up to pages) at host `starthost`, the next block
 * at the next host, and so on round robin. jia_alloc2 starts at host 0.
 * jia_alloc, as in JIAJIA, homes all of an allocation at one host: host 0
 * for the first call, host 1 for the second, and so on round robin. */
TSR_API unsigned long jia_alloc3(int size, int block, int starthost);
TSR_API unsigned long jia_alloc2(int size, int block);
TSR_API unsigned long jia_alloc(int size);

TSR_API void jia_lock(int lockid);
TSR_API void jia_unlock(int lockid);
/* All hosts; every write made before it is visible after it. */
TSR_API void jia_barrier(void);
/* Seconds since jia_init. */
TSR_API float jia_clock(void);

#ifdef __cplusplus
}
#endif
#endif /* JIA_H */
