/*
 * layout.c - the job's one address layout, and the settings every node
 * must share, checked at tsr_init (layout.h).
 */
#include "api/layout.h"

#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sync/tree.h"
#include "transport/msg.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/config_match.h"
#include "util/log.h"

/* More images than this are compared as far as this. */
#define LAYOUT_MAX 256

typedef struct image_print {
    uint64_t base; /* load address (dlpi_addr, or the first segment's for a
                    * program not built as PIE) */
    uint64_t id;   /* hash of the build-id, or of the file's size and time */
    char name[48]; /* the file's last path component, NUL-terminated */
} image_print;
/* What node 0 sends down the barrier tree: its shared settings, its
 * compared variables, then its images. */
#define SETTINGS_BYTES (CONFIG_SHARED * sizeof(uint64_t) + CONFIG_MATCH * sizeof(config_value))
_Static_assert(SETTINGS_BYTES + LAYOUT_MAX * sizeof(image_print) <= MSG_LAYOUT_MAX,
               "MSG_LAYOUT's rule (msg.h) must admit a whole layout");

static struct {
    uint64_t settings[CONFIG_SHARED];
    config_value env[CONFIG_MATCH];
    image_print image[LAYOUT_MAX];
} mine;
_Static_assert(offsetof(__typeof__(mine), image) == SETTINGS_BYTES, "no padding in a layout");
static uint32_t nmine;
/* Whether node 0's layout came (once, from this node's tree parent), and
 * its check, which layout_check waits for. */
static int laid_out;
static waiter checked;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* The GNU build-id note's bytes, hashed; 0 if the image has none. */
static uint64_t build_id(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            const char *desc = p + sizeof *n + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(n + 1, "GNU", 4))
                return fnv(0xcbf29ce484222325ull, desc, n->n_descsz);
            p = desc + ((n->n_descsz + 3) & ~3u);
        }
    }
    return 0;
}

static uint64_t file_id(const char *path)
{
    struct stat st;
    if (stat(path, &st))
        return 0;
    uint64_t h = fnv(0xcbf29ce484222325ull, &st.st_size, sizeof st.st_size);
    return fnv(h, &st.st_mtim, sizeof st.st_mtim);
}

static int take_image(struct dl_phdr_info *info, size_t size, void *data)
{
    if (nmine == LAYOUT_MAX)
        return 1;
    image_print *e = &mine.image[nmine];
    const char *path = nmine == 0 ? "/proc/self/exe" : info->dlpi_name;
    const char *slash = strrchr(info->dlpi_name, '/');
    snprintf(e->name, sizeof e->name, "%s",
             nmine == 0 ? "the program" : slash ? slash + 1 : info->dlpi_name);
    e->base = info->dlpi_addr;
    for (int i = 0; !e->base && i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD)
            e->base = info->dlpi_phdr[i].p_vaddr;
    e->id = build_id(info);
    if (!e->id && *path)
        e->id = file_id(path);
    nmine++;
    return 0;
}

/* What differs between this node's images and node 0's, `zero` (n of
 * them), or NULL. */
static const char *difference(const image_print *zero, uint32_t n, char *buf, size_t len)
{
    int me = cfg.node;
    for (uint32_t i = 0; i < n && i < nmine; i++) {
        const image_print *a = &zero[i], *b = &mine.image[i];
        if (strcmp(a->name, b->name))
            snprintf(buf, len, "node %d loads %s where node 0 loads %s (image %u)", me, b->name,
                     a->name, i);
        else if (a->id != b->id)
            snprintf(buf, len, "%s on node %d is not the same file as on node 0 (another "
                     "build?)", a->name, me);
        else if (a->base != b->base && !cfg.aslr_keep)
            snprintf(buf, len, "%s is loaded at 0x%llx on node %d, at 0x%llx on node 0 "
                     "(address-space randomisation is on: start nodes with tsrun)", a->name,
                     (unsigned long long)b->base, me, (unsigned long long)a->base);
        else
            continue;
        return buf;
    }
    if (n == nmine)
        return NULL;
    snprintf(buf, len, "node %d has %u loaded images where node 0 has %u (%s %s)", me, nmine, n,
             nmine > n ? "extra:" : "missing:", nmine > n ? mine.image[n].name : zero[nmine].name);
    return buf;
}

