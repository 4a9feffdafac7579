/*
 * table.c - the statistics table (table.h). Up to TABLE_NODE_COLUMNS
 * nodes get a column each; a larger job's columns would not fit a
 * terminal, so it gets the smallest and largest node's value instead,
 * and always the total. A few rows end in a note saying what they count,
 * where the name alone misleads.
 */
#include "stats/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_NODE_COLUMNS 8
/* More rows than every counter built in (stats.h, counter.c's slots). */
#define TABLE_ROWS 256
#define CELL 24

typedef struct row {
    char name[STATS_NAME_MAX + 1];
    int ns;
    uint64_t *value; /* one per node */
} row;

struct stats_table {
    int nodes, first, nrows;
    row rows[TABLE_ROWS];
};

stats_table *stats_table_new(int nodes, int first)
{
    stats_table *t = calloc(1, sizeof *t);
    if (t) {
        t->nodes = nodes;
        t->first = first;
    }
    return t;
}

void stats_table_free(stats_table *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nrows; i++)
        free(t->rows[i].value);
    free(t);
}

static int good_name(const char *name)
{
    size_t len = strnlen(name, STATS_NAME_MAX + 1);
    if (len == 0 || len > STATS_NAME_MAX)
        return 0;
    return strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") == len;
}

static row *find_or_add(stats_table *t, const char *name, int ns)
{
    for (int i = 0; i < t->nrows; i++)
        if (!strcmp(t->rows[i].name, name))
            return t->rows[i].ns == ns ? &t->rows[i] : NULL;
    if (t->nrows == TABLE_ROWS)
        return NULL;
    row *r = &t->rows[t->nrows];
    r->value = calloc((size_t)t->nodes, sizeof *r->value);
    if (!r->value)
        return NULL;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->ns = ns;
    t->nrows++;
    return r;
}

int stats_table_set(stats_table *t, int node, const char *name, uint64_t value, int ns)
{
    if (node < 0 || node >= t->nodes || !good_name(name))
        return -1;
    row *r = find_or_add(t, name, ns != 0);
    if (!r)
        return -1;
    r->value[node] = value;
    return 0;
}

/* read_faults and write_faults count the protocols' fault work, which a
 * range check asks for too: a reader comparing them with and without
 * checks would see little change and conclude the checks removed nothing. */
static const struct {
    const char *name, *note;
} notes[] = {
    {"read_faults", "protocol actions, range checks' too"},
    {"write_faults", "protocol actions, range checks' too"},
    {"faults_taken", "hardware faults that reached a protocol"},
    {"cas_pages", "protocol actions by range checks: faults avoided"},
};

static const char *note_of(const char *name)
{
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++)
        if (!strcmp(notes[i].name, name))
            return notes[i].note;
    return NULL;
}

/* The columns of one row: each node's value, or the least and the most. */
typedef struct cells {
    int n;
    char text[TABLE_NODE_COLUMNS + 2][CELL];
} cells;

static void put_value(char *cell, uint64_t v, int ns)
{
    if (ns)
        snprintf(cell, CELL, "%.3f", (double)v * 1e-9);
    else
        snprintf(cell, CELL, "%llu", (unsigned long long)v);
}

static int row_cells(const stats_table *t, const row *r, cells *c)
{
    uint64_t total = 0, lo = UINT64_MAX, hi = 0;
    c->n = 0;
    for (int i = 0; i < t->nodes; i++) {
        uint64_t v = r->value[i];
        total += v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        if (t->nodes <= TABLE_NODE_COLUMNS)
            put_value(c->text[c->n++], v, r->ns);
    }
    if (t->nodes > TABLE_NODE_COLUMNS) {
        put_value(c->text[c->n++], lo, r->ns);
        put_value(c->text[c->n++], hi, r->ns);
    }
    if (t->nodes > 1)
        put_value(c->text[c->n++], total, r->ns);
    return total != 0;
}

static void header_cells(const stats_table *t, cells *c)
{
    c->n = 0;
    for (int i = 0; i < t->nodes && t->nodes <= TABLE_NODE_COLUMNS; i++)
        snprintf(c->text[c->n++], CELL, "node %d", t->first + i);
    if (t->nodes > TABLE_NODE_COLUMNS) {
        snprintf(c->text[c->n++], CELL, "least");
        snprintf(c->text[c->n++], CELL, "most");
    }
    if (t->nodes > 1)
        snprintf(c->text[c->n++], CELL, "total");
}

/* Every column as wide as its widest cell, rows shown or not alike. */
static void widths(const stats_table *t, int *name_w, int *w)
{
    cells c;
    header_cells(t, &c);
    *name_w = (int)strlen("counter");
    for (int k = 0; k < c.n; k++)
        w[k] = (int)strlen(c.text[k]);
    for (int i = 0; i < t->nrows; i++) {
        row_cells(t, &t->rows[i], &c);
        int len = (int)strlen(t->rows[i].name);
        *name_w = len > *name_w ? len : *name_w;
        for (int k = 0; k < c.n; k++)
            w[k] = (int)strlen(c.text[k]) > w[k] ? (int)strlen(c.text[k]) : w[k];
    }
}

static void put_row(FILE *f, const char *name, int name_w, const cells *c, const int *w)
{
    const char *note = note_of(name);
    fprintf(f, "%-*s", name_w, name);
    for (int k = 0; k < c->n; k++)
        fprintf(f, "  %*s", w[k], c->text[k]);
    if (note)
        fprintf(f, "  (%s)", note);
    fputc('\n', f);
}

char *stats_table_format(const stats_table *t, int all)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    int name_w, w[TABLE_NODE_COLUMNS + 2], shown = 0;
    cells c;
    widths(t, &name_w, w);
    for (int i = 0; i < t->nrows; i++)
        shown += row_cells(t, &t->rows[i], &c) || all;
    fprintf(f, "--- tessera statistics: %d node%s, %d of %d counters%s ---\n", t->nodes,
            t->nodes == 1 ? "" : "s", shown, t->nrows,
            all ? "" : " (the others are zero; TSR_STATS=all shows them)");
    header_cells(t, &c);
    put_row(f, "counter", name_w, &c, w);
    for (int i = 0; i < t->nrows; i++)
        if (row_cells(t, &t->rows[i], &c) || all)
            put_row(f, t->rows[i].name, name_w, &c, w);
    if (fclose(f)) {
        free(text);
        return NULL;
    }
    return text;
}
