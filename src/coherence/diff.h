/*
 * diff.h - run-length byte diffs between a page and its twin (Munin's
 * "twin and diff", Section 3.3 of the paper).
 *
 * A diff is a sequence of runs: u16 offset, u16 length, then `length` bytes.
 * Runs are exact to the byte, never padded to words: C memory locations are
 * bytes, and two nodes that write different bytes of one word between two
 * synchronizations must both see their byte survive at the home.
 */
#ifndef TSR_DIFF_H
#define TSR_DIFF_H

#include <stddef.h>
#include <stdint.h>

#define DIFF_PAGE 4096
/* Worst case: a changed byte every other byte = 2048 runs of 1 byte + header. */
#define DIFF_MAX (DIFF_PAGE / 2 * 5)

/* Encodes the bytes of `cur` that differ from `twin` into out (DIFF_MAX
 * bytes of room); returns the diff's length, 0 when the page is unchanged. */
size_t diff_encode(const uint8_t *twin, const uint8_t *cur, uint8_t *out);
/* The run at *pos of a diff (pos < len): off and n bytes, which end at the
 * new *pos. Returns -1 when it is malformed (out of the page or
 * truncated). */
int diff_next_run(const uint8_t *diff, size_t len, size_t *pos, uint16_t *off, uint16_t *n);
/* Writes the runs of a diff into page; returns -1 if the diff is malformed
 * (a run out of the page or truncated), leaving the page partly patched.
 * With page NULL it only checks the diff. */
int diff_apply(uint8_t *page, const uint8_t *diff, size_t len);

#endif
