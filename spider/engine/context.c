/*
 * context.c — an event as the report shows it, where it runs and what it
 * holds (context.h).
 *
 * It runs for every shown event of every group, so it looks only at what
 * concerns the event: its thread's lock sections (through the finder's
 * index), its own handler, that handler's
 * receive and the thread's CREATE.
 */
#include "context.h"

#include "../../util/alloc.h"

#include <stdlib.h>

/* What an event acts on, by name (event_ref.object). */
static char *object_name_dup(const trace *t, const event *ev)
{
    switch (ev->kind) {
    case EV_READ: case EV_WRITE: case EV_LOCK: case EV_UNLOCK:
    case EV_WAIT: case EV_NOTIFY: case EV_NOTIFYALL:
        return ev->object == NONE ? NULL
                                  : xstrdup(t->strings[t->objects[ev->object].name]);
    case EV_CREATE: case EV_JOIN:
        return ev->object == NONE ? NULL
                                  : xstrdup(t->strings[t->threads[ev->object].name]);
    case EV_SND: case EV_RCV:
        return ev->message == STR_NONE ? NULL : xstrdup(t->strings[ev->message]);
    default:
        return NULL;
    }
}

event_ref event_ref_of(const trace *t, uint32_t e)
{
    const event *ev = &t->events[e];
    const thread_info *th = &t->threads[ev->thread];
    return (event_ref){
        .thread = xstrdup(t->strings[th->name]),
        .node = xstrdup(t->strings[th->node]),
        .object = object_name_dup(t, ev),
        .location = event_location_dup(t, e),
        .file = xstrdup(t->files[ev->file]), .line = ev->line,
        .type = event_kind_name(ev->kind), .index = ev->pos};
}

/* The position of an event in its thread's program order. */
static uint32_t pos_of(const trace *t, uint32_t e)
{
    return t->events[e].pos;
}

/* The names of the locks of sections held[0..n), in that order. */
static void lock_names(const trace *t, const uint32_t *held, uint32_t n,
                       event_context *c)
{
    c->n_locks = n;
    c->locks = n ? xmalloc_array(n, sizeof *c->locks) : NULL;
    for (uint32_t i = 0; i < n; i++)
        c->locks[i] = xstrdup(t->strings[t->objects[t->sections[held[i]].lock].name]);
}

static event_ref *ref_new(const trace *t, uint32_t e)
{
    event_ref *r = xmalloc(sizeof *r);
    *r = event_ref_of(t, e);
    return r;
}

void context_events(const trace *t, uint32_t e, uint32_t out[CONTEXT_EVENTS])
{
    out[CONTEXT_HANDLER] = out[CONTEXT_SENDER] = out[CONTEXT_CREATED] = UINT32_MAX;
    int32_t h = t->events[e].handler;
    if (h != NONE) {
        const handler *hd = &t->handlers[h];
        out[CONTEXT_HANDLER] = hd->begin;
        const event *rcv = hd->rcv == NONE ? NULL : &t->events[hd->rcv];
        if (rcv && rcv->match != NONE && t->matches[rcv->match].n_sends)
            out[CONTEXT_SENDER] = t->matches[rcv->match].sends[0];
    }
    int32_t create = t->threads[t->events[e].thread].create;
    if (create != NONE)
        out[CONTEXT_CREATED] = (uint32_t)create;
}

/* The context of e, given the sections held at e, outermost first. */
static event_context *context_with(const trace *t, uint32_t e,
                                   const uint32_t *held, uint32_t n)
{
    event_context *c = xcalloc(1, sizeof *c);
    lock_names(t, held, n, c);
    uint32_t at[CONTEXT_EVENTS];
    context_events(t, e, at);
    if (at[CONTEXT_HANDLER] != UINT32_MAX) {
        c->handler = ref_new(t, at[CONTEXT_HANDLER]);
        int32_t rcv = t->handlers[t->events[e].handler].rcv;
        if (rcv != NONE && t->events[rcv].message != STR_NONE)
            c->message = xstrdup(t->strings[t->events[rcv].message]);
    }
    if (at[CONTEXT_SENDER] != UINT32_MAX)
        c->sender = ref_new(t, at[CONTEXT_SENDER]);
    if (at[CONTEXT_CREATED] != UINT32_MAX)
        c->created = ref_new(t, at[CONTEXT_CREATED]);
    return c;
}

/* ---- the finder: sections by acquire, with a max-release tree -------------- */

/* The sections held at position p are those acquired before p (a prefix of
 * the thread's sections by acquire) released after p: a tree of the
 * largest release position over ranges of that order finds them in
 * O(log sections) each. */
