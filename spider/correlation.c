/*
 * correlation.c — mined and given correlated variables (correlation.h).
 */
#include "correlation.h"

#include "../traces/alloc.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

/* The gaps of one pair of objects (x < y by id while collecting). */
typedef struct gap_list {
    uint64_t key;            /* x << 32 | y */
    uint32_t *gaps;
    size_t n, cap;
    uint8_t given;
    UT_hash_handle hh;
} gap_list;

static uint64_t pair_key(uint32_t a, uint32_t b)
{
    return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

static gap_list *find_pair(gap_list **table, uint32_t a, uint32_t b, int add)
{
    uint64_t key = pair_key(a, b);
    gap_list *g;
    HASH_FIND(hh, *table, &key, sizeof key, g);
    if (!g && add) {
        g = xcalloc(1, sizeof *g);
        g->key = key;
        HASH_ADD(hh, *table, key, sizeof g->key, g);
    }
    return g;
}

/* ---- which variables count ----------------------------------------------- */

/* Per object: the number of threads that access it (capped at 2) and
 * whether it is a variable at all. */
static uint8_t *threads_per_variable(const trace *t)
{
    uint8_t *seen = xcalloc(t->n_objects + 1, 1);
    uint32_t *last = xmalloc_array(t->n_objects + 1, sizeof *last);
    for (uint32_t o = 0; o < t->n_objects; o++)
        last[o] = UINT32_MAX;
    for (uint32_t i = 0; i < t->n_threads; i++)
        for (uint32_t k = 0; k < t->threads[i].n_events; k++) {
            const event *e = &t->events[t->threads[i].events[k]];
            if (!event_is_access(e) || last[e->object] == i)
                continue;
            last[e->object] = i;
            if (seen[e->object] < 2)
                seen[e->object]++;
        }
    free(last);
    return seen;
}

/* ---- gaps ------------------------------------------------------------------- */

/* A thread's tracked variables in order of last access, most recent first
 * (a doubly linked list over object ids). */
typedef struct recency {
    uint32_t *prev, *next, *last_pos;
    uint8_t *in_list;
    uint32_t head;
} recency;

static void recency_unlink(recency *r, uint32_t v)
{
    if (r->prev[v] != UINT32_MAX)
        r->next[r->prev[v]] = r->next[v];
    else
        r->head = r->next[v];
    if (r->next[v] != UINT32_MAX)
        r->prev[r->next[v]] = r->prev[v];
}

static void recency_push(recency *r, uint32_t v, uint32_t pos)
{
    if (r->in_list[v])
        recency_unlink(r, v);
    r->prev[v] = UINT32_MAX;
    r->next[v] = r->head;
    if (r->head != UINT32_MAX)
        r->prev[r->head] = v;
    r->head = v;
    r->in_list[v] = 1;
    r->last_pos[v] = pos;
}

static void recency_clear(recency *r)
{
    for (uint32_t v = r->head; v != UINT32_MAX; v = r->next[v])
        r->in_list[v] = 0;
    r->head = UINT32_MAX;
}

static void add_gap(gap_list *g, uint32_t gap)
{
    ALLOC_GROW(g->gaps, g->n + 1, g->cap);
    g->gaps[g->n++] = gap;
}

/* Walks every thread once.  An access to v at pos, with u accessed after
 * v's previous access (u ahead of v in the recency list): in the merged
 * accesses to u or v, the one before this access is u's, so (u, v) gains
 * the gap pos − last_pos[u].  A pair's gaps are collected when both its
 * variables are tracked and, unless the user gave it, mined candidates
 * (each accessed by two threads or more). */
static void collect_gaps(const trace *t, const uint8_t *tracked,
                         const uint8_t *shared, gap_list **table)
{
    size_t n = (size_t)t->n_objects + 1;
    recency r = {xmalloc_array(n, sizeof(uint32_t)),
                 xmalloc_array(n, sizeof(uint32_t)),
                 xmalloc_array(n, sizeof(uint32_t)), xcalloc(n, 1),
                 UINT32_MAX};
    for (uint32_t i = 0; i < t->n_threads; i++) {
        const thread_info *th = &t->threads[i];
        for (uint32_t k = 0; k < th->n_events; k++) {
            const event *e = &t->events[th->events[k]];
            if (!event_is_access(e) || !tracked[e->object])
                continue;
            uint32_t v = (uint32_t)e->object;
            for (uint32_t u = r.head; u != UINT32_MAX && u != v; u = r.next[u]) {
                gap_list *g = find_pair(table, u, v, shared[u] && shared[v]);
                if (g)
                    add_gap(g, e->pos - r.last_pos[u]);
            }
            recency_push(&r, v, e->pos);
        }
        recency_clear(&r);
    }
    free(r.prev);
    free(r.next);
    free(r.last_pos);
    free(r.in_list);
}

/* ---- Sun's distance ----------------------------------------------------------- */

static int by_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The median of v[0..n) (n > 0), sorting v. */
static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* distance and support of a pair from its gaps (SPEC §4). */
static void sun_distance(const gap_list *g, double *distance, uint32_t *support)
{
    *distance = NAN;
    *support = 0;
    if (g == NULL || g->n == 0)
        return;
    double *v = xmalloc_array(g->n, sizeof *v);
    for (size_t i = 0; i < g->n; i++)
        v[i] = g->gaps[i];
    double m = median(v, g->n);
    for (size_t i = 0; i < g->n; i++)
        v[i] = fabs(g->gaps[i] - m);
    double mad = median(v, g->n);
    double sum = 0;
    for (size_t i = 0; i < g->n; i++) {
        double d = fabs(g->gaps[i] - m);
        if (mad == 0 ? d == 0 : d < 2 * 1.4826 * mad) {
            sum += g->gaps[i];
            ++*support;
        }
    }
    *distance = sum / *support; /* support > 0: the median gap, or those
                                   next to it, are always kept */
    free(v);
}

/* ---- given pairs -------------------------------------------------------------- */

/* Objects by variable name, to resolve the file's names. */
typedef struct name_entry {
    const char *name;
    uint32_t *objects;
    size_t n, cap;
    UT_hash_handle hh;
} name_entry;

static name_entry *index_variables(const trace *t, const uint8_t *shared_or_seen)
{
    name_entry *table = NULL;
    for (uint32_t o = 0; o < t->n_objects; o++) {
        if (!shared_or_seen[o])
            continue; /* a lock, or a variable nothing accesses */
        const char *name = t->strings[t->objects[o].name];
        name_entry *ne;
        HASH_FIND_STR(table, name, ne);
        if (!ne) {
            ne = xcalloc(1, sizeof *ne);
            ne->name = name;
            HASH_ADD_KEYPTR(hh, table, ne->name, strlen(ne->name), ne);
        }
        ALLOC_GROW(ne->objects, ne->n + 1, ne->cap);
        ne->objects[ne->n++] = o;
    }
    return table;
}

static void free_index(name_entry *table)
{
    name_entry *ne, *tmp;
    HASH_ITER(hh, table, ne, tmp) {
        HASH_DEL(table, ne);
        free(ne->objects);
        free(ne);
    }
}

/* Marks the pairs of one line; returns how many nodes it matched. */
static size_t give_pair(const trace *t, name_entry *index, const char *node,
                        const char *x, const char *y, uint8_t *tracked,
                        gap_list **table)
{
    name_entry *ex, *ey;
    HASH_FIND_STR(index, x, ex);
    HASH_FIND_STR(index, y, ey);
    size_t matched = 0;
    for (size_t i = 0; ex && ey && i < ex->n; i++)
        for (size_t j = 0; j < ey->n; j++) {
            uint32_t a = ex->objects[i], b = ey->objects[j];
            if (t->objects[a].node != t->objects[b].node ||
                (strcmp(node, "*") != 0 &&
                 strcmp(node, t->strings[t->objects[a].node]) != 0))
                continue;
            find_pair(table, a, b, 1)->given = 1;
            tracked[a] = tracked[b] = 1;
            matched++;
        }
    return matched;
}

/* Reads `NODE X Y` / `* X Y` lines.  -1 with "FILE:LINE: ..." in err. */
static int read_given(const trace *t, const char *path, uint8_t *tracked,
                      const uint8_t *seen, gap_list **table, FILE *warnings,
                      char *err, size_t err_len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_len, "%s: cannot read the correlated pairs: %s",
                 path, strerror(errno));
        return -1;
    }
    name_entry *index = index_variables(t, seen);
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    for (unsigned no = 1; rc == 0 && getline(&line, &cap, f) != -1; no++) {
        char *tok[4] = {0}, *save = NULL;
        int n = 0;
        for (char *p = strtok_r(line, " \t\r\n", &save); p && n < 4;
             p = strtok_r(NULL, " \t\r\n", &save))
            tok[n++] = p;
        if (n == 0 || tok[0][0] == '#')
            continue;
        if (n != 3 || strcmp(tok[1], tok[2]) == 0) {
            snprintf(err, err_len, "%s:%u: expected 'NODE X Y' or '* X Y' "
                     "(two different variables of a node, or of every node "
                     "with *)", path, no);
            rc = -1;
        } else if (!give_pair(t, index, tok[0], tok[1], tok[2], tracked,
                              table) && warnings) {
            fprintf(warnings, "spider: %s:%u: warning: no node accesses both "
                    "%s and %s\n", path, no, tok[1], tok[2]);
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, err_len, "%s: read error", path);
        rc = -1;
    }
    free(line);
    fclose(f);
    free_index(index);
    return rc;
}

