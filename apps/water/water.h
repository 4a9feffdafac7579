/*
 * water.h - molecular dynamics of water molecules after SPLASH-2
 * Water-Nsquared, shared by the sequential and the Tessera versions.
 *
 * The physics is simplified; the structure of the computation is not:
 *  - a molecule is three atoms, O, H1, H2, held together by harmonic springs
 *    (the intra-molecular forces: O-H1, O-H2 and H1-H2, which keeps the angle);
 *  - two molecules whose oxygens are closer than the cut-off radius
 *    (minimum-image distance in a periodic box) interact through a
 *    Lennard-Jones potential between the oxygens and Coulomb forces between
 *    all nine pairs of partial charges (the inter-molecular forces);
 *  - molecule i interacts with the n/2 molecules after it, wrapping around,
 *    so every pair is computed once (for even n, the molecules of the second
 *    half skip the partner exactly n/2 away, which the first half covers);
 *  - each step: intra-molecular forces, inter-molecular forces, then every
 *    molecule moves (symplectic Euler: v += dt*F/m, x += dt*v).
 *
 * Reduced units: the O-O Lennard-Jones sigma and epsilon are 1, masses are in
 * hydrogen masses. A worker owns a contiguous block of molecules: it computes
 * their intra forces, their pairs with their partners, and moves them. Its
 * inter forces go into a private accumulator first, because they concern
 * partners other workers own; `publish` adds the accumulator into the shared
 * forces (under locks when there are several workers).
 */
#ifndef WATER_H
#define WATER_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

#define WATER_ATOMS 3                   /* O, H1, H2 */
#define WATER_DOUBLES (WATER_ATOMS * 3) /* doubles per molecule in pos, vel, force */

static const double water_mass[WATER_ATOMS] = {16.0, 1.0, 1.0};
static const double water_charge[WATER_ATOMS] = {-0.8, 0.4, 0.4};
#define WATER_BOND_OH 0.33     /* O-H bond length */
#define WATER_ANGLE 1.8238     /* H-O-H angle, radians (104.5 degrees) */
#define WATER_SPRING 400.0     /* spring constant of the three bonds */
#define WATER_COULOMB 1.0      /* Coulomb constant */
#define WATER_DENSITY 0.9      /* molecules per sigma^3 on a full lattice */
#define WATER_SPEED 0.2        /* bound of the initial velocity components */
#define WATER_DT 0.004         /* time step; a bond vibrates in ~75 steps */

/* Molecules whose forces one lock protects: about a 4096-byte page of them. */
#define WATER_LOCK_GROUP ((long)(4096 / (WATER_DOUBLES * sizeof(double))))

/* Energies a worker records per step. */
enum { WATER_POTENTIAL, WATER_KINETIC, WATER_ENERGIES };

typedef struct water_size {
    long molecules, steps;
} water_size;

/* The state of the system; pos, vel and force hold n molecules x 3 atoms x
 * 3 coordinates. */
typedef struct water_sys {
    long n;
    double box;     /* side of the periodic box */
    double cutoff2; /* squared cut-off radius of the O-O distance */
    double *pos, *vel, *force;
} water_sys;

/* One worker's share of the simulation and what differs between running
 * alone and as one of several nodes. */
typedef struct water_team water_team;
struct water_team {
    long lo, hi;    /* the molecules this worker owns */
    double *acc;    /* private, n x 9: this worker's inter-molecular forces */
    double *energy; /* steps x WATER_ENERGIES: this worker's share of the energies */
    void (*sync)(void);
    void (*publish)(const water_sys *s, const water_team *t);
};

static water_size water_parse(int argc, char **argv)
{
    water_size size;
    size.molecules = app_arg(argc, argv, 1, "molecules", 64);
    size.steps = app_arg(argc, argv, 2, "steps", 3);
    if (size.molecules < 2) {
        fprintf(stderr, "%s: need at least 2 molecules\n", argv[0]);
        exit(2);
    }
    return size;
}

static void water_size_string(const water_size *size, char *buf, size_t len)
{
    snprintf(buf, len, "%ldx%ld", size->molecules, size->steps);
}

/* The side of the smallest cubic lattice with a site for each of n
 * molecules (exactly: no cbrt). */
static long water_lattice_side(long n)
{
    long side = 1;
    while (side * side * side < n)
        side++;
    return side;
}

/* The geometry every version derives from n: a box just holding the
 * lattice at the molecules' natural spacing (so that when n is not a cube
 * some sites stay empty rather than the molecules being squeezed), and a
 * cut-off of half the box, the largest the minimum-image convention allows. */
static void water_geometry(water_sys *s, long n)
{
    s->n = n;
    s->box = (double)water_lattice_side(n) * cbrt(1.0 / WATER_DENSITY);
    s->cutoff2 = 0.25 * s->box * s->box;
}

