/*
 * trace_derive.c — the facts every later step needs, derived once after
 * loading: program order, handler binding, message matching, lock
 * sections and wait/notify candidates (docs/model.md); and the warnings
 * of loading and deriving (trace_warn()).
 */
#include "trace_internal.h"
#include "../util/alloc.h"
#include "../util/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A warning names files, types and threads of the input: it is written
 * through text_put() so that no control character of theirs reaches the
 * terminal. */
void trace_warn(trace *t, const trace_options *opts, const char *fmt, ...)
{
    t->stats.warnings++;
    if (!opts->warnings)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *line = NULL;
    if (vasprintf(&line, fmt, ap) < 0)
        alloc_fail(strlen(fmt), "a warning");
    va_end(ap);
    fputs("spider: warning: ", opts->warnings);
    text_put(opts->warnings, line);
    fputc('\n', opts->warnings);
    free(line);
}

static int cmp_by_timestamp(const void *a, const void *b, void *ctx)
{
    const trace *t = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int64_t tx = t->events[x].timestamp, ty = t->events[y].timestamp;
    if (tx != ty)
        return tx < ty ? -1 : 1;
    return x < y ? -1 : x > y; /* event ids keep the sort stable */
}

static void build_program_order(trace *t, trace_order order,
                                const uint8_t *index_given)
{
    for (uint32_t i = 0; i < t->n_events; i++)
        t->threads[t->events[i].thread].n_events++;
    for (uint32_t i = 0; i < t->n_threads; i++) {
        t->threads[i].events =
            xmalloc(sizeof(uint32_t) * (t->threads[i].n_events + 1));
        t->threads[i].n_events = 0;
    }
    for (uint32_t i = 0; i < t->n_events; i++) {
        thread_info *th = &t->threads[t->events[i].thread];
        if (!index_given || !index_given[i])
            t->events[i].input_index = th->n_events;
        th->events[th->n_events++] = i;
    }
    for (uint32_t i = 0; i < t->n_threads; i++) {
        thread_info *th = &t->threads[i];
        if (order == ORDER_TIMESTAMP)
            qsort_r(th->events, th->n_events, sizeof(uint32_t),
                    cmp_by_timestamp, t);
        for (uint32_t k = 0; k < th->n_events; k++)
            t->events[th->events[k]].pos = k;
    }
    for (uint32_t i = 0; i < t->n_events; i++) {
        const event *e = &t->events[i];
        if (e->kind == EV_CREATE && t->threads[e->object].create == NONE)
            t->threads[e->object].create = (int32_t)i;
    }
}

/* A JOIN of a thread that has no event in the trace orders nothing: a
 * misspelt name, or a thread that was not traced; said, not silent. */
static void check_joins(trace *t, const trace_options *opts)
{
    for (uint32_t i = 0; i < t->n_events; i++) {
        const event *e = &t->events[i];
        if (e->kind != EV_JOIN || t->threads[e->object].n_events)
            continue;
        t->stats.joins_unknown++;
        trace_warn(t, opts, "%s:%u: JOIN of thread %s, which has no event in "
                   "the trace; it orders nothing", t->files[e->file], e->line,
                   t->strings[t->threads[e->object].name]);
    }
}

/* ---- handlers ------------------------------------------------------------ */

typedef struct u32_stack {
    uint32_t *v;
    uint32_t n, cap;
} u32_stack;

static void push(u32_stack *s, uint32_t x)
{
    ENSURE(s->v, s->cap, s->n + 1);
    s->v[s->n++] = x;
}