/* ---- the result -------------------------------------------------------------- */

static int cmp_pairs(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    const correlated_pair *a = x, *b = y;
    int c = strcmp(t->strings[t->objects[a->x].node],
                   t->strings[t->objects[b->x].node]);
    if (!c)
        c = strcmp(t->strings[t->objects[a->x].name],
                   t->strings[t->objects[b->x].name]);
    if (!c)
        c = strcmp(t->strings[t->objects[a->y].name],
                   t->strings[t->objects[b->y].name]);
    return c;
}

static void keep_pairs(const trace *t, const correlation_options *o,
                       const uint8_t *shared, gap_list **table,
                       correlation *out)
{
    gap_list *g, *tmp;
    HASH_ITER(hh, *table, g, tmp) {
        uint32_t x = (uint32_t)(g->key >> 32), y = (uint32_t)g->key;
        correlated_pair p = {.x = x, .y = y};
        sun_distance(g, &p.distance, &p.support);
        if (shared[x] >= 2 && shared[y] >= 2 && p.support >= o->min_support &&
            p.distance <= o->max_distance)
            p.source |= CORRELATION_MINED;
        if (g->given)
            p.source |= CORRELATION_GIVEN;
        if (p.source) {
            if (strcmp(t->strings[t->objects[x].name],
                       t->strings[t->objects[y].name]) > 0)
                p.x = y, p.y = x;
            ALLOC_GROW(out->pairs, out->n + 1, out->cap);
            out->pairs[out->n++] = p;
        }
        HASH_DEL(*table, g);
        free(g->gaps);
        free(g);
    }
    qsort_r(out->pairs, out->n, sizeof *out->pairs, cmp_pairs, (void *)t);
}