static double *water_atom(double *array, long molecule, int atom)
{
    return &array[(molecule * WATER_ATOMS + atom) * 3];
}

/* A fixed pseudo-random number in [0, 1) for (molecule, k) (splitmix64), so
 * that any worker can set up any molecule without shared generator state. */
static double water_noise(long molecule, int k)
{
    return app_unit((uint64_t)molecule * 16 + (uint64_t)k);
}

static void water_cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Two orthogonal unit vectors u, w in a random orientation: the O-H1 bond
 * points along u and the molecule lies in the u-w plane. */
static void water_orientation(long m, double u[3], double w[3])
{
    double z = 2.0 * water_noise(m, 0) - 1.0, phi = 2.0 * M_PI * water_noise(m, 1);
    double rho = sqrt(1.0 - z * z);
    u[0] = rho * cos(phi);
    u[1] = rho * sin(phi);
    u[2] = z;
    /* Any vector not parallel to u gives a normal to u; turning it about u
     * by a random angle makes the molecule's plane random too. */
    double axis[3] = {fabs(u[0]) < 0.9 ? 1.0 : 0.0, fabs(u[0]) < 0.9 ? 0.0 : 1.0, 0.0};
    double n1[3], n2[3];
    water_cross(u, axis, n1);
    double len = sqrt(n1[0] * n1[0] + n1[1] * n1[1] + n1[2] * n1[2]);
    for (int c = 0; c < 3; c++)
        n1[c] /= len;
    water_cross(u, n1, n2);
    double psi = 2.0 * M_PI * water_noise(m, 2);
    for (int c = 0; c < 3; c++)
        w[c] = n1[c] * cos(psi) + n2[c] * sin(psi);
}

/* Molecules lo..hi-1 at the sites of a cubic lattice filling the box, in a
 * random orientation, with a random common velocity for their atoms. */
static void water_init(water_sys *s, long lo, long hi)
{
    long side = water_lattice_side(s->n);
    double spacing = s->box / (double)side;
    for (long m = lo; m < hi; m++) {
        long site[3] = {m % side, m / side % side, m / side / side};
        double u[3], w[3], v[3];
        water_orientation(m, u, w);
        for (int c = 0; c < 3; c++)
            v[c] = WATER_SPEED * (2.0 * water_noise(m, 3 + c) - 1.0);
        for (int c = 0; c < 3; c++) {
            double o = ((double)site[c] + 0.5) * spacing;
            water_atom(s->pos, m, 0)[c] = o;
            water_atom(s->pos, m, 1)[c] = o + WATER_BOND_OH * u[c];
            water_atom(s->pos, m, 2)[c] =
                o + WATER_BOND_OH * (u[c] * cos(WATER_ANGLE) + w[c] * sin(WATER_ANGLE));
            for (int a = 0; a < WATER_ATOMS; a++)
                water_atom(s->vel, m, a)[c] = v[c];
        }
    }
}

/* The spring between atoms a and b of molecule m: adds its forces to
 * force (one molecule's 9 doubles) and returns its energy. */
static double water_spring(const double *pos, double *force, int a, int b, double rest)
{
    double d[3], r2 = 0.0;
    for (int c = 0; c < 3; c++) {
        d[c] = pos[a * 3 + c] - pos[b * 3 + c];
        r2 += d[c] * d[c];
    }
    double r = sqrt(r2), stretch = r - rest;
    for (int c = 0; c < 3; c++) {
        double f = -WATER_SPRING * stretch * d[c] / r;
        force[a * 3 + c] += f;
        force[b * 3 + c] -= f;
    }
    return 0.5 * WATER_SPRING * stretch * stretch;
}

/* Sets the forces on molecules lo..hi-1 to their intra-molecular forces;
 * returns their energy. */
static double water_intra_forces(const water_sys *s, long lo, long hi)
{
    const double bond_hh = 2.0 * WATER_BOND_OH * sin(0.5 * WATER_ANGLE);
    double energy = 0.0;
    for (long m = lo; m < hi; m++) {
        const double *pos = water_atom(s->pos, m, 0);
        double *force = water_atom(s->force, m, 0);
        memset(force, 0, WATER_DOUBLES * sizeof *force);
        energy += water_spring(pos, force, 0, 1, WATER_BOND_OH);
        energy += water_spring(pos, force, 0, 2, WATER_BOND_OH);
        energy += water_spring(pos, force, 1, 2, bond_hh);
    }
    return energy;
}

/* Lennard-Jones between the oxygens, d their separation: adds the force on
 * the first to f and returns the energy. */
