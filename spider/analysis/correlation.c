/*
 * correlation.c — mined and given correlated variables (correlation.h).
 */
#include "correlation.h"

#include "../../util/alloc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

/* A pair of objects to compute: x < y by id. */
typedef struct pair_entry {
    uint64_t key;            /* x << 32 | y */
    uint8_t source;          /* CORRELATION_GIVEN | CORRELATION_MUVI */
    int32_t rule;            /* MUVI: the strongest rule, or -1 */
    UT_hash_handle hh;
} pair_entry;

static uint64_t pair_key(uint32_t a, uint32_t b)
{
    return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

static pair_entry *add_pair(pair_entry **table, uint32_t a, uint32_t b)
{
    uint64_t key = pair_key(a, b);
    pair_entry *p;
    HASH_FIND(hh, *table, &key, sizeof key, p);
    if (!p) {
        p = xcalloc(1, sizeof *p);
        p->key = key;
        p->rule = -1;
        HASH_ADD(hh, *table, key, sizeof p->key, p);
    }
    return p;
}

static void free_pairs(pair_entry **table)
{
    pair_entry *p, *tmp;
    HASH_ITER(hh, *table, p, tmp) {
        HASH_DEL(*table, p);
        free(p);
    }
}

/* ---- which variables count ----------------------------------------------- */

/* Per object: the number of threads that access it, capped at 2 (0: a
 * lock, or a variable nothing accesses). */
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

/* ---- pass 1: the pairs that may be correlated ----------------------------------- */

/* A thread's variables in order of last access, most recent first (a
 * doubly linked list over object ids). */
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

/* Mining can only find a pair with a gap of at most max_distance (the
 * kept gaps' mean is at least their least), so these are all it needs to
 * look at: an access to v at pos, and u ahead of v in the recency list
 * (accessed since v's previous access) at most max_distance before — the
 * list is by last access, so the walk stops at the first one further. */
static void close_pairs(const trace *t, const uint8_t *shared,
                        double max_distance, pair_entry **table)
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
            if (!event_is_access(e) || shared[e->object] < 2)
                continue;
            uint32_t v = (uint32_t)e->object;
            for (uint32_t u = r.head; u != UINT32_MAX && u != v &&
                                      e->pos - r.last_pos[u] <= max_distance;
                 u = r.next[u])
                add_pair(table, u, v);
            recency_push(&r, v, e->pos);
        }
        recency_clear(&r);
    }
    free(r.prev);
    free(r.next);
    free(r.last_pos);
    free(r.in_list);
}

/* ---- pass 2: a pair's gaps --------------------------------------------------- */

/* Every access of the trace by (object, thread, position); object o's are
 * ev[start[o] .. start[o + 1]). */
typedef struct access_index {
    const trace *t;
    uint32_t *ev, *start;
} access_index;

static int by_object_thread_pos(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    const event *a = &t->events[*(const uint32_t *)x];
    const event *b = &t->events[*(const uint32_t *)y];
    if (a->object != b->object)
        return a->object < b->object ? -1 : 1;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static access_index index_accesses(const trace *t)
{
    access_index ix = {t, xmalloc_array((size_t)t->n_events + 1, sizeof(uint32_t)),
                       xcalloc((size_t)t->n_objects + 2, sizeof(uint32_t))};
    uint32_t n = 0;
    for (uint32_t e = 0; e < t->n_events; e++)
        if (event_is_access(&t->events[e])) {
            ix.ev[n++] = e;
            ix.start[t->events[e].object + 1]++;
        }
    for (uint32_t o = 0; o < t->n_objects; o++)
        ix.start[o + 1] += ix.start[o];
    qsort_r(ix.ev, n, sizeof *ix.ev, by_object_thread_pos, (void *)t);
    return ix;
}

/* The accesses of object o in thread th: [*lo, *hi) of ix.ev. */
static void thread_run(const access_index *ix, uint32_t o, uint32_t th,
                       uint32_t *lo, uint32_t *hi)
{
    uint32_t a = ix->start[o], b = ix->start[o + 1];
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (ix->t->events[ix->ev[mid]].thread < th)
            a = mid + 1;
        else
            b = mid;
    }
    *lo = a;
    while (a < ix->start[o + 1] && ix->t->events[ix->ev[a]].thread == th)
        a++;
    *hi = a;
}