struct context_finder {
    const trace *t;
    uint32_t *order;                 /* section ids by thread, then acquire */
    uint32_t *acquire;               /* acquire position, by that order */
    uint32_t *thread_start;          /* order[thread_start[th] ..
                                        thread_start[th + 1]): th's */
    uint32_t *tree;                  /* tree[size + i]: the release position
                                        of order[i] (UINT32_MAX: never); a
                                        parent: the larger of its two */
    uint32_t size;                   /* leaves, a power of two */
};

typedef struct section_key {
    uint64_t key;                    /* thread << 32 | acquire position */
    uint32_t section;
} section_key;

static int cmp_section_key(const void *x, const void *y)
{
    uint64_t a = ((const section_key *)x)->key, b = ((const section_key *)y)->key;
    return (a > b) - (a < b);
}

static void sort_sections(context_finder *f)
{
    const trace *t = f->t;
    uint32_t n = t->n_sections;
    section_key *k = xmalloc_array(n + 1, sizeof *k);
    for (uint32_t s = 0; s < n; s++)
        k[s] = (section_key){(uint64_t)t->sections[s].thread << 32 |
                                 pos_of(t, t->sections[s].acquire), s};
    if (n > 1)
        qsort(k, n, sizeof *k, cmp_section_key);
    f->order = xmalloc_array(n + 1, sizeof *f->order);
    f->acquire = xmalloc_array(n + 1, sizeof *f->acquire);
    f->thread_start = xcalloc((size_t)t->n_threads + 1, sizeof *f->thread_start);
    for (uint32_t i = 0; i < n; i++) {
        f->order[i] = k[i].section;
        f->acquire[i] = (uint32_t)k[i].key;
        f->thread_start[t->sections[k[i].section].thread + 1]++;
    }
    for (uint32_t th = 0; th < t->n_threads; th++)
        f->thread_start[th + 1] += f->thread_start[th];
    free(k);
}

context_finder *context_finder_new(const trace *t)
{
    context_finder *f = xcalloc(1, sizeof *f);
    f->t = t;
    sort_sections(f);
    f->size = 1;
    while (f->size < t->n_sections)
        f->size *= 2;
    f->tree = xcalloc((size_t)f->size * 2, sizeof *f->tree);
    for (uint32_t i = 0; i < t->n_sections; i++) {
        int32_t r = t->sections[f->order[i]].release;
        f->tree[f->size + i] = r == NONE ? UINT32_MAX : pos_of(t, (uint32_t)r);
    }
    for (uint32_t i = f->size - 1; i > 0; i--)
        f->tree[i] = f->tree[2 * i] > f->tree[2 * i + 1] ? f->tree[2 * i]
                                                          : f->tree[2 * i + 1];
    return f;
}

/* Adds to held the sections order[i], lo <= i < hi, of the tree's node
 * (covering [nl, nr)) released after p, in order (of acquire: outermost
 * first). */
static void collect(const context_finder *f, uint32_t node, uint32_t nl,
                    uint32_t nr, uint32_t lo, uint32_t hi, uint32_t p,
                    uint32_t **held, uint32_t *n, uint32_t *cap)
{
    if (nr <= lo || hi <= nl || f->tree[node] <= p)
        return;
    if (nr - nl == 1) {
        ALLOC_GROW(*held, *n + 1, *cap);
        (*held)[(*n)++] = f->order[nl];
        return;
    }
    uint32_t mid = nl + (nr - nl) / 2;
    collect(f, 2 * node, nl, mid, lo, hi, p, held, n, cap);
    collect(f, 2 * node + 1, mid, nr, lo, hi, p, held, n, cap);
}

event_context *context_find(const context_finder *f, uint32_t e)
{
    const trace *t = f->t;
    uint32_t th = t->events[e].thread, p = pos_of(t, e);
    uint32_t lo = f->thread_start[th], hi = f->thread_start[th + 1];
    uint32_t a = lo, b = hi; /* the thread's sections acquired before p */
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (f->acquire[mid] < p)
            a = mid + 1;
        else
            b = mid;
    }
    uint32_t *held = NULL, n = 0, cap = 0;
    collect(f, 1, 0, f->size, lo, a, p, &held, &n, &cap);
    event_context *c = context_with(t, e, held, n);
    free(held);
    return c;
}

void context_finder_free(context_finder *f)
{
    if (!f)
        return;
    free(f->order);
    free(f->acquire);
    free(f->thread_start);
    free(f->tree);
    free(f);
}
