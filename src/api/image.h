/*
 * image.h - a program's global variables named so that every node finds
 * them. All nodes run the same binary, but address-space layout
 * randomization loads it (and its shared libraries) at a different address
 * in each process, so a global's address differs between nodes while its
 * place in its loaded image does not: (image index in load order, offset
 * from the image's load address). This assumes that every node loads the
 * same images in the same order, which holds for one binary started by
 * tsrun (not for images loaded later with dlopen in a different order).
 * tsrun now gives every node one layout (docs/GLOBALS.md), where address
 * and (image, offset) agree; the naming is kept because TSR_ASLR=keep, or
 * another launcher, can still load the images at different addresses.
 */
#ifndef TSR_IMAGE_H
#define TSR_IMAGE_H

#include <stddef.h>
#include <stdint.h>

/* Finds the writable segment of a loaded image that holds [addr, addr+len).
 * Returns 0 and sets *image and *offset, or -1 if there is none. */
int image_locate(const void *addr, size_t len, uint32_t *image, uint64_t *offset);
/* This process's address of (image, offset), if [that, that+len) lies in a
 * writable segment of the image; else NULL. */
void *image_address(uint32_t image, uint64_t offset, size_t len);
/* The same for a function of the program (fork/join sends functions):
 * its place in an executable segment, and back. */
int image_locate_code(void (*fn)(void *), uint32_t *image, uint64_t *offset);
void (*image_code_address(uint32_t image, uint64_t offset))(void *);

#endif