static void bind_thread_handlers(trace *t, const trace_options *opts,
                                 uint32_t tid, uint32_t *cap,
                                 u32_stack *unhandled, u32_stack *open)
{
    const thread_info *th = &t->threads[tid];
    unhandled->n = open->n = 0;
    for (uint32_t k = 0; k < th->n_events; k++) {
        uint32_t id = th->events[k];
        event *e = &t->events[id];
        if (e->kind == EV_HANDLERBEGIN) {
            handler h = {.thread = tid, .rcv = NONE, .begin = id, .last = id,
                         .parent = open->n ? (int32_t)open->v[open->n - 1]
                                           : NONE};
            if (unhandled->n)
                h.rcv = (int32_t)unhandled->v[--unhandled->n];
            else {
                t->stats.handlers_without_message++;
                trace_warn(t, opts, "%s:%u: HANDLERBEGIN with no "
                           "unhandled RCV before it: a handler of no message",
                           t->files[e->file], e->line);
            }
            ENSURE(t->handlers, *cap, t->n_handlers + 1);
            t->handlers[t->n_handlers] = h;
            push(open, t->n_handlers++);
        }
        e->handler = open->n ? (int32_t)open->v[open->n - 1] : NONE;
        if (e->kind == EV_RCV)
            push(unhandled, id);
        if (e->kind == EV_HANDLEREND) {
            if (open->n) {
                t->handlers[open->v[--open->n]].last = id;
            } else {
                t->stats.handler_ends_ignored++;
                trace_warn(t, opts, "%s:%u: HANDLEREND outside any "
                           "handler; ignored", t->files[e->file], e->line);
            }
        }
    }
    while (open->n) {
        handler *h = &t->handlers[open->v[--open->n]];
        h->last = th->events[th->n_events - 1];
        t->stats.handlers_unclosed++;
        trace_warn(t, opts, "%s:%u: handler still open at the end of "
                   "thread %s; closed at its last event",
                   t->files[t->events[h->begin].file],
                   t->events[h->begin].line, t->strings[th->name]);
    }
}

static void bind_handlers(trace *t, const trace_options *opts)
{
    uint32_t cap = 0;
    u32_stack unhandled = {0}, open = {0};
    for (uint32_t i = 0; i < t->n_threads; i++)
        bind_thread_handlers(t, opts, i, &cap, &unhandled, &open);
    free(unhandled.v);
    free(open.v);
}

/* ---- messages ------------------------------------------------------------ */

static uint32_t add_match(trace *t, uint32_t *cap, uint32_t rcv,
                          const uint32_t *sends, uint32_t n, int all)
{
    ENSURE(t->matches, *cap, t->n_matches + 1);
    rcv_match *m = &t->matches[t->n_matches];
    m->rcv = rcv;
    m->n_sends = n;
    m->all = (uint8_t)all;
    m->sends = xmalloc(sizeof(uint32_t) * n);
    memcpy(m->sends, sends, sizeof(uint32_t) * n);
    t->events[rcv].match = (int32_t)t->n_matches;
    return t->n_matches++;
}

/* Buckets the events selected by `want` by key (str ids or channel ids):
 * returns start offsets (n_keys + 1) into *order, which lists event ids.
 * Inlined, so that want and key are no calls (two passes over every
 * event, four times). */
static inline __attribute__((always_inline)) uint32_t *
bucket(const trace *t, uint32_t n_keys, int (*want)(const event *),
       uint32_t (*key)(const event *), uint32_t **order)
{
    uint32_t *start = xcalloc(n_keys + 2, sizeof(uint32_t));
    uint32_t total = 0;
    for (uint32_t i = 0; i < t->n_events; i++)
        if (want(&t->events[i])) {
            start[key(&t->events[i]) + 2]++;
            total++;
        }
    for (uint32_t k = 0; k < n_keys; k++)
        start[k + 2] += start[k + 1];
    *order = xmalloc(sizeof(uint32_t) * (total + 1));
    for (uint32_t i = 0; i < t->n_events; i++)
        if (want(&t->events[i]))
            (*order)[start[key(&t->events[i]) + 1]++] = i;
    return start; /* now start[k]..start[k+1] is bucket k */
}

static int is_id_send(const event *e)
{
    return e->kind == EV_SND && e->message != STR_NONE;
}
static int is_stream_send(const event *e)
{
    return e->kind == EV_SND && e->message == STR_NONE && e->tcp;
}
static int is_stream_rcv(const event *e)
{
    return e->kind == EV_RCV && e->message == STR_NONE && e->tcp;
}
static uint32_t message_key(const event *e) { return e->message; }
static uint32_t channel_key(const event *e) { return (uint32_t)e->object; }

/* Sends of one id in the order they happened: by timestamp, then by
 * thread name and position, which do not depend on how files are split. */
static int cmp_sends(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    const event *a = &t->events[*(const uint32_t *)x];
    const event *b = &t->events[*(const uint32_t *)y];
    if (a->timestamp != b->timestamp)
        return a->timestamp < b->timestamp ? -1 : 1;
    if (a->thread != b->thread)
        return strcmp(t->strings[t->threads[a->thread].name],
                      t->strings[t->threads[b->thread].name]);
    return a->input_index < b->input_index ? -1 : a->input_index > b->input_index;
}

