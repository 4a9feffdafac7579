/*
 * trace_part.c - the nodes' trace parts, mapped for reading (trace_part.h).
 */
#include "launcher/trace_part.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void part_name(char *buf, size_t len, const char *file, int node)
{
    snprintf(buf, len, "%s.part%d", file, node);
}

static int part_open(trace_part *p, const char *file)
{
    char path[4096];
    part_name(path, sizeof path, file, p->node);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) {
        snprintf(p->why, sizeof p->why, "%.100s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    p->size = (size_t)st.st_size;
    p->map = p->size >= TRACE_DATA ? mmap(NULL, p->size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
    close(fd);
    if (p->map == MAP_FAILED) {
        snprintf(p->why, sizeof p->why, "%.100s: too short or unreadable", path);
        p->map = NULL;
        return -1;
    }
    const trace_head *h = (const trace_head *)p->map;
    const char *wrong = memcmp(h->magic, TRACE_MAGIC, sizeof h->magic) ? "not a trace part"
        : h->kinds != EV_KINDS || h->event_bytes != sizeof(trace_event) ||
                h->head_bytes != sizeof(trace_head)
            ? "written by another build of Tessera than this tsrun's"
        : h->node != (uint32_t)p->node ? "another node's part"
        : h->slot_bytes % sizeof(trace_event) || h->nmodules > TRACE_MODULES ? "damaged"
        : NULL;
    if (wrong) {
        snprintf(p->why, sizeof p->why, "%.100s: %s", path, wrong);
        return -1;
    }
    p->head = h;
    p->slots = (const trace_slot *)(p->map + sizeof *h);
    return 0;
}

trace_part *trace_parts_open(const char *file, int n)
{
    trace_part *p = calloc((size_t)n, sizeof *p);
    if (!p) {
        fprintf(stderr, "tsrun: out of memory reading the trace\n");
        exit(1);
    }
    for (int i = 0; i < n; i++) {
        p[i].node = i;
        part_open(&p[i], file);
    }
    return p;
}

void trace_parts_close(trace_part *p, int n)
{
    for (int i = 0; i < n; i++)
        if (p[i].map)
            munmap((void *)p[i].map, p[i].size);
    free(p);
}

void trace_parts_remove(const char *file, int n)
{
    char path[4096];
    for (int i = 0; i < n; i++) {
        part_name(path, sizeof path, file, i);
        unlink(path);
    }
}

const trace_event *trace_part_events(const trace_part *p, int s, uint64_t *n)
{
    const trace_slot *sl = &p->slots[s];
    if (!atomic_load((_Atomic uint32_t *)&sl->claimed)) {
        *n = 0;
        return NULL;
    }
    uint64_t start = TRACE_DATA + (uint64_t)s * p->head->slot_bytes;
    uint64_t room = start < p->size ? (p->size - start) / sizeof(trace_event) : 0;
    uint64_t cap = p->head->slot_bytes / sizeof(trace_event);
    *n = atomic_load((_Atomic uint64_t *)&sl->count);
    if (*n > cap)
        *n = cap;
    if (*n > room)
        *n = room;
    return (const trace_event *)(p->map + start);
}
