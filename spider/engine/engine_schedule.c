/*
 * engine_schedule.c — runs of Φ found by scheduling the trace again
 * (docs/model.md, "Runs found by scheduling").
 *
 * The observed order is a run of Φ only when the trace is perfect; a real
 * trace cut mid-section (a LOCK never released in the middle of its lock's
 * order) makes it break Φ, and many queries need critical sections in
 * another order than the observed one.  A scheduler plays the events
 * again, in Kahn's manner over U's edges, taking the ready event that
 * comes first in the input (within its node; input_order()), so that it
 * keeps the observed order where it can, and
 * keeps every other constraint itself: an acquire waits while another
 * thread holds the lock, a receive with several possible sends for the
 * first of them, a WAIT for a NOTIFY of another thread that no other WAIT
 * took (or a NOTIFYALL).  When every kept event is scheduled, the step
 * numbers are a solution of Φ: U's edges hold (each event comes after its
 * predecessors), every clause has a literal that holds, and no two
 * sections of one lock overlap.  Greedy choices may dead-end where a run
 * exists: the scheduler then says "not found", never "no run".
 *
 * For a query (a conjunction of atoms), the atoms are edges (a strict one
 * for < and <=, which implies <=) and an `=` pair is scheduled in one
 * step.  The scheduler first plays only what the query's events need (the
 * events with a path to them), so that nothing else takes a lock they
 * wait for, and a section that will still be held when the query's events
 * have run is entered only once the other needed sections of its lock are
 * done; then the rest of the trace.
 */
#include "engine_schedule.h"

#include "../../util/alloc.h"

#include <stdatomic.h>
#include <string.h>

enum { NEEDED = 1, DONE = 2, ARRIVED = 4, QUERY = 8,
       BEFORE_FIRST = 16 /* << k: has a path to atom k's first event */ };
_Static_assert((BEFORE_FIRST << (HB_QUERY_ATOMS - 1)) <= 128,
               "a flag bit for each atom of a query");
#define NO_EVENT UINT32_MAX

struct scheduler {
    const trace *t;
    const hb_model *m;
    uint32_t n;                 /* events of the trace */
    int twin;                   /* the graph and indexes are another
                                   scheduler's (scheduler_twin()) */
    const atomic_int *cancel;   /* a twin's: set, its run ends (not found) */
    /* the graph and indexes: made once, only read by a run */
    digraph out, in;            /* successors, predecessors by event id */
    int32_t *acquire_of;        /* event -> the lock section it enters, or -1 */
    int32_t *release_of;        /* event -> the lock section it leaves, or -1 */
    uint32_t *group_of;         /* lock section -> its lock group */
    int32_t *prev_section;      /* lock section -> the one before it in its
                                   group (observed order), or -1 */
    digraph feeds;              /* send -> receives with several possible
                                   sends (a clause) it may open */
    uint8_t *gated;             /* such a receive */
    int32_t *wait_of;           /* WAIT event -> index into t->waits, or -1 */
    uint32_t *rank;             /* event -> its place in the order the
                                   scheduler prefers (input_order()) */
    uint32_t *at_rank;          /* ... and back */
    uint32_t *delayed_from;     /* thread -> position from which it comes
                                   last (key_of), or UINT32_MAX */
    /* one run's state (alloc_run_state(), set up by reset()) */
    uint32_t *chosen;           /* receive or WAIT -> the send or NOTIFY the
                                   last run took, or NO_EVENT */
    uint8_t *used;              /* NOTIFY -> a WAIT took it */
    uint32_t *parked_waits, n_parked_waits;
    uint32_t *indeg;
    uint8_t *flag;
    uint64_t *heap;             /* ready events by key_of() */
    uint32_t heap_n;
    uint32_t *held;             /* thread -> sections it is inside */
    uint32_t *holder;           /* group -> thread + 1 holding it, or 0 */
    uint32_t *inside;           /* group -> that thread's sections of it
                                   open (several on the chains of one
                                   thread in the floating model: Φ
                                   excludes only other threads) */
    uint32_t *pending;          /* group -> needed sections not yet left */
    uint32_t *first_open;       /* group -> its first section (observed
                                   order) that is needed and not left,
                                   or one past its last (LOCKS_OBSERVED) */
    uint32_t *wait_head, *pin_head; /* group -> parked acquires */
    uint32_t held_back_head;    /* acquires held back (holds_back()) */
    uint32_t *next_parked;      /* event -> next parked on the same list */
    uint32_t *deferred, n_deferred;
    uint32_t *stack;
    uint64_t steps;             /* events played by this scheduler's runs */
};