static void match_by_id(trace *t, uint32_t *cap, uint8_t *received)
{
    uint32_t *order;
    uint32_t *start = bucket(t, t->n_strings, is_id_send, message_key, &order);
    for (uint32_t i = 0; i < t->n_events; i++) {
        const event *e = &t->events[i];
        if (e->kind != EV_RCV || e->message == STR_NONE)
            continue;
        uint32_t b = start[e->message], n = start[e->message + 1] - b;
        if (n == 0)
            continue;
        if (n > 1) /* "its send" is the first, whatever the file layout */
            qsort_r(order + b, n, sizeof *order, cmp_sends, t);
        add_match(t, cap, i, order + b, n, 0);
        for (uint32_t k = 0; k < n; k++)
            received[order[b + k]] = 1;
    }
    free(order);
    free(start);
}

/* a + b for byte counts (both >= 0), saturating: sizes are int64 as read
 * and two of 9e18 would overflow; past INT64_MAX bytes no order is real
 * anyway. */
static int64_t add_bytes(int64_t a, int64_t b)
{
    return b > INT64_MAX - a ? INT64_MAX : a + b;
}

/* TCP without ids: the k-th byte sent on a channel is the k-th received;
 * a RCV follows every SND whose bytes it consumes. */
static void match_byte_streams(trace *t, uint32_t *cap, uint8_t *received)
{
    uint32_t *snd_order, *rcv_order;
    uint32_t *snd = bucket(t, t->n_channels, is_stream_send, channel_key,
                           &snd_order);
    uint32_t *rcv = bucket(t, t->n_channels, is_stream_rcv, channel_key,
                           &rcv_order);
    u32_stack consumed = {0};
    for (uint32_t c = 0; c < t->n_channels; c++) {
        uint32_t s = snd[c];
        int64_t s_lo = 0, r_lo = 0; /* first byte of send s, of receive r */
        for (uint32_t r = rcv[c]; r < rcv[c + 1]; r++) {
            uint32_t ev = rcv_order[r];
            int64_t r_hi = add_bytes(r_lo, t->events[ev].size);
            while (s < snd[c + 1] &&
                   add_bytes(s_lo, t->events[snd_order[s]].size) <= r_lo)
                s_lo = add_bytes(s_lo, t->events[snd_order[s++]].size);
            consumed.n = 0;
            int64_t lo = s_lo;
            for (uint32_t k = s; k < snd[c + 1] && lo < r_hi; k++) {
                int64_t size = t->events[snd_order[k]].size;
                if (size > 0)
                    push(&consumed, snd_order[k]);
                lo = add_bytes(lo, size);
            }
            if (consumed.n) {
                add_match(t, cap, ev, consumed.v, consumed.n, 1);
                for (uint32_t k = 0; k < consumed.n; k++)
                    received[consumed.v[k]] = 1;
            }
            r_lo = r_hi;
        }
    }
    free(consumed.v);
    free(snd_order);
    free(rcv_order);
    free(snd);
    free(rcv);
}

static void match_messages(trace *t, const trace_options *opts)
{
    uint32_t cap = 0;
    uint8_t *received = xcalloc(t->n_events, 1);
    match_by_id(t, &cap, received);
    match_byte_streams(t, &cap, received);
    const event *first_snd = NULL, *first_rcv = NULL; /* named in warnings */
    for (uint32_t i = 0; i < t->n_events; i++) {
        const event *e = &t->events[i];
        if (e->kind == EV_SND && !received[i]) {
            t->stats.sends_unreceived++;
            first_snd = first_snd ? first_snd : e;
        }
        if (e->kind == EV_RCV) {
            if (e->match == NONE) {
                t->stats.rcvs_unmatched++;
                first_rcv = first_rcv ? first_rcv : e;
            } else {
                t->stats.rcvs_matched++;
            }
        }
    }
    free(received);
    trace_unmatched u = {t->stats.sends_unreceived, t->stats.rcvs_unmatched,
                         first_snd ? t->files[first_snd->file] : NULL,
                         first_snd ? first_snd->line : 0,
                         first_rcv ? t->files[first_rcv->file] : NULL,
                         first_rcv ? first_rcv->line : 0};
    trace_warn_unmatched(t, opts, &u);
}

