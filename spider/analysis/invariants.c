/*
 * invariants.c — access-interleaving invariants learnt from passing runs
 * (invariants.h).
 */
#include "invariants.h"

#include "../../util/alloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#define FORMAT_NAME "spider-invariants"
#define FORMAT_VERSION 1

static const char *const kind_names[REGION_KINDS] = {"atomicity",
                                                     "multi-variable"};

/* A region: its key is the kind's byte, loc1, '\0', loc2 (bytewise order
 * of keys is the file's order). */
typedef struct region {
    char *key;
    size_t key_len;
    uint32_t executed, interleaved;
    UT_hash_handle hh;
} region;

struct invariants {
    region *table;
    uint32_t runs;
};

invariants *invariants_new(void)
{
    return xcalloc(1, sizeof(invariants));
}

void invariants_free(invariants *inv)
{
    if (!inv)
        return;
    region *r, *tmp;
    HASH_ITER(hh, inv->table, r, tmp) {
        HASH_DEL(inv->table, r);
        free(r->key);
        free(r);
    }
    free(inv);
}

uint32_t invariants_runs(const invariants *inv)
{
    return inv->runs;
}

/* The key of (k, loc1, loc2) in a new string; its length in *len. */
static char *region_key(region_kind k, const char *loc1, const char *loc2,
                        size_t *len)
{
    size_t n1 = strlen(loc1), n2 = strlen(loc2);
    *len = 1 + n1 + 1 + n2;
    char *key = xmalloc(*len + 1);
    key[0] = (char)('0' + k);
    memcpy(key + 1, loc1, n1 + 1);
    memcpy(key + 2 + n1, loc2, n2 + 1);
    return key;
}

static region *find_region(const invariants *inv, const char *key, size_t len)
{
    region *r;
    HASH_FIND(hh, inv->table, key, len, r);
    return r;
}

/* The region of key (taken over), added with zero counts if new. */
static region *add_region(invariants *inv, char *key, size_t len)
{
    region *r = find_region(inv, key, len);
    if (r) {
        free(key);
        return r;
    }
    r = xcalloc(1, sizeof *r);
    r->key = key;
    r->key_len = len;
    HASH_ADD_KEYPTR(hh, inv->table, r->key, r->key_len, r);
    return r;
}

size_t invariants_count(const invariants *inv, region_kind k,
                        size_t *interleaved)
{
    size_t n = 0, seen = 0;
    for (const region *r = inv->table; r; r = r->hh.next)
        if (r->key[0] == '0' + (int)k) {
            n++;
            seen += r->interleaved > 0;
        }
    if (interleaved)
        *interleaved = seen;
    return n;
}

invariant_state invariants_judge(const invariants *inv, region_kind k,
                                 const char *loc1, const char *loc2,
                                 const invariant_rule *rule,
                                 uint32_t *executed, uint32_t *interleaved)
{
    size_t len;
    char *key = region_key(k, loc1, loc2, &len);
    const region *r = find_region(inv, key, len);
    free(key);
    *executed = r ? r->executed : 0;
    *interleaved = r ? r->interleaved : 0;
    if (*interleaved > rule->threshold)
        return INVARIANT_SEEN;
    if (*executed < rule->min_runs || *executed == 0)
        return INVARIANT_UNLEARNT;
    return INVARIANT_HOLDS;
}

/* ---- learning one run ---------------------------------------------------- */