/* ---- the graph ------------------------------------------------------------- */

static void build_adjacency(scheduler *s, const hb_edge *edges, uint32_t n_edges)
{
    digraph_build(&s->out, s->n, edges, n_edges, DIGRAPH_OUT, NULL);
    digraph_build(&s->in, s->n, edges, n_edges, DIGRAPH_IN, NULL);
}

/* A lock section whose acquire and release lie on different chains (the
 * floating model: a LOCK outside a handler, its UNLOCK inside one) has
 * no order of its own in Φ, yet holding a lock means from the one to the
 * other: the scheduler plays its acquire first (an edge Φ lacks, so a run
 * found still satisfies Φ; only some runs are not looked for). */
static void section_edges(const trace *t, const hb_model *m, hb_edge_list *l)
{
    for (uint32_t i = 0; i < m->n_lock_sections; i++) {
        const lock_section *x = &m->lock_sections[i];
        if (hb_chain_of(t, m->handlers, x->acquire) !=
            hb_chain_of(t, m->handlers, (uint32_t)x->release))
            hb_edge_list_add(l, x->acquire, (uint32_t)x->release);
    }
}

static void index_sections(scheduler *s)
{
    const hb_model *m = s->m;
    s->acquire_of = xmalloc_array((size_t)s->n + 1, sizeof(int32_t));
    s->release_of = xmalloc_array((size_t)s->n + 1, sizeof(int32_t));
    memset(s->acquire_of, 0xff, sizeof(int32_t) * s->n);
    memset(s->release_of, 0xff, sizeof(int32_t) * s->n);
    s->group_of = xmalloc_array((size_t)m->n_lock_sections + 1, sizeof(uint32_t));
    s->prev_section = xmalloc_array((size_t)m->n_lock_sections + 1, sizeof(int32_t));
    for (uint32_t g = 0; g < m->n_lock_groups; g++)
        for (uint32_t k = 0; k < m->lock_groups[g].n; k++) {
            uint32_t i = m->lock_groups[g].first + k;
            const lock_section *x = &m->lock_sections[i];
            s->group_of[i] = g;
            s->prev_section[i] = k ? (int32_t)(i - 1) : -1;
            s->acquire_of[x->acquire] = (int32_t)i;
            s->release_of[x->release] = (int32_t)i;
        }
}

/* The clauses that are not a lock's, which the scheduler keeps itself
 * (one literal of a clause fixed in advance, as R takes them, dead-ends
 * a run whose lock order differs from the observed one): a receive with
 * several possible sends waits for the first of them played; a WAIT for a
 * NOTIFY of another thread that no WAIT took (or a NOTIFYALL). */
static int message_clause(const hb_model *m, uint32_t c)
{
    return m->clause_origin[c] == ORIGIN_MESSAGES;
}

static void index_alternatives(scheduler *s)
{
    const hb_model *m = s->m;
    const trace *t = s->t;
    s->gated = xcalloc((size_t)s->n + 1, 1);
    hb_edge_list feeds = {0};
    for (uint32_t c = 0; c < m->n_clauses; c++)
        for (uint32_t k = 0; message_clause(m, c) && k < m->clauses[c].n; k++) {
            const hb_lit *l = &m->lits[m->clauses[c].first + k];
            hb_edge_list_add(&feeds, l->a, l->b);
            s->gated[l->b] = 1;
        }
    digraph_build(&s->feeds, s->n, feeds.v, feeds.n, DIGRAPH_OUT, NULL);
    free(feeds.v);
    s->wait_of = xmalloc_array((size_t)s->n + 1, sizeof(int32_t));
    memset(s->wait_of, 0xff, sizeof(int32_t) * s->n);
    for (uint32_t w = 0; w < t->n_waits; w++)
        if (m->kept[t->waits[w].wait] && t->waits[w].n_notifies)
            s->wait_of[t->waits[w].wait] = (int32_t)w;
}

/* For each thread with a LOCK never released: the first position of the
 * outermost section around it (the thread holds that lock while it waits
 * for every other section of the unreleased one). */