unsigned trace_warn_unmatched(trace *t, const trace_options *opts,
                              const trace_unmatched *u)
{
    uint32_t ns = u->sends, nr = u->rcvs;
    if (ns)
        trace_warn(t, opts, "%s:%u: %u %s never received (%s nothing)",
                   u->send_file, u->send_line, ns,
                   ns == 1 ? "send was" : "sends were, the first here,",
                   ns == 1 ? "it orders" : "they order");
    if (nr)
        trace_warn(t, opts, "%s:%u: %u %s no send in the trace (%s "
                   "nothing)", u->rcv_file, u->rcv_line, nr,
                   nr == 1 ? "receive has" : "receives, the first here, have",
                   nr == 1 ? "it orders" : "they order");
    return (ns != 0) + (nr != 0);
}

/* ---- locks --------------------------------------------------------------- */

typedef struct held_lock {
    uint32_t lock, depth, acquire;
} held_lock;

static void add_section(trace *t, uint32_t *cap, uint32_t tid,
                        const held_lock *h, int32_t release)
{
    ENSURE(t->sections, *cap, t->n_sections + 1);
    t->sections[t->n_sections++] = (lock_section){
        .thread = tid, .lock = h->lock, .acquire = h->acquire,
        .release = release};
}

static void thread_sections(trace *t, const trace_options *opts, uint32_t tid, uint32_t *cap,
                            held_lock **held, uint32_t *held_cap)
{
    const thread_info *th = &t->threads[tid];
    uint32_t n = 0;
    for (uint32_t k = 0; k < th->n_events; k++) {
        uint32_t id = th->events[k];
        const event *e = &t->events[id];
        if (e->kind != EV_LOCK && e->kind != EV_UNLOCK)
            continue;
        uint32_t i = 0;
        while (i < n && (*held)[i].lock != (uint32_t)e->object)
            i++;
        if (e->kind == EV_LOCK) {
            if (i < n) {
                (*held)[i].depth++;
                continue;
            }
            ENSURE(*held, *held_cap, n + 1);
            (*held)[n++] = (held_lock){(uint32_t)e->object, 1, id};
        } else if (i == n) {
            t->stats.unlocks_ignored++;
            trace_warn(t, opts, "%s:%u: UNLOCK of a lock this thread "
                       "does not hold; ignored", t->files[e->file], e->line);
        } else if (--(*held)[i].depth == 0) {
            add_section(t, cap, tid, &(*held)[i], (int32_t)id);
            (*held)[i] = (*held)[--n];
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        add_section(t, cap, tid, &(*held)[i], NONE);
        t->stats.sections_unreleased++;
        const event *l = &t->events[(*held)[i].acquire];
        trace_warn(t, opts, "%s:%u: LOCK never released: it holds to the end "
                   "of the run", t->files[l->file], l->line);
    }
}

static void find_lock_sections(trace *t, const trace_options *opts)
{
    uint32_t cap = 0, held_cap = 0;
    held_lock *held = NULL;
    for (uint32_t i = 0; i < t->n_threads; i++)
        thread_sections(t, opts, i, &cap, &held, &held_cap);
    free(held);
}

/* ---- wait / notify ------------------------------------------------------- */

static int is_notify(const event *e)
{
    return e->kind == EV_NOTIFY || e->kind == EV_NOTIFYALL;
}
static uint32_t object_key(const event *e) { return (uint32_t)e->object; }

static void find_wait_candidates(trace *t)
{
    uint32_t *order;
    uint32_t *start = bucket(t, t->n_objects, is_notify, object_key, &order);
    uint32_t cap = 0;
    for (uint32_t i = 0; i < t->n_events; i++) {
        const event *w = &t->events[i];
        if (w->kind != EV_WAIT)
            continue;
        ENSURE(t->waits, cap, t->n_waits + 1);
        wait_info *wi = &t->waits[t->n_waits++];
        uint32_t b = start[w->object], n = start[w->object + 1] - b;
        wi->wait = i;
        wi->notifies = xmalloc(sizeof(uint32_t) * (n + 1));
        wi->n_notifies = 0;
        for (uint32_t k = 0; k < n; k++)
            if (t->events[order[b + k]].thread != w->thread)
                wi->notifies[wi->n_notifies++] = order[b + k];
    }
    free(order);
    free(start);
}

void trace_derive(trace *t, const trace_options *opts)
{
    trace_derive_keeping(t, opts, NULL);
}

void trace_derive_keeping(trace *t, const trace_options *opts,
                          const uint8_t *index_given)
{
    build_program_order(t, opts->order, index_given);
    check_joins(t, opts);
    bind_handlers(t, opts);
    match_messages(t, opts);
    find_lock_sections(t, opts);
    find_wait_candidates(t);
}