/* Accesses by context (thread, handler) and program order. */
static int context_cmp(const trace *t, uint32_t x, uint32_t y)
{
    const event *a = &t->events[x], *b = &t->events[y];
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    if (a->handler != b->handler)
        return a->handler < b->handler ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* By object, then context: consecutive accesses of a context to a
 * variable are neighbours. */
static int by_object_context(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    if (t->events[a].object != t->events[b].object)
        return t->events[a].object < t->events[b].object ? -1 : 1;
    return context_cmp(t, a, b);
}

static int by_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

typedef struct slice {
    const uint32_t *ev;
    uint32_t n;
} slice;

/* One variable's accesses in the run's own order (event ids: a node's
 * events as the input lists them), with prefix counts that tell how many
 * writes and reads of other threads lie between two of one thread. */
typedef struct observed {
    uint32_t *ev;            /* sorted by id */
    uint32_t n;
    uint32_t *writes;        /* writes[k]: writes among ev[0..k) */
    uint32_t *own;           /* own[k]: accesses of ev[k]'s thread among
                                ev[0..k) */
    uint32_t *own_writes;    /* own_writes[k]: the writes of those */
} observed;

/* Fills o from one variable's accesses s; count, count_w and stamp are
 * scratch, one per thread. */
static void observe(const trace *t, slice s, observed *o, uint32_t *count,
                    uint32_t *count_w, uint32_t *stamp, uint32_t token)
{
    memcpy(o->ev, s.ev, (size_t)s.n * sizeof *s.ev);
    qsort(o->ev, s.n, sizeof *o->ev, by_u32);
    o->n = s.n;
    uint32_t w = 0;
    for (uint32_t k = 0; k < s.n; k++) {
        const event *e = &t->events[o->ev[k]];
        if (stamp[e->thread] != token) {
            stamp[e->thread] = token;
            count[e->thread] = count_w[e->thread] = 0;
        }
        int is_w = e->kind == EV_WRITE;
        o->writes[k] = w;
        o->own[k] = count[e->thread];
        o->own_writes[k] = count_w[e->thread];
        w += is_w;
        count[e->thread]++;
        count_w[e->thread] += is_w;
    }
}

static uint32_t rank_of(const observed *o, uint32_t e)
{
    const uint32_t *at = bsearch(&e, o->ev, o->n, sizeof e, by_u32);
    return (uint32_t)(at - o->ev);
}

/* Whether an access of another thread falls between p and c (both of one
 * thread) in the run's order unserializably (AVIO's RWR, WWR, WRW, RWW):
 * a write, or a read when p and c are both writes. */
static int interleaved_between(const trace *t, const observed *o, uint32_t p,
                               uint32_t c)
{
    uint32_t i = rank_of(o, p), j = rank_of(o, c);
    if (i > j) {
        uint32_t s = i;
        i = j;
        j = s;
    }
    uint32_t i_w = t->events[o->ev[i]].kind == EV_WRITE;
    uint32_t all = j - i - 1, all_w = o->writes[j] - o->writes[i] - i_w;
    uint32_t own = o->own[j] - o->own[i] - 1;
    uint32_t own_w = o->own_writes[j] - o->own_writes[i] - i_w;
    uint32_t remote_w = all_w - own_w, remote_r = all - own - remote_w;
    if (t->events[p].kind == EV_WRITE && t->events[c].kind == EV_WRITE)
        return remote_r > 0;
    return remote_w > 0;
}

/* A run's region instances before they become strings. */
typedef struct sighting {
    uint8_t kind;
    uint8_t interleaved;
    uint32_t loc1, loc2;     /* trace_loc_id */
    uint32_t ev1, ev2;       /* an instance: where the locations come from */
} sighting;

typedef struct sightings {
    sighting *v;
    size_t n, cap;
} sightings;

static void sight(sightings *s, region_kind k, const trace *t, uint32_t e1,
                  uint32_t e2, int interleaved)
{
    ALLOC_GROW(s->v, s->n + 1, s->cap);
    s->v[s->n++] = (sighting){(uint8_t)k, (uint8_t)(interleaved != 0),
                              trace_loc_id(t, e1), trace_loc_id(t, e2), e1, e2};
}

static int by_region(const void *x, const void *y)
{
    const sighting *a = x, *b = y;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->loc1 != b->loc1)
        return a->loc1 < b->loc1 ? -1 : 1;
    return a->loc2 < b->loc2 ? -1 : a->loc2 > b->loc2;
}