static void find_delayed(scheduler *s)
{
    const trace *t = s->t;
    s->delayed_from = xmalloc_array((size_t)t->n_threads + 1, sizeof(uint32_t));
    memset(s->delayed_from, 0xff, sizeof(uint32_t) * t->n_threads);
    for (uint32_t i = 0; i < t->n_sections; i++) {
        const lock_section *open = &t->sections[i];
        if (open->release != NONE || !s->m->kept[open->acquire])
            continue;
        uint32_t at = t->events[open->acquire].pos, from = at;
        for (uint32_t k = 0; k < t->n_sections; k++) {
            const lock_section *x = &t->sections[k];
            uint32_t x_at = t->events[x->acquire].pos;
            if (x->thread == open->thread && x_at < from &&
                (x->release == NONE || t->events[x->release].pos > at))
                from = x_at;
        }
        if (from < s->delayed_from[open->thread])
            s->delayed_from[open->thread] = from;
    }
}

static int by_key(const void *x, const void *y, void *ctx)
{
    const uint64_t *key = ctx;
    uint64_t a = key[*(const uint32_t *)x], b = key[*(const uint32_t *)y];
    return a < b ? -1 : a > b;
}

static int by_name(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    return strcmp(t->strings[*(const str_id *)x], t->strings[*(const str_id *)y]);
}

/* The order the scheduler prefers among ready events: the observed order
 * within a node, and across nodes by place in the node (then node name),
 * so that it depends neither on the order of the files nor on how the
 * run is split into them (the report must not: tests/t0040). */
static void input_order(scheduler *s)
{
    const trace *t = s->t;
    str_id *names = xmalloc_array((size_t)t->n_threads + 1, sizeof *names);
    uint32_t n_names = 0;
    for (uint32_t i = 0; i < t->n_threads; i++)
        names[n_names++] = t->threads[i].node;
    qsort_r(names, n_names, sizeof *names, by_name, (void *)t);
    uint32_t *node_rank = xcalloc((size_t)t->n_strings + 1, sizeof *node_rank);
    uint32_t nodes = 0;
    for (uint32_t i = 0; i < n_names; i++)
        if (i == 0 || names[i] != names[i - 1])
            node_rank[names[i]] = nodes++;
    uint64_t *seen = xcalloc((size_t)nodes + 1, sizeof *seen);
    uint64_t *key = xmalloc_array((size_t)s->n + 1, sizeof *key);
    for (uint32_t e = 0; e < s->n; e++) {
        uint32_t node = node_rank[t->threads[t->events[e].thread].node];
        key[e] = seen[node]++ * nodes + node;
    }
    s->at_rank = xmalloc_array((size_t)s->n + 1, sizeof(uint32_t));
    s->rank = xmalloc_array((size_t)s->n + 1, sizeof(uint32_t));
    for (uint32_t e = 0; e < s->n; e++)
        s->at_rank[e] = e;
    qsort_r(s->at_rank, s->n, sizeof *s->at_rank, by_key, key);
    for (uint32_t r = 0; r < s->n; r++)
        s->rank[s->at_rank[r]] = r;
    free(key);
    free(seen);
    free(node_rank);
    free(names);
}

/* What one run changes (reset() sets it up): a scheduler's own, also a
 * twin's. */
static void alloc_run_state(scheduler *s)
{
    size_t n = (size_t)s->n + 1, groups = (size_t)s->m->n_lock_groups + 1;
    s->indeg = xmalloc_array(n, sizeof(uint32_t));
    s->flag = xmalloc(n);
    s->heap = xmalloc_array(n, sizeof(uint64_t));
    s->held = xmalloc_array((size_t)s->t->n_threads + 1, sizeof(uint32_t));
    s->holder = xmalloc_array(groups, sizeof(uint32_t));
    s->inside = xmalloc_array(groups, sizeof(uint32_t));
    s->pending = xmalloc_array(groups, sizeof(uint32_t));
    s->first_open = xmalloc_array(groups, sizeof(uint32_t));
    s->wait_head = xmalloc_array(groups, sizeof(uint32_t));
    s->pin_head = xmalloc_array(groups, sizeof(uint32_t));
    s->next_parked = xmalloc_array(n, sizeof(uint32_t));
    s->deferred = xmalloc_array(n, sizeof(uint32_t));
    s->stack = xmalloc_array(n, sizeof(uint32_t));
    s->chosen = xmalloc_array(n, sizeof(uint32_t));
    s->used = xmalloc(n);
    s->parked_waits = xmalloc_array((size_t)s->t->n_waits + 1, sizeof(uint32_t));
}

scheduler *scheduler_new(const trace *t, const hb_model *m)
{
    scheduler *s = xcalloc(1, sizeof *s);
    s->t = t;
    s->m = m;
    s->n = t->n_events;
    hb_edge_list edges = {0};
    for (uint32_t i = 0; i < m->n_edges; i++)
        hb_edge_list_add(&edges, m->edges[i].before, m->edges[i].after);
    section_edges(t, m, &edges);
    build_adjacency(s, edges.v, edges.n);
    free(edges.v);
    index_sections(s);
    index_alternatives(s);
    find_delayed(s);
    input_order(s);
    alloc_run_state(s);
    return s;
}