#define PASS_THEM "every node must have the same: pass TSR_* variables to every node (mpirun " \
                  "-x, srun --export; docs/CONFIG.md)"

/* The first compared variable whose text here is not node 0's (`zero`). */
static const char *env_differs(config_value *zero, char *buf, size_t len)
{
    for (int i = 0; i < CONFIG_MATCH; i++) {
        config_value *a = &zero[i], *b = &mine.env[i];
        a->text[sizeof a->text - 1] = 0; /* from the wire */
        if (a->hash == b->hash)
            continue;
        snprintf(buf, len, "%s is %s%s%s on node %d, %s%s%s on node 0: " PASS_THEM,
                 config_match_name(i), b->text[0] ? "'" : "", b->text[0] ? b->text : "unset",
                 b->text[0] ? "'" : "", cfg.node, a->text[0] ? "'" : "",
                 a->text[0] ? a->text : "unset", a->text[0] ? "'" : "");
        return buf;
    }
    return NULL;
}

/* The first shared setting on which this node differs from node 0, whose
 * layout is `payload`, or NULL. */
static const char *disagreement(void *payload, char *buf, size_t len)
{
    const uint64_t *zero = payload;
    for (int i = 0; i < CONFIG_SHARED; i++) {
        char a[32], b[32];
        if (zero[i] == mine.settings[i])
            continue;
        snprintf(buf, len, "%s is %s on node %d, %s on node 0: " PASS_THEM,
                 config_shared_name(i), config_shared_text(i, mine.settings[i], b, sizeof b),
                 cfg.node, config_shared_text(i, zero[i], a, sizeof a));
        return buf;
    }
    return env_differs((config_value *)(zero + CONFIG_SHARED), buf, len);
}

/* Node 0's layout to this node's children in the barrier tree, which reach
 * the whole job in O(log N) steps over links the barriers use anyway: a
 * layout sent to node 0 by every node cost node 0 N - 1 connections. */
static void pass_down(const void *layout, size_t len)
{
    int parent, hi, child[TREE_DEGREE], child_hi[TREE_DEGREE];
    tree_place(cfg.node, cfg.nodes, &parent, &hi);
    for (int c = tree_children(cfg.node, hi, child, child_hi) - 1; c >= 0; c--)
        am_send(child[c], MSG_LAYOUT, 0, 0, 0, layout, len);
}

/* The comm thread: node 0's fingerprint from this node's tree parent,
 * checked before use, then passed on. */
static void on_layout(int src, const tsr_msg_hdr *h, void *payload)
{
    char why[400];
    int parent, hi;
    tree_place(cfg.node, cfg.nodes, &parent, &hi);
    if (cfg.node == 0 || src != parent || laid_out) {
        am_reject(src, h, laid_out ? "a second address layout"
                                   : "an address layout not from the tree parent");
        return;
    }
    laid_out = 1;
    if (h->len < SETTINGS_BYTES || (h->len - SETTINGS_BYTES) % sizeof(image_print) ||
        (h->len - SETTINGS_BYTES) / sizeof(image_print) > LAYOUT_MAX) {
        snprintf(why, sizeof why, "node %d sent a malformed address layout (%u bytes)", src,
                 h->len);
        am_abort(why);
    }
    if (disagreement(payload, why, sizeof why))
        am_abort(why);
    image_print *zero = (image_print *)((char *)payload + SETTINGS_BYTES);
    uint32_t n = (h->len - SETTINGS_BYTES) / sizeof(image_print);
    for (uint32_t i = 0; i < n; i++)
        zero[i].name[sizeof zero[i].name - 1] = 0;
    if (difference(zero, n, why, sizeof why)) {
        char cause[480];
        snprintf(cause, sizeof cause, "the address layouts differ: %s", why);
        am_abort(cause);
    }
    pass_down(payload, h->len);
    waiter_done(&checked);
}

void layout_init(void)
{
    config_shared(mine.settings);
    config_match(mine.env);
    dl_iterate_phdr(take_image, NULL);
    waiter_init(&checked, 1);
    am_register(MSG_LAYOUT, on_layout);
}

void layout_check(void)
{
    if (cfg.node == 0)
        pass_down(&mine, SETTINGS_BYTES + nmine * sizeof *mine.image);
    else
        waiter_wait(&checked);
}
