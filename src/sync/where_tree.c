/*
 * where_tree.c - the stall detector's questions as an echo over the barrier
 * tree (where_tree.h).
 */
#include "sync/where_tree.h"

#include <stdlib.h>
#include <string.h>

#include "sync/tree.h"
#include "transport/msg.h"
#include "transport/transport.h"
#include "util/config.h"
#include "util/log.h"

#define NEIGHBOURS (TREE_DEGREE + 1)

_Static_assert(sizeof(where_entry) == MSG_WHERE_ENTRY, "MSG_WHERE's rule (msg.h) names its entry");

/* A question passing through this node, one per asking node (an asker
 * asks one at a time; a newer one replaces an older, whose late answers
 * are then dropped): where it came from, the neighbours it went to that
 * have not answered, and the entries gathered for the batch (grown as
 * they come, and freed once sent). */
typedef struct passing {
    uint64_t gen;
    int from, open;
    int waits[NEIGHBOURS], nwaits;
    where_entry *got;
    uint32_t ngot;
} passing;

static passing *pass; /* per asking node; touched by the comm thread only */
static int nbr[NEIGHBOURS], nnbr;
static where_own_fn own_record;
static where_take_fn take_batch;

static int neighbour(int node)
{
    for (int i = 0; i < nnbr; i++)
        if (nbr[i] == node)
            return 1;
    return 0;
}

static void send_batch(int asker, passing *p)
{
    am_send(p->from, MSG_WHERE, p->gen, (uint64_t)asker, p->ngot, p->got,
            p->ngot * sizeof *p->got);
    free(p->got);
    p->got = NULL;
    p->open = 0;
}

/* Room for n more entries in p's batch. */
static void grow(passing *p, uint32_t n)
{
    where_entry *g = realloc(p->got, (p->ngot + n) * sizeof *g);
    if (!g)
        log_die("out of memory (stall question)");
    p->got = g;
}

/* From a tree neighbour: pass it on to the others, or answer at once at a
 * leaf. The lock asked about is a slot or -1 (ARG_LOCK_OR_NONE). */
static void on_where_ask(int src, const tsr_msg_hdr *h, void *payload)
{
    int asker = (int)h->arg[2];
    passing *p = &pass[asker];
    if (!neighbour(src) || asker == cfg.node || h->arg[0] <= p->gen) {
        am_reject(src, h, "a stall question not from a tree neighbour, or not a new one");
        return;
    }
    free(p->got);
    *p = (passing){.gen = h->arg[0], .from = src, .open = 1};
    grow(p, 1);
    p->got[0].node = cfg.node;
    p->got[0].pad = 0;
    own_record(&p->got[0].rec, (int)(int64_t)h->arg[1]);
    p->ngot = 1;
    for (int i = 0; i < nnbr; i++)
        if (nbr[i] != src) {
            p->waits[p->nwaits++] = nbr[i];
            am_send(nbr[i], MSG_WHERE_ASK, p->gen, h->arg[1], (uint64_t)asker, NULL, 0);
        }
    if (!p->nwaits)
        send_batch(asker, p);
}

/* Where `src` is among the neighbours that owe question `p` an answer, or
 * -1. */
static int owing(const passing *p, int src)
{
    for (int i = 0; i < p->nwaits; i++)
        if (p->waits[i] == src)
            return i;
    return -1;
}

/* An entry's rule (msg.h, MSG_WHERE): checked where the batch ends. */
static int entry_ok(const where_entry *e)
{
    const where_rec *r = &e->rec;
    return e->node >= 0 && e->node < cfg.nodes && e->node != cfg.node && r->answered &&
           r->wait >= 0 && r->wait < WAIT_KINDS && r->from >= -1 && r->from < cfg.nodes &&
           r->thread >= 0;
}

static void on_where(int src, const tsr_msg_hdr *h, void *payload)
{
    int asker = (int)h->arg[1];
    uint64_t n = h->arg[2];
    const where_entry *e = payload;
    if (h->len != n * sizeof *e || n > (uint64_t)cfg.nodes) {
        am_reject(src, h, "a stall answer whose length is not its entries'");
        return;
    }
    if (asker == cfg.node) {
        uint64_t i = 0;
        while (i < n && entry_ok(&e[i]))
            i++;
        if (!neighbour(src) || i < n) {
            am_reject(src, h, "a stall answer not from a tree neighbour, or a bad entry");
            return;
        }
        take_batch(h->arg[0], e, (uint32_t)n);
        return;
    }
    passing *p = &pass[asker];
    if (h->arg[0] < p->gen) /* late, for a question its asker replaced: not forged */
        return;
    int k = p->open && p->gen == h->arg[0] ? owing(p, src) : -1;
    if (k < 0 || n > (uint64_t)cfg.nodes - p->ngot) {
        am_reject(src, h, "a stall answer to no question passed on, or with more nodes than "
                          "the job's");
        return;
    }
    p->waits[k] = p->waits[--p->nwaits];
    grow(p, (uint32_t)n);
    memcpy(p->got + p->ngot, e, h->len);
    p->ngot += (uint32_t)n;
    if (!p->nwaits)
        send_batch(asker, p);
}

void where_tree_init(where_own_fn own, where_take_fn take)
{
    own_record = own;
    take_batch = take;
    if (!(pass = calloc((size_t)cfg.nodes, sizeof *pass)))
        log_die("out of memory (stall detector)");
    int parent, hi, child_hi[TREE_DEGREE];
    tree_place(cfg.node, cfg.nodes, &parent, &hi);
    if (cfg.node != 0)
        nbr[nnbr++] = parent;
    nnbr += tree_children(cfg.node, hi, nbr + nnbr, child_hi);
    am_register(MSG_WHERE_ASK, on_where_ask);
    am_register(MSG_WHERE, on_where);
}

int where_tree_neighbours(void) { return nnbr; }

int where_tree_levels(void)
{
    int levels = 1, parent, hi;
    for (int j = cfg.nodes - 1; j > 0; j = parent, levels++)
        tree_place(j, cfg.nodes, &parent, &hi);
    return levels > 2 ? levels - 1 : 1;
}

void where_tree_ask(uint64_t gen, int lock)
{
    for (int i = 0; i < nnbr; i++)
        am_send(nbr[i], MSG_WHERE_ASK, gen, (uint64_t)(int64_t)lock, (uint64_t)cfg.node, NULL,
                0);
}