scheduler *scheduler_twin(const scheduler *s, const atomic_int *cancel)
{
    scheduler *twin = xmalloc(sizeof *twin);
    *twin = *s; /* the graph and indexes, shared */
    twin->twin = 1;
    twin->cancel = cancel;
    twin->steps = 0;
    alloc_run_state(twin);
    return twin;
}

/* Frees what alloc_run_state() made. */
static void free_run_state(scheduler *s)
{
    free(s->indeg); free(s->flag); free(s->heap); free(s->held);
    free(s->chosen); free(s->used); free(s->parked_waits); free(s->holder);
    free(s->inside);
    free(s->pending); free(s->first_open); free(s->wait_head); free(s->pin_head);
    free(s->next_parked); free(s->deferred); free(s->stack);
}

void scheduler_free(scheduler *s)
{
    if (!s)
        return;
    free_run_state(s);
    if (!s->twin) {
        digraph_free(&s->out); digraph_free(&s->in);
        free(s->acquire_of); free(s->release_of); free(s->group_of);
        free(s->prev_section); free(s->delayed_from);
        free(s->rank); free(s->at_rank);
        digraph_free(&s->feeds); free(s->gated); free(s->wait_of);
    }
    free(s);
}

uint64_t scheduler_steps(const scheduler *s)
{
    return s->steps;
}

/* ---- the ready events: a heap ------------------------------------------------ */

/* Events of a thread inside a section come first, in input_order()
 * within each rank: a thread that holds a lock runs until it lets go, so
 * that a greedy order does not leave two threads each waiting for the
 * other's lock where running one of them on would not.  Last come the
 * events of a thread from the sections around a LOCK it never releases:
 * every other section of that lock must end before that LOCK, so the
 * thread must not take, early, a lock that those sections need. */
static uint64_t key_of(const scheduler *s, uint32_t e)
{
    const event *ev = &s->t->events[e];
    uint64_t first = ev->pos >= s->delayed_from[ev->thread] ? 2
                     : s->held[ev->thread] ? 0 : 1;
    return first << 32 | s->rank[e];
}

static void heap_push(scheduler *s, uint32_t e)
{
    uint64_t k = key_of(s, e);
    uint32_t i = s->heap_n++;
    while (i > 0 && s->heap[(i - 1) / 2] > k) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = k;
}

static uint32_t heap_pop(scheduler *s)
{
    uint64_t top = s->heap[0], last = s->heap[--s->heap_n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= s->heap_n)
            break;
        if (c + 1 < s->heap_n && s->heap[c + 1] < s->heap[c])
            c++;
        if (s->heap[c] >= last)
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->heap_n)
        s->heap[i] = last;
    return s->at_rank[(uint32_t)top];
}

/* ---- one run ------------------------------------------------------------------ */

/* How much of the query's focus a run keeps (reset(), unfocus()). */
enum focus { UNFOCUSED, PINNED, FOCUSED };

/* In which order a run enters the sections of a lock (scheduler_run()). */
enum lock_order {
    LOCKS_GREEDY,               /* whoever is ready first */
    LOCKS_OBSERVED_ELSEWHERE,   /* observed order in nodes without a query
                                   event, greedy in the query's nodes */
    LOCKS_OBSERVED              /* every node: a needed section waits for
                                   the needed ones before it, another for
                                   the one just before it */
};

typedef struct run_state {
    const hb_query *q;
    enum lock_order lock_order;
    enum focus focused;         /* FOCUSED: playing only what the query
                                   needs; PINNED: everything, but sections
                                   the query's events will run inside
                                   still wait for the needed others */
    uint32_t q_left;            /* query events not yet scheduled */
    int hold_back;              /* holds_back() applies (until nothing
                                   else can be played) */
    uint32_t step, done;
    uint32_t *value;            /* or NULL */
} run_state;

/* The event `=` pairs with e in the query, or NO_EVENT. */
static uint32_t partner(const hb_query *q, uint32_t e)
{
    for (uint32_t k = 0; q && k < q->n_atoms; k++) {
        const hb_atom *a = &q->atoms[k];
        if (a->kind != ATOM_EQUAL)
            continue;
        if (q->ev[a->i] == e)
            return q->ev[a->j];
        if (q->ev[a->j] == e)
            return q->ev[a->i];
    }
    return NO_EVENT;
}

