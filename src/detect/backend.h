/*
 * backend.h - what an access detection backend provides (detect.h says what
 * the layer does; detect.c chooses a backend and keeps the access bytes).
 */
#ifndef TSR_DETECT_BACKEND_H
#define TSR_DETECT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

typedef struct detect_backend {
    const char *name;
    /* 1 when it serves faults taken in system calls and by any thread. */
    int kernel_faults;
    /* Sets itself up over the region. Returns -1 with the reason in `why`
     * when this machine cannot run it. */
    int (*start)(char *why, size_t len);
    /* Makes the hardware give pages [first, first+n), whose access byte was
     * `old` for all of them and is now `access`, that access. Async-signal-
     * safe. */
    void (*apply)(uint32_t first, uint32_t n, int old, int access);
    /* Optional (NULL: cannot), write tracking without faults: see
     * detect_track_writes and the two after it in detect.h. */
    int (*track)(uint32_t first, uint32_t n);
    void (*untrack)(uint32_t first, uint32_t n);
    void (*written)(uint32_t first, uint32_t n, void (*fn)(uint32_t page));
    /* Optional: sets itself up over a window's new mapping (detect_add_window). */
    void (*window)(uint32_t first, uint32_t n);
} detect_backend;

extern const detect_backend segv_backend;
extern const detect_backend uffd_backend;

/* Hands a fault to the registered callback; -1 when the fault is not the
 * callback's (backends then treat it as the program's own crash). */
int detect_fault(void *addr, int is_write);

#endif
