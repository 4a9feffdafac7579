#include "api/image.h"

#include <link.h>
#include <string.h>

typedef struct image_query {
    uintptr_t addr;  /* in: the address sought (image_address: filled in) */
    size_t len;      /* in: bytes from it that must lie in the segment */
    unsigned flag;   /* in: PF_W (a global) or PF_X (a function) */
    uint32_t image;  /* in (image_address) or out (image_locate) */
    uintptr_t base;  /* out: the image's load address */
    uint32_t at;     /* images visited so far */
    int found;
} image_query;

/* Whether [addr, addr+len) lies in one PT_LOAD segment of info's image
 * whose flags include `flag`. */
static int in_segment(const struct dl_phdr_info *info, uintptr_t addr, size_t len, unsigned flag)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & flag) && addr >= lo && addr < hi &&
            len <= hi - addr)
            return 1;
    }
    return 0;
}

static int by_address(struct dl_phdr_info *info, size_t size, void *data)
{
    image_query *q = data;
    if (in_segment(info, q->addr, q->len, q->flag)) {
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
    q->found = in_segment(info, q->addr, q->len, q->flag);
    return 1;
}

static int locate(uintptr_t addr, size_t len, unsigned flag, uint32_t *image, uint64_t *offset)
{
    image_query q = {.addr = addr, .len = len, .flag = flag};
    dl_iterate_phdr(by_address, &q);
    if (!q.found)
        return -1;
    *image = q.image;
    *offset = q.addr - q.base;
    return 0;
}

static void *address(uint32_t image, uint64_t offset, size_t len, unsigned flag)
{
    image_query q = {.addr = (uintptr_t)offset, .len = len, .image = image, .flag = flag};
    dl_iterate_phdr(by_index, &q);
    return q.found ? (void *)q.addr : NULL;
}

int image_locate(const void *addr, size_t len, uint32_t *image, uint64_t *offset)
{
    return locate((uintptr_t)addr, len, PF_W, image, offset);
}

void *image_address(uint32_t image, uint64_t offset, size_t len)
{
    return address(image, offset, len, PF_W);
}

int image_locate_code(void (*fn)(void *), uint32_t *image, uint64_t *offset)
{
    return locate((uintptr_t)fn, 1, PF_X, image, offset);
}

void (*image_code_address(uint32_t image, uint64_t offset))(void *)
{
    void *p = address(image, offset, 1, PF_X);
    void (*fn)(void *);
    memcpy(&fn, &p, sizeof fn); /* ISO C has no cast from object to function pointer */
    return fn;
}