static double water_lennard_jones(const double d[3], double r2, double f[3])
{
    double inv2 = 1.0 / r2, inv6 = inv2 * inv2 * inv2;
    double scale = 24.0 * (2.0 * inv6 * inv6 - inv6) * inv2;
    for (int c = 0; c < 3; c++)
        f[c] += scale * d[c];
    return 4.0 * (inv6 * inv6 - inv6);
}

/* The pair (i, j) if their oxygens are within the cut-off: adds the forces
 * to acc and returns the energy. The nearest image of j is the one for the
 * oxygens, applied to all of j's atoms so molecules stay whole. */
static double water_pair(const water_sys *s, long i, long j, double *acc)
{
    const double *pi = water_atom(s->pos, i, 0), *pj = water_atom(s->pos, j, 0);
    double shift[3], d[3], r2 = 0.0;
    for (int c = 0; c < 3; c++) {
        double oo = pi[c] - pj[c];
        shift[c] = s->box * round(oo / s->box);
        d[c] = oo - shift[c];
        r2 += d[c] * d[c];
    }
    if (r2 > s->cutoff2)
        return 0.0;
    double f_oo[3] = {0.0, 0.0, 0.0};
    double energy = water_lennard_jones(d, r2, f_oo);
    double *fi = water_atom(acc, i, 0), *fj = water_atom(acc, j, 0);
    for (int c = 0; c < 3; c++) {
        fi[c] += f_oo[c];
        fj[c] -= f_oo[c];
    }
    for (int a = 0; a < WATER_ATOMS; a++) {
        for (int b = 0; b < WATER_ATOMS; b++) {
            double r[3], q = WATER_COULOMB * water_charge[a] * water_charge[b];
            for (int c = 0; c < 3; c++)
                r[c] = pi[a * 3 + c] - pj[b * 3 + c] - shift[c];
            double dist = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
            double scale = q / (dist * dist * dist);
            for (int c = 0; c < 3; c++) {
                fi[a * 3 + c] += scale * r[c];
                fj[b * 3 + c] -= scale * r[c];
            }
            energy += q / dist;
        }
    }
    return energy;
}

/* How many molecules after i (wrapping around) i interacts with. */
static long water_partners(long n, long i)
{
    return (n % 2 == 0 && i >= n / 2) ? n / 2 - 1 : n / 2;
}

/* Zeroes acc, then adds to it the inter-molecular forces of the pairs of
 * molecules lo..hi-1 with their partners; returns those pairs' energy. */
static double water_inter_forces(const water_sys *s, long lo, long hi, double *acc)
{
    memset(acc, 0, (size_t)s->n * WATER_DOUBLES * sizeof *acc);
    double energy = 0.0;
    for (long i = lo; i < hi; i++) {
        long last = i + water_partners(s->n, i);
        for (long j = i + 1; j <= last; j++)
            energy += water_pair(s, i, j % s->n, acc);
    }
    return energy;
}

/* force += acc for molecules lo..hi-1. */
static void water_add_forces(const water_sys *s, const double *acc, long lo, long hi)
{
    for (long k = lo * WATER_DOUBLES; k < hi * WATER_DOUBLES; k++)
        s->force[k] += acc[k];
}

/* The sync of a worker that runs alone. */
static void water_no_sync(void) {}

/* The publish of a worker that runs alone: nobody else writes the forces. */
static void water_publish_alone(const water_sys *s, const water_team *t)
{
    water_add_forces(s, t->acc, 0, s->n);
}

/* Moves molecules lo..hi-1 one step; returns their kinetic energy after it. */
static double water_move(const water_sys *s, long lo, long hi)
{
    double kinetic = 0.0;
    for (long m = lo; m < hi; m++) {
        for (int a = 0; a < WATER_ATOMS; a++) {
            double *x = water_atom(s->pos, m, a), *v = water_atom(s->vel, m, a);
            const double *f = water_atom(s->force, m, a);
            for (int c = 0; c < 3; c++) {
                v[c] += WATER_DT * f[c] / water_mass[a];
                x[c] += WATER_DT * v[c];
                kinetic += 0.5 * water_mass[a] * v[c] * v[c];
            }
        }
    }
    return kinetic;
}

/* Runs the simulation from the current state; the caller has made the
 * initial state visible to every worker. */
static void water_simulate(const water_sys *s, const water_team *t, long steps)
{
    for (long step = 0; step < steps; step++) {
        double *energy = &t->energy[step * WATER_ENERGIES];
        energy[WATER_POTENTIAL] = water_intra_forces(s, t->lo, t->hi);
        /* Every worker set its forces and moved its molecules. */
        t->sync();
        energy[WATER_POTENTIAL] += water_inter_forces(s, t->lo, t->hi, t->acc);
        t->publish(s, t);
        /* All forces are complete, and nobody reads positions any more. */
        t->sync();
        energy[WATER_KINETIC] = water_move(s, t->lo, t->hi);
    }
}

