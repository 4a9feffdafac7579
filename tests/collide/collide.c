/*
 * collide.c - a user's program whose own global names are the ones Tessera
 * uses inside itself. tests/sh/exports.sh lists them from the internal
 * archive's symbol table as collide_names.h: COLLIDE_VAR(name, value) for a
 * variable, COLLIDE_FN(name, value) for a function, each value distinct.
 *
 * If any internal name leaked out of libtessera, linking this program with
 * libtessera.a would fail on a duplicate definition, and with libtessera.so
 * the library would bind to the program's definitions: it would overwrite
 * the variables or call the functions. Both are checked after Tessera has
 * run locks, barriers and an allocation.
 */
#include <stdio.h>

#include "tessera.h"

/* The program's definitions: each variable holds, and each function
 * returns, its own value. */
#define COLLIDE_VAR(name, value) volatile long name = value;
#define COLLIDE_FN(name, value) long name(void) { return value; }
#include "collide_names.h"
#undef COLLIDE_VAR
#undef COLLIDE_FN

typedef struct collide_name {
    const char *name;
    volatile long *var; /* the program's variable of that name, or NULL */
    long (*fn)(void);   /* the program's function of that name, or NULL */
    long value;
} collide_name;

static const collide_name names[] = {
#define COLLIDE_VAR(name, value) {#name, &name, NULL, value},
#define COLLIDE_FN(name, value) {#name, NULL, name, value},
#include "collide_names.h"
};
#define NNAMES ((int)(sizeof names / sizeof names[0]))

#define ROUNDS 50

/* Returns how many of the program's names no longer hold their value. */
static int names_changed(void)
{
    int changed = 0;
    for (int i = 0; i < NNAMES; i++) {
        const collide_name *c = &names[i];
        long got = c->var ? *c->var : c->fn();
        if (got != c->value) {
            printf("node %d: the program's '%s' is %ld, not %ld\n", tsr_node(), c->name, got,
                   c->value);
            changed++;
        }
    }
    return changed;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    long *counter = tsr_alloc(sizeof *counter);
    for (int i = 0; i < ROUNDS; i++) {
        tsr_lock(1);
        (*counter)++;
        tsr_unlock(1);
    }
    tsr_barrier();
    long want = (long)ROUNDS * tsr_nodes();
    int changed = names_changed();
    int pass = *counter == want && changed == 0;
    printf("node %d: counter %ld want %ld, %d of %d names changed %s\n", tsr_node(), *counter,
           want, changed, NNAMES, pass ? "PASS" : "FAIL");
    tsr_finalize();
    return !pass;
}