/* Whether e is of a node that one of the query's events is of.  Locks
 * are a node's: a focus elsewhere keeps no section from the query's
 * events, and would only move the other nodes' runs away from their
 * observed order (where the greedy order deadlocks more often). */
static int in_query_node(const scheduler *s, const run_state *r, uint32_t e)
{
    const trace *t = s->t;
    str_id node = t->threads[t->events[e].thread].node;
    for (uint32_t i = 0; i < r->q->n_events; i++)
        if (t->threads[t->events[r->q->ev[i]].thread].node == node)
            return 1;
    return 0;
}

static void make_ready(scheduler *s, run_state *r, uint32_t e)
{
    if (r->focused == FOCUSED && !(s->flag[e] & NEEDED) && in_query_node(s, r, e))
        s->deferred[s->n_deferred++] = e;
    else
        heap_push(s, e);
}

static void unpark(scheduler *s, uint32_t *head)
{
    for (uint32_t e = *head; e != NO_EVENT; e = s->next_parked[e])
        heap_push(s, e);
    *head = NO_EVENT;
}

static void park(scheduler *s, uint32_t *head, uint32_t e)
{
    s->next_parked[e] = *head;
    *head = e;
}

static void lower(scheduler *s, run_state *r, uint32_t e)
{
    if (--s->indeg[e] == 0)
        make_ready(s, r, e);
}

/* Schedules e at the current step (its lock effects, its successors). */
static void play(scheduler *s, run_state *r, uint32_t e)
{
    s->flag[e] |= DONE;
    if (r->value)
        r->value[e] = r->step;
    r->done++;
    s->steps++;
    uint32_t thread = s->t->events[e].thread;
    int32_t sec = s->acquire_of[e];
    if (sec >= 0) {
        uint32_t g = s->group_of[sec];
        s->holder[g] = thread + 1;
        s->inside[g]++;
        s->held[thread]++;
    }
    sec = s->release_of[e];
    if (sec >= 0) {
        uint32_t g = s->group_of[sec];
        s->held[thread]--;
        if (--s->inside[g] == 0) {
            s->holder[g] = 0;
            unpark(s, &s->wait_head[g]);
        }
        if (r->focused && (s->flag[s->m->lock_sections[sec].acquire] & NEEDED) &&
            (s->flag[e] & NEEDED) && --s->pending[g] == 0)
            unpark(s, &s->pin_head[g]);
    }
    for (uint32_t k = s->out.start[e]; k < s->out.start[e + 1]; k++)
        lower(s, r, s->out.adj[k]);
    for (uint32_t k = s->feeds.start[e]; k < s->feeds.start[e + 1]; k++)
        if (s->chosen[s->feeds.adj[k]] == NO_EVENT) { /* its first send */
            s->chosen[s->feeds.adj[k]] = e;
            lower(s, r, s->feeds.adj[k]);
        }
    uint8_t kind = s->t->events[e].kind;
    if (kind == EV_NOTIFY || kind == EV_NOTIFYALL) { /* a WAIT may go on */
        for (uint32_t k = 0; k < s->n_parked_waits; k++)
            heap_push(s, s->parked_waits[k]);
        s->n_parked_waits = 0;
    }
    const hb_query *q = r->q;
    for (uint32_t k = 0; q && k < q->n_atoms; k++)
        if (q->atoms[k].kind != ATOM_EQUAL && q->ev[q->atoms[k].i] == e)
            lower(s, r, q->ev[q->atoms[k].j]);
    if (s->flag[e] & QUERY) {
        r->q_left--;
        unpark(s, &s->held_back_head);
    }
}

/* Whether acquire e may enter its section now; parks it if not. */
/* Whether WAIT e has a NOTIFY to follow (played, of another thread, not
 * taken by another WAIT, or a NOTIFYALL): takes it; else parks e until
 * the next NOTIFY is played. */
static int may_wake(scheduler *s, uint32_t e)
{
    const wait_info *w = &s->t->waits[s->wait_of[e]];
    uint32_t best = NO_EVENT; /* the first in input_order(): the choice
                                 must not depend on how the list was built */
    for (uint32_t k = 0; k < w->n_notifies; k++) {
        uint32_t n = w->notifies[k];
        int all = s->t->events[n].kind == EV_NOTIFYALL;
        int played = !s->m->kept[n] || (s->flag[n] & DONE);
        if (played && (all || !s->used[n]) &&
            (best == NO_EVENT || s->rank[n] < s->rank[best]))
            best = n;
    }
    if (best == NO_EVENT) {
        s->parked_waits[s->n_parked_waits++] = e;
        return 0;
    }
    s->used[best] = s->t->events[best].kind != EV_NOTIFYALL;
    s->chosen[e] = best;
    return 1;
}

