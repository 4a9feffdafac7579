#include "api/image.h"

#include <link.h>

typedef struct image_query {
    uintptr_t addr;  /* in: the address sought (image_address: filled in) */
    size_t len;      /* in: bytes from it that must be writable */
    uint32_t image;  /* in (image_address) or out (image_locate) */
    uintptr_t base;  /* out: the image's load address */
    uint32_t at;     /* images visited so far */
    int found;
} image_query;

/* Whether [addr, addr+len) lies in one writable PT_LOAD segment of info's image. */
static int in_writable_segment(const struct dl_phdr_info *info, uintptr_t addr, size_t len)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && addr >= lo && addr < hi &&
            len <= hi - addr)
            return 1;
    }
    return 0;
}

static int by_address(struct dl_phdr_info *info, size_t size, void *data)
{
    image_query *q = data;
    if (in_writable_segment(info, q->addr, q->len)) {
        q->image = q->at;
        q->base = info->dlpi_addr;
        q->found = 1;
        return 1;
    }
    q->at++;
    return 0;
}

static int by_index(struct dl_phdr_info *info, size_t size, void *data)
{
    image_query *q = data;
    if (q->at++ != q->image)
        return 0;
    q->addr += info->dlpi_addr;
    q->found = in_writable_segment(info, q->addr, q->len);
    return 1;
}

int image_locate(const void *addr, size_t len, uint32_t *image, uint64_t *offset)
{
    image_query q = {.addr = (uintptr_t)addr, .len = len};
    dl_iterate_phdr(by_address, &q);
    if (!q.found)
        return -1;
    *image = q.image;
    *offset = q.addr - q.base;
    return 0;
}

void *image_address(uint32_t image, uint64_t offset, size_t len)
{
    image_query q = {.addr = (uintptr_t)offset, .len = len, .image = image};
    dl_iterate_phdr(by_index, &q);
    return q.found ? (void *)q.addr : NULL;
}
