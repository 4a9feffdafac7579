/*
 * barnes.h - Barnes-Hut N-body simulation in 3-D (after SPLASH-2 BARNES),
 * shared by the sequential and the Tessera versions.
 *
 * Each step one worker rebuilds the octree from all bodies (the sequential
 * section: it is cheap and awkward to parallelise), then every worker
 * computes the gravitational acceleration of its own bodies by walking the
 * tree, and moves them. A cell far enough away (side / distance < theta)
 * acts as one body at its centre of mass.
 *
 * The leaves hold copies of the bodies' positions, so the force walk reads
 * only the tree and workers may move their bodies while others still walk.
 * Tree building and walking visit bodies and children in a fixed order, so
 * the result does not depend on the number of workers, bit for bit.
 *
 * Units: G = 1, total mass 1, a Plummer sphere of scale radius 1.
 */
#ifndef BARNES_H
#define BARNES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"

#define BARNES_THETA 0.5     /* opening criterion: side / distance */
#define BARNES_SOFTENING 0.05 /* keeps close encounters finite */
#define BARNES_DT 0.025
#define BARNES_MAX_RADIUS_U 0.99 /* Plummer radii up to ~12: no far outliers */

/* A node of the octree: a cell with up to 8 children, or a leaf (one body). */
typedef struct bh_node {
    double com[3];    /* centre of mass; a leaf: its body's position */
    double mass;
    double side;      /* a cell: the side of its cube; a leaf: 0 */
    int32_t body;     /* a leaf: its body's index; a cell: -1 */
    int32_t child[8]; /* a cell: node indices by octant, 0 for none (0 is the root) */
} bh_node;

typedef struct barnes_size {
    long bodies, steps;
} barnes_size;

typedef struct barnes_sys {
    long n;
    double *pos, *vel; /* n x 3 */
    bh_node *tree;     /* tree[0] is the root */
    long capacity;     /* nodes the tree has room for */
} barnes_sys;

/* One worker's share and what differs between running alone and as one of
 * several nodes. */
typedef struct barnes_team {
    long lo, hi;     /* the bodies this worker moves */
    int builds_tree; /* this worker runs the sequential section */
    void (*sync)(void);
} barnes_team;

static barnes_size barnes_parse(int argc, char **argv)
{
    barnes_size size;
    size.bodies = app_arg(argc, argv, 1, "bodies", 1024);
    size.steps = app_arg(argc, argv, 2, "steps", 2);
    if (size.bodies < 2 || size.bodies > INT32_MAX / 4) {
        fprintf(stderr, "%s: bodies must be in 2..%d\n", argv[0], INT32_MAX / 4);
        exit(2);
    }
    return size;
}

static void barnes_size_string(const barnes_size *size, char *buf, size_t len)
{
    snprintf(buf, len, "%ldx%ld", size->bodies, size->steps);
}

/* Room for the leaves and the cells: clustered bodies need chains of cells
 * until they fall into different octants; 3 cells per body is plenty for a
 * Plummer sphere (about 0.5 in practice). */
static long barnes_capacity(long n)
{
    return 4 * n + 1;
}

static void barnes_no_sync(void) {}

/* The bodies and the tree in memory the C allocator gives (zeroed): the
 * sequential version's, and the OpenMP form's (shared under tsrcc -fopenmp). */
static inline barnes_sys barnes_sys_malloc(long n)
{
    return (barnes_sys){n, app_calloc((size_t)n * 3, sizeof(double)),
                        app_calloc((size_t)n * 3, sizeof(double)),
                        app_calloc((size_t)barnes_capacity(n), sizeof(bh_node)),
                        barnes_capacity(n)};
}

/* A fixed pseudo-random number in [0, 1) for (body, k) (splitmix64), so that
 * any worker can set up any body without shared generator state. */
static double barnes_noise(long body, int k)
{
    return app_unit(((uint64_t)body << 32) + (uint64_t)k);
}

/* A random direction of length len, from noise k and k+1 of body b. */
static void barnes_random_vector(long b, int k, double len, double out[3])
{
    double z = 2.0 * barnes_noise(b, k) - 1.0, phi = 2.0 * M_PI * barnes_noise(b, k + 1);
    double rho = sqrt(1.0 - z * z);
    out[0] = len * rho * cos(phi);
    out[1] = len * rho * sin(phi);
    out[2] = len * z;
}

/* The speed of body b at radius r in a Plummer sphere: a fraction q of the
 * escape speed, q drawn from q^2 (1-q^2)^3.5 by rejection (the peak of that
 * density is below 0.1). */