/* The first section of group g, in the observed order, that is needed
 * and not left yet (one past the group's last if none).  Sections that
 * become needed later (promote_pinned()) may have been passed: they then
 * keep no order, which costs only a run not found. */
static uint32_t first_open_section(scheduler *s, uint32_t g)
{
    const hb_lock_group *lg = &s->m->lock_groups[g];
    uint32_t i = s->first_open[g];
    while (i < lg->first + lg->n) {
        const lock_section *x = &s->m->lock_sections[i];
        if ((s->flag[x->acquire] & NEEDED) && !(s->flag[x->release] & DONE))
            break;
        i++;
    }
    return s->first_open[g] = i;
}

/* Whether acquire e of section sec must wait for a section before it in
 * the observed order.  Under LOCKS_OBSERVED a needed section passes the
 * sections that are not needed (what the query's events do not wait
 * for, as the events after a receive the query moves later), so that
 * the needed events run in their observed order, before the rest. */
static int waits_for_observed(scheduler *s, const run_state *r, uint32_t e, uint32_t sec)
{
    if (r->lock_order == LOCKS_GREEDY)
        return 0;
    if (r->lock_order == LOCKS_OBSERVED && r->q && (s->flag[e] & NEEDED))
        return first_open_section(s, s->group_of[sec]) < sec;
    if (r->lock_order == LOCKS_OBSERVED_ELSEWHERE && in_query_node(s, r, e))
        return 0;
    int32_t prev = s->prev_section[sec];
    return prev >= 0 && !(s->flag[s->m->lock_sections[prev].release] & DONE);
}

/* Whether section sec holds a query event that an atom puts after a
 * query event of another thread not played yet.  Entered now, the thread
 * would hold the lock while it waits for that event, which may itself
 * need the lock (r < p with p inside a section and r inside another
 * section of the same lock): the acquire waits until that event is
 * played, or until nothing else can be.  Not an acquire that the atoms'
 * first events need: waiting would not let them run. */
static int holds_back(const scheduler *s, const run_state *r, uint32_t sec)
{
    const hb_query *q = r->q;
    const lock_section *x = &s->m->lock_sections[sec];
    const event *acq = &s->t->events[x->acquire];
    uint32_t rel_pos = s->t->events[x->release].pos;
    for (uint32_t k = 0; q && k < q->n_atoms; k++) {
        if (q->atoms[k].kind == ATOM_EQUAL ||
            (s->flag[x->acquire] & BEFORE_FIRST << k))
            continue;
        const event *later = &s->t->events[q->ev[q->atoms[k].j]];
        uint32_t first = q->ev[q->atoms[k].i];
        if (later->thread == acq->thread && later->pos > acq->pos &&
            later->pos < rel_pos && !(s->flag[first] & DONE) &&
            s->t->events[first].thread != acq->thread)
            return 1;
    }
    return 0;
}

static int may_enter(scheduler *s, const run_state *r, uint32_t e)
{
    if (s->wait_of[e] >= 0 && s->chosen[e] == NO_EVENT && !may_wake(s, e))
        return 0;
    int32_t sec = s->acquire_of[e];
    if (sec < 0)
        return 1;
    if (r->hold_back && holds_back(s, r, (uint32_t)sec)) {
        park(s, &s->held_back_head, e);
        return 0;
    }
    uint32_t g = s->group_of[sec];
    if ((s->holder[g] && s->holder[g] != s->t->events[e].thread + 1) ||
        waits_for_observed(s, r, e, (uint32_t)sec)) {
        park(s, &s->wait_head[g], e);
        return 0;
    }
    /* a section the query's events will run inside: entered last */
    uint32_t rel = (uint32_t)s->m->lock_sections[sec].release;
    if (r->focused && !(s->flag[rel] & NEEDED) && s->pending[g]) {
        park(s, &s->pin_head[g], e);
        return 0;
    }
    return 1;
}

/* Marks `bit` on e0 and on every event with a path to it: U's edges,
 * and with q the query's atoms too, as edges.  NEEDED also counts, per
 * lock, the sections whose release it marks and that are not left yet
 * (pending). */