/* The atomicity regions of one variable: s sorted by context. */
static void atomicity_regions(const trace *t, slice s, const observed *o,
                              sightings *out)
{
    for (uint32_t i = 0; i + 1 < s.n; i++) {
        uint32_t p = s.ev[i], c = s.ev[i + 1];
        const event *ep = &t->events[p], *ec = &t->events[c];
        if (ep->thread != ec->thread || ep->handler != ec->handler)
            continue;
        sight(out, REGION_KIND_ATOMICITY, t, p, c,
              interleaved_between(t, o, p, c));
    }
}

static int conflict(const trace *t, uint32_t a, uint32_t b)
{
    return t->events[a].kind == EV_WRITE || t->events[b].kind == EV_WRITE;
}

/* The part of ids (sorted) strictly between lo and hi. */
static slice between(slice ids, uint32_t lo, uint32_t hi)
{
    uint32_t a = 0, b = ids.n;
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (ids.ev[mid] <= lo)
            a = mid + 1;
        else
            b = mid;
    }
    uint32_t end = a;
    while (end < ids.n && ids.ev[end] < hi)
        end++;
    return (slice){ids.ev + a, end - a};
}

/* Whether one other thread has a bx (on a1's variable, conflicting with
 * a1) and a by (on a2's, conflicting with a2) both between a1 and a2 in
 * the run's order.  ids1, ids2: the two variables' accesses by id. */
static int multivar_interleaved(const trace *t, uint32_t a1, uint32_t a2,
                                slice ids1, slice ids2, uint32_t *stamp,
                                uint32_t token)
{
    uint32_t lo = a1 < a2 ? a1 : a2, hi = a1 < a2 ? a2 : a1;
    uint32_t self = t->events[a1].thread;
    slice bx = between(ids1, lo, hi), by = between(ids2, lo, hi);
    for (uint32_t k = 0; k < bx.n; k++)
        if (t->events[bx.ev[k]].thread != self && conflict(t, a1, bx.ev[k]))
            stamp[t->events[bx.ev[k]].thread] = token;
    for (uint32_t k = 0; k < by.n; k++) {
        const event *e = &t->events[by.ev[k]];
        if (e->thread != self && stamp[e->thread] == token &&
            conflict(t, a2, by.ev[k]))
            return 1;
    }
    return 0;
}

/* Scratch of one run's learning. */
typedef struct learner {
    const trace *t;
    slice *by_context;       /* per object: its accesses by context */
    slice *by_id;            /* per object: its accesses by id */
    uint32_t *stamp;         /* per thread */
    uint32_t token;
    sightings seen;
} learner;

/* The multi-variable regions of the correlated pair (x, y). */
static void multivar_regions(learner *l, uint32_t x, uint32_t y)
{
    const trace *t = l->t;
    slice cx = l->by_context[x], cy = l->by_context[y];
    uint32_t n = cx.n + cy.n, i = 0, j = 0;
    uint32_t *merged = xmalloc_array((size_t)n + 1, sizeof *merged);
    for (uint32_t k = 0; k < n; k++) {
        int take_x = j == cy.n ||
                     (i < cx.n && context_cmp(t, cx.ev[i], cy.ev[j]) < 0);
        merged[k] = take_x ? cx.ev[i++] : cy.ev[j++];
    }
    for (uint32_t k = 0; k + 1 < n; k++) {
        uint32_t a1 = merged[k], a2 = merged[k + 1];
        const event *e1 = &t->events[a1], *e2 = &t->events[a2];
        if (e1->thread != e2->thread || e1->handler != e2->handler ||
            e1->object == e2->object)
            continue;
        int on_x = (uint32_t)e1->object == x;
        sight(&l->seen, REGION_KIND_MULTIVAR, t, a1, a2,
              multivar_interleaved(t, a1, a2, l->by_id[on_x ? x : y],
                                   l->by_id[on_x ? y : x], l->stamp,
                                   ++l->token));
    }
    free(merged);
}

/* Every access of t, sorted by object and context, with each object's
 * slice of it in by_context and a copy by id in by_id (ids, its storage). */