static double barnes_plummer_speed(long b, double r)
{
    double q = 0.0;
    for (int k = 5;; k += 2) {
        q = barnes_noise(b, k);
        if (0.1 * barnes_noise(b, k + 1) < q * q * pow(1.0 - q * q, 3.5))
            break;
    }
    return q * sqrt(2.0) * pow(1.0 + r * r, -0.25);
}

/* Bodies lo..hi-1 drawn from a Plummer sphere. */
static void barnes_init(barnes_sys *s, long lo, long hi)
{
    for (long b = lo; b < hi; b++) {
        double u = BARNES_MAX_RADIUS_U * barnes_noise(b, 0);
        double r = 1.0 / sqrt(pow(u, -2.0 / 3.0) - 1.0);
        barnes_random_vector(b, 1, r, &s->pos[3 * b]);
        barnes_random_vector(b, 3, barnes_plummer_speed(b, r), &s->vel[3 * b]);
    }
}

static int32_t barnes_new_node(barnes_sys *s, long *used, int32_t body, double side)
{
    if (*used == s->capacity) {
        fprintf(stderr, "barnes: octree full (%ld nodes): bodies too clustered\n", s->capacity);
        exit(1);
    }
    bh_node *node = &s->tree[*used];
    node->mass = 0.0;
    node->side = side;
    node->body = body;
    for (int o = 0; o < 8; o++)
        node->child[o] = 0;
    return (int32_t)(*used)++;
}

/* The octant of p in a cell centred at centre (bit k: coordinate k above);
 * moves centre to that octant's centre. */
static int barnes_octant(const double p[3], double centre[3], double side)
{
    int octant = 0;
    for (int k = 0; k < 3; k++) {
        int above = p[k] >= centre[k];
        octant |= above << k;
        centre[k] += (above ? 0.25 : -0.25) * side;
    }
    return octant;
}

/* Adds leaf `leaf` below the root (a cube of `side` around `centre`),
 * splitting any leaf in the way into a cell. */
static void barnes_insert(barnes_sys *s, long *used, int32_t leaf, double centre[3], double side)
{
    const double *p = s->tree[leaf].com;
    int32_t cell = 0;
    for (;;) {
        int o = barnes_octant(p, centre, side);
        int32_t occupant = s->tree[cell].child[o];
        side *= 0.5;
        if (occupant == 0) {
            s->tree[cell].child[o] = leaf;
            return;
        }
        if (s->tree[occupant].body >= 0) {
            /* A leaf is in the way: a new cell takes its place and it moves
             * one level down; the loop then places our leaf in that cell. */
            int32_t split = barnes_new_node(s, used, -1, side);
            double c[3] = {centre[0], centre[1], centre[2]};
            s->tree[split].child[barnes_octant(s->tree[occupant].com, c, side)] = occupant;
            s->tree[cell].child[o] = split;
            occupant = split;
        }
        cell = occupant;
    }
}

/* Masses and centres of mass of the cells below `cell`, children first. */
static void barnes_summarise(bh_node *tree, int32_t cell)
{
    bh_node *c = &tree[cell];
    double weighted[3] = {0.0, 0.0, 0.0};
    c->mass = 0.0;
    for (int o = 0; o < 8; o++) {
        if (c->child[o] == 0)
            continue;
        bh_node *k = &tree[c->child[o]];
        if (k->body < 0)
            barnes_summarise(tree, c->child[o]);
        c->mass += k->mass;
        for (int d = 0; d < 3; d++)
            weighted[d] += k->mass * k->com[d];
    }
    for (int d = 0; d < 3; d++)
        c->com[d] = weighted[d] / c->mass;
}

/* The root cube: centred on the bodies' bounding box, just larger than it. */
static double barnes_bounds(const barnes_sys *s, double centre[3])
{
    double lo[3], hi[3], side = 0.0;
    for (int d = 0; d < 3; d++)
        lo[d] = hi[d] = s->pos[d];
    for (long b = 1; b < s->n; b++) {
        for (int d = 0; d < 3; d++) {
            lo[d] = fmin(lo[d], s->pos[3 * b + d]);
            hi[d] = fmax(hi[d], s->pos[3 * b + d]);
        }
    }
    for (int d = 0; d < 3; d++) {
        centre[d] = 0.5 * (lo[d] + hi[d]);
        side = fmax(side, hi[d] - lo[d]);
    }
    return side * 1.0001;
}