static void mark_ancestors(scheduler *s, const hb_query *q, uint32_t e0,
                           uint8_t bit)
{
    uint32_t top = 0;
    if (s->flag[e0] & bit)
        return;
    s->flag[e0] |= bit;
    s->stack[top++] = e0;
    while (top) {
        uint32_t e = s->stack[--top];
        int32_t sec = s->release_of[e];
        if (bit == NEEDED && sec >= 0 && !(s->flag[e] & DONE))
            s->pending[s->group_of[sec]]++;
        for (uint32_t k = s->in.start[e]; k < s->in.start[e + 1]; k++)
            if (!(s->flag[s->in.adj[k]] & bit)) {
                s->flag[s->in.adj[k]] |= bit;
                s->stack[top++] = s->in.adj[k];
            }
        for (uint32_t k = 0; q && k < q->n_atoms; k++) {
            uint32_t first = q->ev[q->atoms[k].i];
            if (q->atoms[k].kind != ATOM_EQUAL && q->ev[q->atoms[k].j] == e &&
                !(s->flag[first] & bit)) {
                s->flag[first] |= bit;
                s->stack[top++] = first;
            }
        }
    }
}

/* Whether the section acquire e enters holds a query event of its thread
 * (then the query does run inside it). */
static int encloses_query(const scheduler *s, const run_state *r, uint32_t e)
{
    const event *acq = &s->t->events[e];
    const lock_section *x = &s->m->lock_sections[s->acquire_of[e]];
    uint32_t rel_pos = s->t->events[x->release].pos;
    for (uint32_t i = 0; i < r->q->n_events; i++) {
        const event *qe = &s->t->events[r->q->ev[i]];
        if (qe->thread == acq->thread && qe->pos > acq->pos && qe->pos < rel_pos)
            return 1;
    }
    return 0;
}

/* The focused run is stuck and an acquire waits for the needed sections
 * of its lock: those sections may need it (a thread it forks inside, a
 * message sent from inside), so the query is not to run inside it after
 * all.  The first such acquire's section becomes needed, to its release,
 * and the run goes on.  Returns whether there was one. */
static int promote_pinned(scheduler *s, run_state *r)
{
    uint32_t best = NO_EVENT, best_group = 0;
    for (uint32_t g = 0; g < s->m->n_lock_groups; g++)
        for (uint32_t e = s->pin_head[g]; e != NO_EVENT; e = s->next_parked[e])
            if (!encloses_query(s, r, e) &&
                (best == NO_EVENT || s->rank[e] < s->rank[best])) {
                best = e;
                best_group = g;
            }
    if (best == NO_EVENT)
        return 0;
    const lock_section *x = &s->m->lock_sections[s->acquire_of[best]];
    mark_ancestors(s, r->q, (uint32_t)x->release, NEEDED);
    unpark(s, &s->pin_head[best_group]); /* the others park again */
    return 1;
}

/* Whether the scheduler can take query q: a conjunction over kept events,
 * whose `=` pairs are disjoint and enter no section. */
static int supported(const scheduler *s, const hb_query *q)
{
    if (!q)
        return 1;
    if (q->any && q->n_atoms > 1)
        return 0;
    uint32_t paired = 0;
    for (uint32_t i = 0; i < q->n_events; i++) {
        if (!s->m->kept[q->ev[i]])
            return 0;
        for (uint32_t k = 0; k < q->n_atoms; k++)
            if (q->atoms[k].kind == ATOM_EQUAL &&
                (q->atoms[k].i == i || q->atoms[k].j == i)) {
                if (paired & 1u << i || s->acquire_of[q->ev[i]] >= 0)
                    return 0;
                paired |= 1u << i;
            }
    }
    return 1;
}

static void reset(scheduler *s, run_state *r)
{
    const hb_model *m = s->m;
    for (uint32_t e = 0; e < s->n; e++)
        s->indeg[e] = s->in.start[e + 1] - s->in.start[e];
    memset(s->flag, 0, s->n);
    memset(s->used, 0, s->n);
    memset(s->chosen, 0xff, sizeof(uint32_t) * s->n);
    s->n_parked_waits = 0;
    for (uint32_t e = 0; e < s->n; e++)
        s->indeg[e] += s->gated[e]; /* until one of its sends is played */
    memset(s->held, 0, sizeof(uint32_t) * s->t->n_threads);
    for (uint32_t g = 0; g < m->n_lock_groups; g++) {
        s->holder[g] = 0;
        s->inside[g] = 0;
        s->pending[g] = 0;
        s->first_open[g] = m->lock_groups[g].first;
        s->wait_head[g] = s->pin_head[g] = NO_EVENT;
    }
    s->heap_n = s->n_deferred = 0;
    s->held_back_head = NO_EVENT;
    r->hold_back = r->q != NULL;
    const hb_query *q = r->q;
    for (uint32_t k = 0; q && k < q->n_atoms; k++)
        if (q->atoms[k].kind != ATOM_EQUAL)
            s->indeg[q->ev[q->atoms[k].j]]++;
    if (!q)
        return;
    for (uint32_t i = 0; i < q->n_events; i++)
        s->flag[q->ev[i]] |= QUERY;
    for (uint32_t i = 0; i < q->n_events; i++)
        mark_ancestors(s, q, q->ev[i], NEEDED);
    for (uint32_t k = 0; k < q->n_atoms; k++)
        if (q->atoms[k].kind != ATOM_EQUAL)
            mark_ancestors(s, NULL, q->ev[q->atoms[k].i],
                           (uint8_t)(BEFORE_FIRST << k));
    r->focused = FOCUSED;
    r->q_left = q->n_events;
}