static uint32_t *index_accesses(learner *l, uint32_t **ids)
{
    const trace *t = l->t;
    uint32_t n = 0;
    uint32_t *acc = xmalloc_array((size_t)t->n_events + 1, sizeof *acc);
    for (uint32_t e = 0; e < t->n_events; e++)
        if (event_is_access(&t->events[e]))
            acc[n++] = e;
    qsort_r(acc, n, sizeof *acc, by_object_context, (void *)t);
    *ids = xmalloc_array((size_t)n + 1, sizeof **ids);
    memcpy(*ids, acc, (size_t)n * sizeof *acc);
    for (uint32_t i = 0, j; i < n; i = j) {
        uint32_t o = (uint32_t)t->events[acc[i]].object;
        for (j = i; j < n && (uint32_t)t->events[acc[j]].object == o;)
            j++;
        l->by_context[o] = (slice){acc + i, j - i};
        qsort(*ids + i, j - i, sizeof **ids, by_u32);
        l->by_id[o] = (slice){*ids + i, j - i};
    }
    return acc;
}

/* The atomicity regions of every variable.  1 when stopped. */
static int learn_atomicity(learner *l, const volatile sig_atomic_t *stop)
{
    const trace *t = l->t;
    size_t most = 1;
    for (uint32_t o = 0; o < t->n_objects; o++)
        if (l->by_context[o].n > most)
            most = l->by_context[o].n;
    observed ob = {.ev = xmalloc_array(most, sizeof(uint32_t)),
                   .writes = xmalloc_array(most, sizeof(uint32_t)),
                   .own = xmalloc_array(most, sizeof(uint32_t)),
                   .own_writes = xmalloc_array(most, sizeof(uint32_t))};
    uint32_t *count = xcalloc((size_t)t->n_threads + 1, sizeof *count);
    uint32_t *count_w = xcalloc((size_t)t->n_threads + 1, sizeof *count_w);
    int stopped = 0;
    for (uint32_t o = 0; o < t->n_objects && !stopped; o++) {
        stopped = stop && *stop;
        if (l->by_context[o].n < 2)
            continue;
        observe(t, l->by_context[o], &ob, count, count_w, l->stamp,
                ++l->token);
        atomicity_regions(t, l->by_context[o], &ob, &l->seen);
    }
    free(ob.ev);
    free(ob.writes);
    free(ob.own);
    free(ob.own_writes);
    free(count);
    free(count_w);
    return stopped;
}

/* Adds a run's sightings to inv: each region once, interleaved when any
 * of its instances was. */
static void add_sightings(invariants *inv, const trace *t, sightings *s)
{
    if (s->n) /* qsort of a NULL array is undefined, even of nothing */
        qsort(s->v, s->n, sizeof *s->v, by_region);
    for (size_t i = 0, j; i < s->n; i = j) {
        int interleaved = 0;
        for (j = i; j < s->n && by_region(&s->v[i], &s->v[j]) == 0; j++)
            interleaved |= s->v[j].interleaved;
        char *loc1 = event_location_dup(t, s->v[i].ev1);
        char *loc2 = event_location_dup(t, s->v[i].ev2);
        size_t len;
        char *key = region_key((region_kind)s->v[i].kind, loc1, loc2, &len);
        region *r = add_region(inv, key, len);
        r->executed++;
        r->interleaved += interleaved != 0;
        free(loc1);
        free(loc2);
    }
}

int invariants_learn(invariants *inv, const trace *t, const correlation *c,
                     const volatile sig_atomic_t *stop)
{
    learner l = {.t = t,
                 .by_context = xcalloc((size_t)t->n_objects + 1, sizeof(slice)),
                 .by_id = xcalloc((size_t)t->n_objects + 1, sizeof(slice)),
                 .stamp = xcalloc((size_t)t->n_threads + 1, sizeof(uint32_t))};
    uint32_t *ids;
    uint32_t *acc = index_accesses(&l, &ids);
    int stopped = learn_atomicity(&l, stop);
    for (size_t k = 0; c && k < c->n && !stopped; k++) {
        stopped = stop && *stop;
        multivar_regions(&l, c->pairs[k].x, c->pairs[k].y);
    }
    if (!stopped) {
        add_sightings(inv, t, &l.seen);
        inv->runs++;
    }
    free(l.seen.v);
    free(l.by_context);
    free(l.by_id);
    free(l.stamp);
    free(ids);
    free(acc);
    return stopped;
}