/* The total energy of a step, from energies[steps x WATER_ENERGIES]. */
static double water_total(const double *energies, long step)
{
    return energies[step * WATER_ENERGIES + WATER_POTENTIAL] +
           energies[step * WATER_ENERGIES + WATER_KINETIC];
}

/* The simulation must conserve the total energy up to the integrator's
 * error and the jumps of pairs crossing the cut-off, which stay below 0.5%
 * of the energy in play for a few hundred steps (fewer in tiny boxes, where
 * the cut-off is short); wrong forces break conservation at once. */
static int water_check_energy(const double *energies, long steps)
{
    double first = water_total(energies, 0), last = water_total(energies, steps - 1);
    double scale = fabs(energies[WATER_KINETIC]) + fabs(energies[WATER_POTENTIAL]);
    double drift = fabs(last - first) / scale;
    if (drift > 5e-3)
        fprintf(stderr, "water: total energy drifted by %g (relative)\n", drift);
    return drift <= 5e-3;
}

/* ---- Parallel runs: their results against the sequential run's ---------- */

static inline double *water_alloc(long count)
{
    double *a = calloc((size_t)count, sizeof *a);
    if (!a) {
        fprintf(stderr, "water: out of memory\n");
        exit(2);
    }
    return a;
}

/* The energies of the whole system: the sum of the workers' records. */
static inline void water_sum_energies(double *const *records, int workers, long steps,
                                      double *total)
{
    for (long k = 0; k < steps * WATER_ENERGIES; k++) {
        total[k] = 0.0;
        for (int w = 0; w < workers; w++)
            total[k] += records[w][k];
    }
}

static inline int water_has_forces(const double *acc, long lo, long hi)
{
    for (long k = lo * WATER_DOUBLES; k < hi * WATER_DOUBLES; k++)
        if (acc[k] != 0.0)
            return 1;
    return 0;
}

/* Adds the accumulator into the shared forces, `group` molecules at a time
 * under that group's lock: a worker takes each lock once per step rather
 * than once per pair. Groups without contributions (partners of other
 * workers' molecules only) are skipped, and each worker starts at its own
 * first group so that the workers do not all queue for the same lock. */
static inline void water_publish_grouped(const water_sys *s, const water_team *t, long group,
                                         void (*lock)(long g), void (*unlock)(long g))
{
    long groups = (s->n + group - 1) / group, first = t->lo / group;
    for (long k = 0; k < groups; k++) {
        long g = (first + k) % groups;
        long lo = g * group, hi = lo + group < s->n ? lo + group : s->n;
        if (!water_has_forces(t->acc, lo, hi))
            continue;
        lock(g);
        water_add_forces(s, t->acc, lo, hi);
        unlock(g);
    }
}

/* Largest |a[k] - b[k]| over count values. */
static inline double water_max_difference(const double *a, const double *b, long count)
{
    double worst = 0.0;
    for (long k = 0; k < count; k++) {
        double d = fabs(a[k] - b[k]);
        worst = d > worst ? d : worst;
    }
    return worst;
}

/* Node 0, after the run: the energy check the sequential version makes,
 * and positions and energies must match the sequential run's. They match
 * only approximately because the forces on a molecule are summed in a
 * different order, and the gap grows with the steps; the tolerances leave
 * room for that and nothing like a lost contribution. */
static inline int water_verify(const water_sys *par, const double *energies, long steps)
{
    long n = par->n;
    water_sys seq = *par;
    seq.pos = water_alloc(n * WATER_DOUBLES);
    seq.vel = water_alloc(n * WATER_DOUBLES);
    seq.force = water_alloc(n * WATER_DOUBLES);
    water_init(&seq, 0, n);
    water_team alone = {0, n, water_alloc(n * WATER_DOUBLES),
                        water_alloc(steps * WATER_ENERGIES), water_no_sync,
                        water_publish_alone};
    water_simulate(&seq, &alone, steps);

    double pos_err = water_max_difference(par->pos, seq.pos, n * WATER_DOUBLES);
    double energy_scale = fabs(alone.energy[WATER_POTENTIAL]) + fabs(alone.energy[WATER_KINETIC]);
    double energy_err =
        water_max_difference(energies, alone.energy, steps * WATER_ENERGIES) / energy_scale;
    int same = pos_err < 1e-8 * par->box && energy_err < 1e-9;
    if (!same)
        fprintf(stderr, "water: differs from the sequential run: positions by %g, energies by %g\n",
                pos_err, energy_err);
    int ok = water_check_energy(energies, steps) && same;
    free(seq.pos);
    free(seq.vel);
    free(seq.force);
    free(alone.acc);
    free(alone.energy);
    return ok;
}

#endif