/* One step out of the query's focus: what needed events wait for may be
 * outside what they need (a WAIT's NOTIFY, a receive's first send), so
 * the rest of the trace is played too, but a section the query's events
 * will run inside still waits for the needed sections of its lock
 * (PINNED); once the query's events are played, or nothing else can be,
 * nothing waits (UNFOCUSED). */
static void unfocus(scheduler *s, run_state *r)
{
    r->focused = r->focused == FOCUSED && r->q_left ? PINNED : UNFOCUSED;
    for (uint32_t i = 0; i < s->n_deferred; i++)
        heap_push(s, s->deferred[i]);
    s->n_deferred = 0;
    for (uint32_t g = 0; r->focused == UNFOCUSED && g < s->m->n_lock_groups; g++)
        unpark(s, &s->pin_head[g]);
}

/* One run (scheduler_run()). */
static int run_once(scheduler *s, const hb_query *q, uint32_t *value,
                    enum lock_order lock_order)
{
    run_state r = {.q = q, .value = value, .lock_order = lock_order};
    uint32_t pops = 0;
    reset(s, &r);
    s->steps += s->n / 4; /* what reset() costs, in events played */
    for (uint32_t e = 0; e < s->n; e++)
        if (s->m->kept[e] && s->indeg[e] == 0)
            make_ready(s, &r, e);
    for (;;) {
        /* the query's events are played, or what they need waits for
         * something they do not (a send, a NOTIFY): the rest too */
        while (r.focused && (r.q_left == 0 || s->heap_n == 0)) {
            if (r.q_left && r.focused == PINNED && promote_pinned(s, &r))
                continue;
            unfocus(s, &r);
        }
        if (s->heap_n == 0 && r.hold_back) { /* what was held back goes on */
            r.hold_back = 0;
            unpark(s, &s->held_back_head);
        }
        if (s->heap_n == 0)
            break;
        if (s->cancel && (++pops & 4095) == 0 && atomic_load(s->cancel))
            return 0; /* a run nobody will take */
        uint32_t e = heap_pop(s);
        if (!may_enter(s, &r, e))
            continue;
        uint32_t other = partner(q, e);
        if (other != NO_EVENT) {
            if (!(s->flag[other] & ARRIVED)) { /* played with its partner */
                s->flag[e] |= ARRIVED;
                continue;
            }
            play(s, &r, other);
        }
        play(s, &r, e);
        r.step++;
    }
    return r.done == s->m->n_kept;
}

/* The greedy order first; where it dead-ends, once more with the other
 * nodes' sections of each lock in their observed order: the query's
 * focus moves when messages reach those nodes, and a greedy order there
 * can then take a lock in an order that deadlocks, while the observed
 * order (with U, acyclic when the observed run is one of Φ) cannot.
 * Last, the observed order in every node (for Φ alone, the only other
 * try), where only the sections the query needs go first: a greedy
 * order in the query's nodes lets a thread enter a section early and
 * then wait inside it for what another thread's earlier section sends. */
int scheduler_run(scheduler *s, const hb_query *q, uint32_t *value)
{
    if (!supported(s, q))
        return 0;
    if (run_once(s, q, value, LOCKS_GREEDY))
        return 1;
    return (q && run_once(s, q, value, LOCKS_OBSERVED_ELSEWHERE)) ||
           run_once(s, q, value, LOCKS_OBSERVED);
}

void scheduler_choices(const scheduler *s, hb_edge_list *out)
{
    for (uint32_t e = 0; e < s->n; e++)
        if (s->chosen[e] != NO_EVENT && s->m->kept[s->chosen[e]])
            hb_edge_list_add(out, s->chosen[e], e);
}