/* ---- the file ------------------------------------------------------------ */

static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '\\': fputs("\\\\", f); break;
        case '\t': fputs("\\t", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        default: fputc(*s, f);
        }
    }
}

/* Undoes put_escaped() in place.  -1 on a backslash that starts no
 * escape. */
static int unescape(char *s)
{
    char *out = s;
    for (; *s; s++) {
        if (*s != '\\') {
            *out++ = *s;
            continue;
        }
        switch (*++s) {
        case '\\': *out++ = '\\'; break;
        case 't': *out++ = '\t'; break;
        case 'n': *out++ = '\n'; break;
        case 'r': *out++ = '\r'; break;
        default: return -1;
        }
    }
    *out = '\0';
    return 0;
}

static int by_key(const void *x, const void *y)
{
    const region *a = *(region *const *)x, *b = *(region *const *)y;
    size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
    int c = memcmp(a->key, b->key, n);
    return c ? c : (a->key_len > b->key_len) - (a->key_len < b->key_len);
}

static void write_regions(const invariants *inv, FILE *f)
{
    size_t n = HASH_COUNT(inv->table), i = 0;
    region **sorted = xmalloc_array(n + 1, sizeof *sorted);
    for (region *r = inv->table; r; r = r->hh.next)
        sorted[i++] = r;
    qsort(sorted, n, sizeof *sorted, by_key);
    fprintf(f, "# spider: access-interleaving invariants learnt from passing "
            "runs (docs/report.md)\n# kind, runs that executed the region, "
            "runs that interleaved it, its two locations\n%s %d\nruns %u\n",
            FORMAT_NAME, FORMAT_VERSION, inv->runs);
    for (i = 0; i < n; i++) {
        const region *r = sorted[i];
        const char *loc1 = r->key + 1, *loc2 = loc1 + strlen(loc1) + 1;
        fprintf(f, "%s\t%u\t%u\t", kind_names[r->key[0] - '0'], r->executed,
                r->interleaved);
        put_escaped(f, loc1);
        fputc('\t', f);
        put_escaped(f, loc2);
        fputc('\n', f);
    }
    free(sorted);
}