/* The first of ev[lo..hi) (positions ascending) at or after pos. */
static uint32_t first_from(const access_index *ix, uint32_t lo, uint32_t hi,
                           uint32_t pos)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ix->t->events[ix->ev[mid]].pos < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The gaps of the pair (u, v) into *gaps (SPEC §4), from the side of the
 * one with fewer accesses, s: in the merged accesses of a thread, each
 * access of s has the other variable, d, just before it when d's last
 * access before it follows s's previous one, and just after it when d's
 * next access comes before s's next one.  Each adjacent pair on different
 * variables holds exactly one access of s, so it is counted once.  Time:
 * s's accesses times the log of d's. */
static size_t pair_gaps(const access_index *ix, uint32_t u, uint32_t v,
                        uint32_t **gaps, size_t *cap)
{
    const trace *t = ix->t;
    int u_fewer = ix->start[u + 1] - ix->start[u] < ix->start[v + 1] - ix->start[v];
    uint32_t s = u_fewer ? u : v, d = u_fewer ? v : u;
    size_t n = 0;
    for (uint32_t i = ix->start[s]; i < ix->start[s + 1];) {
        uint32_t th = t->events[ix->ev[i]].thread, s_end = i, d_lo, d_hi;
        while (s_end < ix->start[s + 1] && t->events[ix->ev[s_end]].thread == th)
            s_end++;
        thread_run(ix, d, th, &d_lo, &d_hi);
        for (uint32_t k = i, j = d_lo; k < s_end && d_lo < d_hi; k++) {
            uint32_t p = t->events[ix->ev[k]].pos;
            j = first_from(ix, j, d_hi, p);
            uint32_t prev_s = k > i ? t->events[ix->ev[k - 1]].pos : 0;
            int has_prev_s = k > i;
            ALLOC_GROW(*gaps, n + 2, *cap);
            if (j > d_lo) {
                uint32_t q = t->events[ix->ev[j - 1]].pos;
                if (!has_prev_s || q > prev_s)
                    (*gaps)[n++] = p - q;
            }
            if (j < d_hi) {
                uint32_t q = t->events[ix->ev[j]].pos;
                if (k + 1 == s_end || q < t->events[ix->ev[k + 1]].pos)
                    (*gaps)[n++] = q - p;
            }
        }
        i = s_end;
    }
    return n;
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
static void sun_distance(const uint32_t *gaps, size_t n, double *distance,
                         uint32_t *support)
{
    *distance = NAN;
    *support = 0;
    if (n == 0)
        return;
    double *v = xmalloc_array(n, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = gaps[i];
    double m = median(v, n);
    for (size_t i = 0; i < n; i++)
        v[i] = fabs(gaps[i] - m);
    double mad = median(v, n);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(gaps[i] - m);
        if (mad == 0 ? d == 0 : d < 2 * 1.4826 * mad) {
            sum += gaps[i];
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

/* Marks the pairs of x and y on node (or "*": every node) as coming
 * from source; returns how many nodes it matched. */
static size_t mark_pair(const trace *t, name_entry *index, const char *node,
                        const char *x, const char *y, uint8_t source,
                        int32_t rule, pair_entry **table)
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
            pair_entry *e = add_pair(table, a, b);
            e->source |= source;
            if (rule >= 0)
                e->rule = rule;
            matched++;
        }
    return matched;
}

/* Reads `NODE X Y` / `* X Y` lines.  -1 with "FILE:LINE: ..." in err. */
static int read_given(const trace *t, const char *path, const uint8_t *seen,
                      pair_entry **table, FILE *warnings,
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
        } else if (!mark_pair(t, index, tok[0], tok[1], tok[2],
                              CORRELATION_GIVEN, -1, table) &&
                   warnings) {
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

/* The pairs of the table that are used: mined (shared variables, the
 * thresholds met) or given. */
static void keep_pairs(const trace *t, const correlation_options *o,
                       const uint8_t *threads, pair_entry *table,
                       correlation *out)
{
    access_index ix = index_accesses(t);
    uint32_t *gaps = NULL;
    size_t cap = 0;
    pair_entry *e, *tmp;
    HASH_ITER(hh, table, e, tmp) {
        uint32_t x = (uint32_t)(e->key >> 32), y = (uint32_t)e->key;
        correlated_pair p = {.x = x, .y = y};
        size_t n = pair_gaps(&ix, x, y, &gaps, &cap);
        sun_distance(gaps, n, &p.distance, &p.support);
        if ((o->miners & MINER_SUN) && threads[x] >= 2 && threads[y] >= 2 &&
            p.support >= o->min_support && p.distance <= o->max_distance)
            p.source |= CORRELATION_MINED;
        p.source |= e->source;
        p.rule = e->rule;
        if (!p.source)
            continue;
        if (strcmp(t->strings[t->objects[x].name],
                   t->strings[t->objects[y].name]) > 0)
            p.x = y, p.y = x;
        ALLOC_GROW(out->pairs, out->n + 1, out->cap);
        out->pairs[out->n++] = p;
    }
    free(gaps);
    free(ix.ev);
    free(ix.start);
    if (out->n) /* qsort of a NULL array is undefined, even of nothing */
        qsort_r(out->pairs, out->n, sizeof *out->pairs, cmp_pairs, (void *)t);
}

/* The strongest rule of two variables (by name): the highest
 * confidence, then support, then the first in the rules' order. */
typedef struct best_rule {
    uint64_t key;            /* the names' string ids, lower first */
    int32_t rule;
    UT_hash_handle hh;
} best_rule;

static int stronger(const muvi_rule *q, const muvi_rule *b)
{
    return q->confidence > b->confidence ||
           (q->confidence == b->confidence && q->support > b->support);
}

/* MUVI's rules, and a pair on every node for each two variables a rule
 * relates, with their strongest rule. */
static void muvi_pairs(const trace *t, const correlation_options *o,
                       const uint8_t *seen, pair_entry **table,
                       correlation *out)
{
    out->n_rules = muvi_mine(t, &o->muvi, &out->rules);
    best_rule *best = NULL, *e, *tmp;
    for (size_t i = 0; i < out->n_rules; i++) {
        const muvi_rule *r = &out->rules[i];
        uint64_t key = r->from < r->to ? (uint64_t)r->from << 32 | r->to
                                       : (uint64_t)r->to << 32 | r->from;
        HASH_FIND(hh, best, &key, sizeof key, e);
        if (!e) {
            e = xcalloc(1, sizeof *e);
            e->key = key;
            e->rule = (int32_t)i;
            HASH_ADD(hh, best, key, sizeof e->key, e);
        } else if (stronger(r, &out->rules[e->rule])) {
            e->rule = (int32_t)i;
        }
    }
    name_entry *index = index_variables(t, seen);
    HASH_ITER(hh, best, e, tmp) {
        const muvi_rule *r = &out->rules[e->rule];
        mark_pair(t, index, "*", t->strings[r->from], t->strings[r->to],
                  CORRELATION_MUVI, e->rule, table);
        HASH_DEL(best, e);
        free(e);
    }
    free_index(index);
}

int correlation_find(const trace *t, const correlation_options *o,
                     FILE *warnings, correlation *out, char *err,
                     size_t err_len)
{
    memset(out, 0, sizeof *out);
    uint8_t *threads = threads_per_variable(t);
    pair_entry *table = NULL;
    int rc = 0;
    if (o->given)
        rc = read_given(t, o->given, threads, &table, warnings, err, err_len);
    if (rc == 0 && (o->miners & MINER_MUVI))
        muvi_pairs(t, o, threads, &table, out);
    if (rc == 0) {
        if (o->miners & MINER_SUN)
            close_pairs(t, threads, o->max_distance, &table);
        keep_pairs(t, o, threads, table, out);
    }
    free_pairs(&table);
    free(threads);
    return rc;
}

void correlation_free(correlation *c)
{
    free(c->pairs);
    free(c->rules);
    memset(c, 0, sizeof *c);
}

const char *correlation_source_name(uint8_t source)
{
    static const char *const names[8] = {
        "mined", "mined", "given", "both", "muvi", "mined+muvi",
        "given+muvi", "mined+given+muvi"};
    return names[source & 7];
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
        if (p->rule >= 0) {
            const muvi_rule *r = &c->rules[p->rule];
            if (asprintf(&refs[i].rule, "%s(%s) => %s(%s)",
                         muvi_access_name(r->a1), t->strings[r->from],
                         muvi_access_name(r->a2), t->strings[r->to]) < 0)
                alloc_fail(0, "a rule's text");
            refs[i].rule_support = r->support;
            refs[i].rule_confidence = r->confidence;
        }
    }
    return refs;
}

void correlation_refs_free(correlation_ref *refs, size_t n)
{
    for (size_t i = 0; i < n && refs; i++) {
        free(refs[i].node);
        free(refs[i].x);
        free(refs[i].y);
        free(refs[i].rule);
    }
    free(refs);
}