int correlation_find(const trace *t, const correlation_options *o,
                     FILE *warnings, correlation *out, char *err,
                     size_t err_len)
{
    memset(out, 0, sizeof *out);
    uint8_t *threads = threads_per_variable(t);
    uint8_t *tracked = xcalloc(t->n_objects + 1, 1);
    uint8_t *shared = xcalloc(t->n_objects + 1, 1);
    for (uint32_t v = 0; v < t->n_objects; v++) {
        shared[v] = threads[v] >= 2;
        tracked[v] = shared[v];
    }
    gap_list *table = NULL;
    int rc = 0;
    if (o->given)
        rc = read_given(t, o->given, tracked, threads, &table, warnings, err,
                        err_len);
    if (rc == 0) {
        collect_gaps(t, tracked, shared, &table);
        keep_pairs(t, o, threads, &table, out);
    }
    gap_list *g, *tmp;
    HASH_ITER(hh, table, g, tmp) { /* left after an error */
        HASH_DEL(table, g);
        free(g->gaps);
        free(g);
    }
    free(threads);
    free(tracked);
    free(shared);
    return rc;
}

void correlation_free(correlation *c)
{
    free(c->pairs);
    memset(c, 0, sizeof *c);
}

const char *correlation_source_name(uint8_t source)
{
    return source == (CORRELATION_MINED | CORRELATION_GIVEN) ? "both"
         : source == CORRELATION_GIVEN                       ? "given"
                                                             : "mined";
}

correlation_ref *correlation_refs(const trace *t, const correlation *c)
{
    correlation_ref *refs = xcalloc(c->n + 1, sizeof *refs);
    for (size_t i = 0; i < c->n; i++) {
        const correlated_pair *p = &c->pairs[i];
        refs[i] = (correlation_ref){
            .node = xstrdup(t->strings[t->objects[p->x].node]),
            .x = xstrdup(t->strings[t->objects[p->x].name]),
            .y = xstrdup(t->strings[t->objects[p->y].name]),
            .distance = p->distance, .support = p->support,
            .source = correlation_source_name(p->source)};
    }
    return refs;
}

void correlation_refs_free(correlation_ref *refs, size_t n)
{
    for (size_t i = 0; i < n && refs; i++) {
        free(refs[i].node);
        free(refs[i].x);
        free(refs[i].y);
    }
    free(refs);
}

int correlation_list_print(const correlation_ref *refs, size_t n, int json,
                           FILE *out)
{
    if (json) {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddItemToObject(root, "correlated_pairs",
                              report_correlations_json(refs, n));
        char *text = cJSON_Print(root);
        if (!text)
            alloc_fail(0, "the JSON list of correlated pairs");
        fprintf(out, "%s\n", text);
        free(text);
        cJSON_Delete(root);
    } else {
        fprintf(out, "%-16s %-24s %-24s %9s %8s  %s\n", "node", "x", "y",
                "distance", "support", "source");
        for (size_t i = 0; i < n; i++) {
            fprintf(out, "%-16s %-24s %-24s ", refs[i].node, refs[i].x,
                    refs[i].y);
            if (isnan(refs[i].distance))
                fprintf(out, "%9s", "-");
            else
                fprintf(out, "%9.2f", refs[i].distance);
            fprintf(out, " %8u  %s\n", refs[i].support, refs[i].source);
        }
    }
    return ferror(out) ? -1 : 0;
}
