/*
 * uffd.h - what the userfaultfd backend (uffd.c) shares with its write
 * tracking (written.c).
 */
#ifndef TSR_DETECT_UFFD_H
#define TSR_DETECT_UFFD_H

#include <linux/userfaultfd.h>
#include <stddef.h>
#include <stdint.h>

/* A userfaultfd with `features`, serving kernel-mode faults too; -1 with
 * the reason in `why` when it cannot be had. */
int uffd_open(uint64_t features, char *why, size_t len);
/* Registers pages [first, first+n) with fd in `mode`; -1 on failure. */
int uffd_register(int fd, uint32_t first, uint32_t n, uint64_t mode);
/* Write-protects (mode UFFDIO_WRITEPROTECT_MODE_WP) or unprotects pages
 * [first, first+n) through fd; unprotecting wakes the threads waiting on
 * them unless mode has UFFDIO_WRITEPROTECT_MODE_DONTWAKE. */
void uffd_write_protect(int fd, uint32_t first, uint32_t n, uint64_t mode);
/* The application view's pages [first, first+n) as a userfaultfd range. */
struct uffdio_range uffd_range(uint32_t first, uint32_t n);
/* Takes pages out of the fault-serving context, and gives them back. */
void uffd_release(uint32_t first, uint32_t n);
void uffd_reclaim(uint32_t first, uint32_t n);

/* Write tracking (written.c): see detect_track_writes in detect.h. */
int uffd_track(uint32_t first, uint32_t n);
void uffd_untrack(uint32_t first, uint32_t n);
void uffd_written(uint32_t first, uint32_t n, void (*fn)(uint32_t page));

#endif