int invariants_save(const invariants *inv, const char *path, char *err,
                    size_t err_len)
{
    size_t len = strlen(path) + 16;
    char *tmp = xmalloc(len);
    snprintf(tmp, len, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, err_len, "%s: cannot write the invariants: %s", tmp,
                 strerror(errno));
        free(tmp);
        return -1;
    }
    write_regions(inv, f);
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        snprintf(err, err_len, "%s: cannot write the invariants: %s",
                 bad ? tmp : path, strerror(errno ? errno : EIO));
        remove(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

/* A count field: digits only, at most max. */
static int parse_count(const char *s, uint32_t max, uint32_t *out)
{
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 10)
        return -1;
    unsigned long long v = strtoull(s, NULL, 10);
    if (v > max)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Splits line (its end of line removed) at tabs into at most max fields;
 * returns how many. */
static int split_tabs(char *line, char **field, int max)
{
    int n = 0;
    for (char *p = line;; p++) {
        if (n == max)
            return max + 1;
        field[n++] = p;
        p = strchr(p, '\t');
        if (!p)
            return n;
        *p = '\0';
    }
}

/* One region line; -1 with the reason in why. */
static int read_region(invariants *inv, char *line, uint32_t runs,
                       const char **why)
{
    char *field[5];
    region_kind k = REGION_KINDS;
    uint32_t executed, interleaved;
    if (split_tabs(line, field, 5) != 5) {
        *why = "expected KIND<tab>EXECUTED<tab>INTERLEAVED<tab>LOCATION"
               "<tab>LOCATION";
        return -1;
    }
    for (int i = 0; i < REGION_KINDS; i++)
        if (strcmp(field[0], kind_names[i]) == 0)
            k = (region_kind)i;
    if (k == REGION_KINDS) {
        *why = "the kind is neither 'atomicity' nor 'multi-variable'";
        return -1;
    }
    if (parse_count(field[1], runs, &executed) != 0 ||
        parse_count(field[2], executed, &interleaved) != 0) {
        *why = "the counts must be whole numbers, interleaved <= executed "
               "<= runs";
        return -1;
    }
    if (unescape(field[3]) != 0 || unescape(field[4]) != 0 || !*field[3] ||
        !*field[4]) {
        *why = "a location is empty or has a backslash that is none of "
               "\\\\ \\t \\n \\r";
        return -1;
    }
    size_t len;
    char *key = region_key(k, field[3], field[4], &len);
    if (find_region(inv, key, len)) {
        free(key);
        *why = "the region is given twice";
        return -1;
    }
    region *r = add_region(inv, key, len);
    r->executed = executed;
    r->interleaved = interleaved;
    return 0;
}

/* Reads the header lines: 0 when line was one of them (or a comment),
 * 1 when it is a region line, -1 with why. */
static int read_header(char *line, int *state, uint32_t *runs,
                       const char **why)
{
    if (*state == 0) {
        size_t n = strlen(FORMAT_NAME);
        uint32_t version;
        if (strncmp(line, FORMAT_NAME " ", n + 1) != 0 ||
            parse_count(line + n + 1, UINT32_MAX, &version) != 0) {
            *why = "not an invariants file: its first line must be "
                   "'" FORMAT_NAME " 1' (write one with --learn)";
            return -1;
        }
        if (version != FORMAT_VERSION) {
            *why = "another version of the invariants format: this spider "
                   "reads version 1 (learn the runs again)";
            return -1;
        }
        *state = 1;
        return 0;
    }
    if (*state == 1) {
        if (strncmp(line, "runs ", 5) != 0 ||
            parse_count(line + 5, UINT32_MAX, runs) != 0) {
            *why = "expected 'runs N' after the version line";
            return -1;
        }
        *state = 2;
        return 0;
    }
    return 1;
}

/* Reads the file at path into the empty set into. */
static int read_file(invariants *into, const char *path, char *err,
                     size_t err_len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_len, "%s: cannot read the invariants: %s", path,
                 strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int state = 0, rc = 0;
    unsigned no = 0;
    const char *why = NULL;
    while (rc == 0 && (got = getline(&line, &cap, f)) != -1) {
        no++;
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = '\0';
        if (got == 0 || line[0] == '#')
            continue;
        int h = read_header(line, &state, &into->runs, &why);
        if (h == 1)
            h = read_region(into, line, into->runs, &why);
        if (h < 0)
            rc = -1;
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, err_len, "%s: read error", path);
        rc = -1;
    } else if (rc == 0 && state < 2) {
        snprintf(err, err_len, "%s: not an invariants file: no '%s' and "
                 "'runs' lines (write one with --learn)", path, FORMAT_NAME);
        rc = -1;
    } else if (rc) {
        snprintf(err, err_len, "%s:%u: %s", path, no, why);
    }
    free(line);
    fclose(f);
    return rc;
}

int invariants_load(invariants *inv, const char *path, char *err,
                    size_t err_len)
{
    invariants *file = invariants_new();
    int rc = read_file(file, path, err, err_len);
    if (rc == 0 && (uint64_t)inv->runs + file->runs > UINT32_MAX) {
        snprintf(err, err_len, "%s: more than %u runs in all", path,
                 UINT32_MAX);
        rc = -1;
    }
    if (rc == 0) {
        inv->runs += file->runs;
        region *r, *tmp;
        HASH_ITER(hh, file->table, r, tmp) {
            HASH_DEL(file->table, r);
            region *to = add_region(inv, r->key, r->key_len);
            to->executed += r->executed;
            to->interleaved += r->interleaved;
            free(r); /* its key is to's now, or add_region freed it */
        }
    }
    invariants_free(file);
    return rc;
}