/* The sequential section: the octree of all bodies, in body order. */
static void barnes_build_tree(barnes_sys *s)
{
    double centre[3];
    double side = barnes_bounds(s, centre);
    long used = 0;
    barnes_new_node(s, &used, -1, side);
    for (long b = 0; b < s->n; b++) {
        int32_t leaf = barnes_new_node(s, &used, (int32_t)b, 0.0);
        bh_node *l = &s->tree[leaf];
        l->mass = 1.0 / (double)s->n;
        for (int d = 0; d < 3; d++)
            l->com[d] = s->pos[3 * b + d];
        double c[3] = {centre[0], centre[1], centre[2]};
        barnes_insert(s, &used, leaf, c, side);
    }
    barnes_summarise(s->tree, 0);
}

/* acc += the softened pull of `mass` at `at` on a body at p. */
static void barnes_pull(const double p[3], const double at[3], double mass, double acc[3])
{
    double d[3] = {at[0] - p[0], at[1] - p[1], at[2] - p[2]};
    double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + BARNES_SOFTENING * BARNES_SOFTENING;
    double scale = mass / (r2 * sqrt(r2));
    for (int k = 0; k < 3; k++)
        acc[k] += scale * d[k];
}

/* acc += the pull of the subtree at `node` on body `body` at p. */
static void barnes_walk(const bh_node *tree, int32_t node, long body, const double p[3],
                        double acc[3])
{
    const bh_node *n = &tree[node];
    if (n->body >= 0) {
        if (n->body != body)
            barnes_pull(p, n->com, n->mass, acc);
        return;
    }
    double d[3] = {n->com[0] - p[0], n->com[1] - p[1], n->com[2] - p[2]};
    double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (n->side * n->side < BARNES_THETA * BARNES_THETA * r2) {
        barnes_pull(p, n->com, n->mass, acc);
        return;
    }
    for (int o = 0; o < 8; o++)
        if (n->child[o] != 0)
            barnes_walk(tree, n->child[o], body, p, acc);
}

/* Moves bodies lo..hi-1 one step with the accelerations from the tree. */
static void barnes_advance(barnes_sys *s, long lo, long hi)
{
    for (long b = lo; b < hi; b++) {
        double acc[3] = {0.0, 0.0, 0.0}, *p = &s->pos[3 * b], *v = &s->vel[3 * b];
        barnes_walk(s->tree, 0, b, p, acc);
        for (int k = 0; k < 3; k++) {
            v[k] += BARNES_DT * acc[k];
            p[k] += BARNES_DT * v[k];
        }
    }
}

/* Runs the simulation from the current state, which the caller has made
 * visible to every worker. */
static void barnes_simulate(barnes_sys *s, const barnes_team *t, long steps)
{
    for (long step = 0; step < steps; step++) {
        if (t->builds_tree)
            barnes_build_tree(s);
        /* The tree is complete. */
        t->sync();
        barnes_advance(s, t->lo, t->hi);
        /* Every body moved before the next tree is built. */
        t->sync();
    }
}

/* The tree walk must approximate the direct sum: over a sample of bodies,
 * the mean relative error of the acceleration from a tree of the final
 * positions stays at the percent level for theta = 0.5; a broken tree gives
 * errors of order one. */
static int barnes_check(barnes_sys *s)
{
    enum { SAMPLES = 16 };
    barnes_build_tree(s);
    double total_err = 0.0;
    for (int i = 0; i < SAMPLES; i++) {
        long b = s->n * i / SAMPLES;
        const double *p = &s->pos[3 * b];
        double tree_acc[3] = {0.0, 0.0, 0.0}, direct[3] = {0.0, 0.0, 0.0};
        barnes_walk(s->tree, 0, b, p, tree_acc);
        for (long j = 0; j < s->n; j++)
            if (j != b)
                barnes_pull(p, &s->pos[3 * j], 1.0 / (double)s->n, direct);
        double diff2 = 0.0, norm2 = 0.0;
        for (int k = 0; k < 3; k++) {
            diff2 += (tree_acc[k] - direct[k]) * (tree_acc[k] - direct[k]);
            norm2 += direct[k] * direct[k];
        }
        total_err += sqrt(diff2 / norm2);
    }
    double mean_err = total_err / SAMPLES;
    if (mean_err > 0.02)
        fprintf(stderr, "barnes: tree accelerations off by %g on average\n", mean_err);
    return mean_err <= 0.02;
}

#endif
