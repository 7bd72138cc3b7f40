/*
 * engine_witness.c — a run that shows an instance (SPEC §4 "Witness").
 *
 * A witness needs a solution of Φ ∧ query.  Two ways to get one:
 *   - R, the observed-order witness graph (engine_shortcut.c): every
 *     topological order of R satisfies Φ.  Add the query's atoms as edges
 *     (O(a) = O(b) makes a and b one node) and sort the events that reach
 *     the query's events (their ancestors): when that has no cycle, the
 *     order, followed by any topological order of the rest of R, is a
 *     solution (nothing outside the ancestors points into them).
 *   - otherwise Z3's model of Φ ∧ query (a solver made when first needed).
 * Either gives each event a value; the witness is cut out of it: the
 * instance's events and, for each, the events of other threads it waits
 * on — for each other thread, the latest event that sends to (forks,
 * releases a lock before, notifies ...) an event of its thread up to it.
 * Events are listed by value; steps number them, equal only for events the
 * query makes simultaneous (a data race).  Any order of events with equal
 * values is a solution too: scale every value by the number of events and
 * add each event's rank among its equals (strict constraints keep holding,
 * and the only non-strict ones are the query's, between its own events).
 */
#include "context.h"
#include "engine_witness.h"
#include "engine_pool.h"
#include "engine_shortcut.h"

#include "../../util/alloc.h"

#include <stdlib.h>
#include <string.h>

/* How far back an event's thread is searched for what it waits on, and
 * how many other threads' waits are shown per event (those of the
 * instance's threads first, then the latest): a person reads the
 * witness. */
enum { WALK_MAX = 4096, WAITS_MAX = 6 };

#define NO_VALUE INT64_MAX

struct witness_finder {
    const trace *t;
    hb_model *m;                     /* its waits made before Z3 reads it */
    hb_solver_options solver_options;
    const volatile sig_atomic_t *leave_on; /* engine_z3_call's stop */
    int abandoned;                   /* a Z3 call was left running */
    int r_usable;                    /* R is a witness: every clause had an
                                        observed literal, and no cycle */
    digraph r;                       /* R by target, for the first way */
    digraph sync;                    /* U and every clause literal: what an
                                        event may wait on */
    uint32_t *group_of_acquire;      /* by event: 1 + the lock group whose
                                        section it acquires, or 0 (its
                                        clauses are not in sync) */
    hb_solver *solver;               /* the second way, made when needed */
    /* scratch, by event id */
    int64_t *value;                  /* NO_VALUE: not known */
    uint8_t *state;                  /* DFS: 0 new, 1 open, 2 done */
    uint32_t *seen;                  /* == epoch: in the current list */
    uint32_t epoch;
    uint32_t *latest_src, *latest_dst; /* by thread: the chosen wait */
    uint32_t *latest_seen;
    uint32_t *core_thread;           /* == core_mark: a thread of the
                                        instance */
    uint32_t core_mark;
};

/* U and every literal O(a) < O(b) of a clause: the ways one event may
 * wait on another.  Whether it did is read off a solution. */
static void build_sync(witness_finder *w)
{
    const hb_model *m = w->m;
    hb_edge_list l = {0};
    for (uint32_t i = 0; i < m->n_edges; i++)
        hb_edge_list_add(&l, m->edges[i].before, m->edges[i].after);
    for (uint32_t i = 0; i < m->n_lits; i++)
        if (m->lits[i].kind == LIT_LESS)
            hb_edge_list_add(&l, m->lits[i].a, m->lits[i].b);
    const trace *t = w->t; /* "a NOTIFY woke the WAIT", made or deferred */
    for (uint32_t i = 0; i < t->n_waits; i++)
        if (hb_wait_constrained(m, &t->waits[i]))
            for (uint32_t k = 0; k < t->waits[i].n_notifies; k++)
                hb_edge_list_add(&l, t->waits[i].notifies[k], t->waits[i].wait);
    digraph_build(&w->sync, m->n_events, l.v, l.n, DIGRAPH_IN, NULL);
    free(l.v);
}

/* Where each lock group's acquires are. */
static void index_lock_groups(witness_finder *w)
{
    const hb_model *m = w->m;
    w->group_of_acquire = xcalloc((size_t)m->n_events + 1, sizeof(uint32_t));
    for (uint32_t g = 0; g < m->n_lock_groups; g++) {
        const hb_lock_group *gr = &m->lock_groups[g];
        for (uint32_t i = gr->first; i < gr->first + gr->n; i++)
            w->group_of_acquire[m->lock_sections[i].acquire] = g + 1;
    }
}

/* What event x may wait on: its edges in sync, then, for the acquire of
 * a lock group's section, the release of every section of the group (the
 * caller skips those of x's own thread). */
typedef struct wait_iter {
    uint32_t i, end;                 /* in sync.src */
    uint32_t s, s_end;               /* in m->lock_sections */
} wait_iter;

static wait_iter waits_of(const witness_finder *w, uint32_t x)
{
    wait_iter it = {w->sync.start[x], w->sync.start[x + 1], 0, 0};
    uint32_t g = w->group_of_acquire[x];
    if (g) {
        it.s = w->m->lock_groups[g - 1].first;
        it.s_end = it.s + w->m->lock_groups[g - 1].n;
    }
    return it;
}

static int next_wait(const witness_finder *w, wait_iter *it, uint32_t *y)
{
    if (it->i < it->end) {
        *y = w->sync.adj[it->i++];
        return 1;
    }
    if (it->s < it->s_end) {
        *y = (uint32_t)w->m->lock_sections[it->s++].release;
        return 1;
    }
    return 0;
}

witness_finder *witness_finder_new(const trace *t, hb_model *m,
                                   int z3_only, hb_solver_options solver,
                                   const volatile sig_atomic_t *leave_on)
{
    witness_finder *w = xcalloc(1, sizeof *w);
    w->t = t;
    w->m = m;
    w->solver_options = solver;
    w->leave_on = leave_on;
    hb_edge_list l = {0};
    /* R must have no cycle anywhere, not only among a query's ancestors:
     * a cycle elsewhere may force a clause against R's choice */
    w->r_usable = shortcut_resolved_edges(t, m, &l) && !z3_only;
    digraph_build(&w->r, m->n_events, l.v, l.n, DIGRAPH_IN, NULL);
    free(l.v);
    build_sync(w);
    index_lock_groups(w);
    size_t n = (size_t)m->n_events + 1;
    w->value = xmalloc_array(n, sizeof *w->value);
    for (size_t i = 0; i < n; i++)
        w->value[i] = NO_VALUE;
    w->state = xcalloc(n, 1);
    w->seen = xcalloc(n, sizeof *w->seen);
    w->latest_src = xmalloc_array((size_t)t->n_threads + 1, sizeof(uint32_t));
    w->latest_dst = xmalloc_array((size_t)t->n_threads + 1, sizeof(uint32_t));
    w->latest_seen = xcalloc((size_t)t->n_threads + 1, sizeof(uint32_t));
    w->core_thread = xcalloc((size_t)t->n_threads + 1, sizeof(uint32_t));
    return w;
}

int witness_finder_abandoned(const witness_finder *w)
{
    return w->abandoned;
}

void witness_finder_free(witness_finder *w)
{
    if (!w || w->abandoned) /* the call left running may still read it */
        return;
    digraph_free(&w->r);
    digraph_free(&w->sync);
    free(w->group_of_acquire);
    hb_solver_free(w->solver);
    free(w->value);
    free(w->state);
    free(w->seen);
    free(w->latest_src);
    free(w->latest_dst);
    free(w->latest_seen);
    free(w->core_thread);
    free(w);
}

/* A list of event ids, each once per epoch. */
typedef struct event_list {
    uint32_t *v;
    uint32_t n, cap;
} event_list;

static void list_add(witness_finder *w, event_list *l, uint32_t e)
{
    if (w->seen[e] == w->epoch)
        return;
    w->seen[e] = w->epoch;
    ALLOC_GROW(l->v, l->n + 1, l->cap);
    l->v[l->n++] = e;
}

/* ---- the first way: R and the query's atoms --------------------------------- */

/* The query's event that e stands for when an = atom merges them (the
 * first of the pair), else e. */
static uint32_t merged(const hb_query *q, uint32_t e)
{
    for (uint32_t k = 0; k < q->n_atoms; k++)
        if (q->atoms[k].kind == ATOM_EQUAL && q->ev[q->atoms[k].j] == e)
            return q->ev[q->atoms[k].i];
    return e;
}

/* Walks the predecessors of a node of R ∪ atoms: R's in-edges of each
 * event merged into it (the node itself first), then the earlier sides of
 * the strict and <= atoms into it; all mapped through merged(). */
typedef struct dfs_frame {
    uint32_t node;
    uint8_t member;                  /* 0: the node itself; 1+i: q->ev[i-1] */
    uint8_t atom;                    /* atoms looked at, once members are done */
    uint32_t edge;                   /* in-edges of the member looked at */
} dfs_frame;

/* Whether query event i is a member of node x other than x itself (and
 * not a repeat of an earlier query event). */
static int extra_member(const hb_query *q, uint32_t x, uint32_t i)
{
    uint32_t e = q->ev[i];
    if (e == x || merged(q, e) != x)
        return 0;
    for (uint32_t k = 0; k < i; k++)
        if (q->ev[k] == e)
            return 0;
    return 1;
}

/* The next predecessor of f's node, or UINT32_MAX past the last. */
static uint32_t next_predecessor(const witness_finder *w, const hb_query *q,
                                 dfs_frame *f)
{
    while (f->member <= q->n_events) {
        int is_member = f->member == 0 || extra_member(q, f->node, f->member - 1u);
        uint32_t e = f->member == 0 ? f->node : q->ev[f->member - 1];
        if (is_member && w->r.start[e] + f->edge < w->r.start[e + 1])
            return merged(q, w->r.adj[w->r.start[e] + f->edge++]);
        f->member++;
        f->edge = 0;
    }
    while (f->atom < q->n_atoms) {
        const hb_atom *at = &q->atoms[f->atom++];
        if (at->kind != ATOM_EQUAL && merged(q, q->ev[at->j]) == f->node)
            return merged(q, q->ev[at->i]);
    }
    return UINT32_MAX;
}

/* Post-order DFS over predecessors from the query's and the core events:
 * values are positions in a topological order of their ancestors.  Returns 0, or -1
 * on a cycle (then R gives no solution with the query).  Adds to
 * `visited` every event it gave a state or value, to be cleared after. */
static int order_by_r(witness_finder *w, const hb_query *q,
                      const event_list *core, event_list *visited)
{
    dfs_frame *stack = NULL;
    uint32_t depth = 0, cap = 0;
    int64_t next_value = 0;
    int rc = 0;
    for (uint32_t i = 0; i < q->n_events + core->n && rc == 0; i++) {
        uint32_t root = merged(q, i < q->n_events ? q->ev[i]
                                                  : core->v[i - q->n_events]);
        if (w->state[root])
            continue;
        ALLOC_GROW(stack, depth + 1, cap);
        stack[depth++] = (dfs_frame){.node = root};
        w->state[root] = 1;
        list_add(w, visited, root);
        while (depth && rc == 0) {
            dfs_frame *f = &stack[depth - 1];
            uint32_t p = next_predecessor(w, q, f);
            if (p == UINT32_MAX) {
                w->state[f->node] = 2;
                w->value[f->node] = next_value++;
                depth--;
            } else if (w->state[p] == 1) {
                rc = -1; /* a cycle */
            } else if (w->state[p] == 0) {
                w->state[p] = 1;
                list_add(w, visited, p);
                ALLOC_GROW(stack, depth + 1, cap);
                stack[depth++] = (dfs_frame){.node = p};
            }
        }
    }
    free(stack);
    for (uint32_t i = 0; i < q->n_events; i++) { /* merged events share */
        list_add(w, visited, q->ev[i]);
        w->value[q->ev[i]] = w->value[merged(q, q->ev[i])];
    }
    return rc;
}

/* ---- the cut ------------------------------------------------------------------ */

/* The events that may matter for core event e: e's thread back from e,
 * and what each of those may wait on in other threads. */
static void collect_candidates(witness_finder *w, uint32_t e, event_list *out)
{
    const trace *t = w->t;
    const thread_info *th = &t->threads[t->events[e].thread];
    uint32_t pos = t->events[e].pos, walked = 0;
    for (uint32_t k = pos + 1; k-- > 0 && walked < WALK_MAX;) {
        uint32_t x = th->events[k];
        if (!w->m->kept[x])
            continue;
        walked++;
        list_add(w, out, x);
        wait_iter it = waits_of(w, x);
        for (uint32_t y; next_wait(w, &it, &y);)
            if (t->events[y].thread != t->events[x].thread)
                list_add(w, out, y);
    }
}

/* Whether thread a's chosen wait is shown before thread b's. */
static int better_wait(const witness_finder *w, uint32_t a, uint32_t b)
{
    int ca = w->core_thread[a] == w->core_mark,
        cb = w->core_thread[b] == w->core_mark;
    return ca != cb ? ca > cb
                    : w->value[w->latest_src[a]] > w->value[w->latest_src[b]];
}

/* For core event e: per other thread, the latest event (by value) that an
 * event of e's thread up to e waits on; appended to out with their
 * waiters.  peer_of[x] records the wait. */
static void choose_waits(witness_finder *w, uint32_t e, event_list *out,
                         uint32_t *touched, uint32_t *n_touched)
{
    const trace *t = w->t;
    const thread_info *th = &t->threads[t->events[e].thread];
    uint32_t walked = 0;
    w->epoch++;
    uint32_t mark = w->epoch;
    *n_touched = 0;
    for (uint32_t k = t->events[e].pos + 1; k-- > 0 && walked < WALK_MAX;) {
        uint32_t x = th->events[k];
        if (!w->m->kept[x] || w->value[x] == NO_VALUE)
            continue;
        walked++;
        wait_iter it = waits_of(w, x);
        for (uint32_t y; next_wait(w, &it, &y);) {
            uint32_t ty = t->events[y].thread;
            if (ty == t->events[x].thread || w->value[y] == NO_VALUE ||
                w->value[y] >= w->value[x])
                continue;
            if (w->latest_seen[ty] != mark) {
                w->latest_seen[ty] = mark;
                touched[(*n_touched)++] = ty;
            } else if (w->value[w->latest_src[ty]] >= w->value[y]) {
                continue;
            }
            w->latest_src[ty] = y;
            w->latest_dst[ty] = x;
        }
    }
    /* the threads of the instance first, then the latest waits: the
     * WAITS_MAX best, by selection */
    for (uint32_t i = 0; i < *n_touched && i < WAITS_MAX; i++) {
        for (uint32_t j = i + 1; j < *n_touched; j++)
            if (better_wait(w, touched[j], touched[i])) {
                uint32_t x = touched[i];
                touched[i] = touched[j];
                touched[j] = x;
            }
        ALLOC_GROW(out->v, out->n + 2, out->cap);
        out->v[out->n++] = w->latest_src[touched[i]];
        out->v[out->n++] = w->latest_dst[touched[i]];
    }
}

/* ---- the witness ---------------------------------------------------------- */

typedef struct cut_entry {
    uint32_t event;
    uint32_t node;                   /* merged(): simultaneous events share */
    int64_t value;
} cut_entry;

/* By value; among equal values, simultaneous events side by side. */
static int cmp_cut(const void *a, const void *b)
{
    const cut_entry *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->event < y->event ? -1 : x->event > y->event;
}

static int simultaneous(const hb_query *q, uint32_t a, uint32_t b)
{
    for (uint32_t k = 0; k < q->n_atoms; k++) {
        const hb_atom *at = &q->atoms[k];
        uint32_t x = q->ev[at->i], y = q->ev[at->j];
        if (at->kind == ATOM_EQUAL && ((x == a && y == b) || (x == b && y == a)))
            return 1;
    }
    return 0;
}

/* Writes the witness of the valued events: core events (the instance and
 * the query's extra ones) and what each waits on, in order. */
static void write_witness(witness_finder *w, const hb_query *q,
                          const uint32_t *inst, uint32_t n_inst,
                          const event_list *core, race_group *g)
{
    const trace *t = w->t;
    event_list waits = {0};
    uint32_t *touched = xmalloc_array((size_t)t->n_threads + 1, sizeof *touched);
    uint32_t n_touched;
    w->core_mark++;
    for (uint32_t i = 0; i < core->n; i++)
        w->core_thread[t->events[core->v[i]].thread] = w->core_mark;
    for (uint32_t i = 0; i < core->n; i++)
        choose_waits(w, core->v[i], &waits, touched, &n_touched);
    free(touched);
    /* the list: core events, then waits (pairs src, dst), each once */
    w->epoch++;
    event_list all = {0};
    for (uint32_t i = 0; i < core->n; i++)
        list_add(w, &all, core->v[i]);
    for (uint32_t i = 0; i < waits.n; i++)
        list_add(w, &all, waits.v[i]);
    cut_entry *cut = xmalloc_array((size_t)all.n + 1, sizeof *cut);
    for (uint32_t i = 0; i < all.n; i++)
        cut[i] = (cut_entry){all.v[i], merged(q, all.v[i]), w->value[all.v[i]]};
    qsort(cut, all.n, sizeof *cut, cmp_cut);
    g->witness = xcalloc((size_t)all.n + 1, sizeof *g->witness);
    g->n_witness = all.n;
    for (uint32_t i = 0; i < all.n; i++) {
        witness_step *s = &g->witness[i];
        uint32_t e = cut[i].event;
        s->event = event_ref_of(t, e);
        s->step = i == 0 ? 1
                  : g->witness[i - 1].step +
                        !(cut[i].value == cut[i - 1].value &&
                          simultaneous(q, cut[i - 1].event, e));
        s->role = -1;
        for (uint32_t k = 0; k < n_inst; k++)
            if (inst[k] == e)
                s->role = (int8_t)k;
        s->peer = -1;
    }
    /* peers: each wait's src, found by its index in the list */
    for (uint32_t i = 0; i + 1 < waits.n; i += 2)
        for (uint32_t a = 0; a < all.n; a++) {
            if (cut[a].event != waits.v[i + 1])
                continue;
            for (uint32_t b = 0; b < all.n; b++)
                if (cut[b].event == waits.v[i] &&
                    (g->witness[a].peer < 0 ||
                     cut[g->witness[a].peer].value < cut[b].value))
                    g->witness[a].peer = (int32_t)b;
        }
    free(cut);
    free(all.v);
    free(waits.v);
}

/* ---- the second way: Z3 --------------------------------------------------- */

/* One Z3 check for a witness, on a thread of its own (engine_z3_call):
 * it owns copies of what it reads but the finder, the model and the
 * solver, so that it may be left running. */
typedef struct z3_witness_task {
    witness_finder *w;
    hb_query q;
    uint32_t *events, n;
    int64_t *values;
    hb_answer answer;
} z3_witness_task;

static void check_for_witness(void *arg)
{
    z3_witness_task *task = arg;
    witness_finder *w = task->w;
    if (!w->solver)
        w->solver = hb_solver_new(w->m, &w->solver_options);
    task->answer = !w->solver ? ANSWER_ERROR
                              : hb_solver_check_values(w->solver, &task->q,
                                                       task->events, task->n,
                                                       task->values);
}

/* Values from Z3's model for the candidates of every core event.  Returns
 * ANSWER_SAT (values set), ANSWER_UNSAT, ANSWER_UNKNOWN (also once a call
 * was left running) or ANSWER_ERROR. */
static hb_answer order_by_z3(witness_finder *w, const hb_query *q,
                             const event_list *core, event_list *valued)
{
    if (w->abandoned) /* the call left running owns w->solver */
        return ANSWER_UNKNOWN;
    w->epoch++;
    for (uint32_t i = 0; i < core->n; i++)
        collect_candidates(w, core->v[i], valued);
    for (uint32_t i = 0; i < core->n; i++)
        list_add(w, valued, core->v[i]);
    hb_model_add_waits(w->m, w->t, w->solver_options.stop); /* on this thread */
    if (w->m->incomplete) /* stopped meanwhile */
        return ANSWER_UNKNOWN;
    z3_witness_task *task = xcalloc(1, sizeof *task);
    *task = (z3_witness_task){.w = w, .q = *q, .n = valued->n};
    task->events = xmalloc_array((size_t)valued->n + 1, sizeof *task->events);
    memcpy(task->events, valued->v, valued->n * sizeof *task->events);
    task->values = xmalloc_array((size_t)valued->n + 1, sizeof *task->values);
    if (engine_z3_call(check_for_witness, task, w->leave_on)) {
        w->abandoned = 1; /* the task stays: the call may still use it */
        return ANSWER_UNKNOWN;
    }
    hb_answer a = task->answer;
    if (a == ANSWER_SAT)
        for (uint32_t i = 0; i < valued->n; i++)
            w->value[valued->v[i]] = task->values[i];
    free(task->events);
    free(task->values);
    free(task);
    return a;
}

static void clear_values(witness_finder *w, event_list *valued)
{
    for (uint32_t i = 0; i < valued->n; i++) {
        w->value[valued->v[i]] = NO_VALUE;
        w->state[valued->v[i]] = 0;
    }
    valued->n = 0;
}

static void core_events(witness_finder *w, const uint32_t *inst,
                        uint32_t n_inst, const witness_query *wq,
                        event_list *core)
{
    w->epoch++;
    core->n = 0;
    for (uint32_t i = 0; i < n_inst; i++)
        list_add(w, core, inst[i]);
    for (uint32_t i = 0; i < wq->n_extra; i++)
        list_add(w, core, wq->extra[i]);
}

/* One alternative: 1 written, 0 unsat, -1 error, 2 unknown. */
static int try_query(witness_finder *w, const uint32_t *inst, uint32_t n_inst,
                     const witness_query *wq, race_group *g, event_list *valued)
{
    event_list core = {0};
    core_events(w, inst, n_inst, wq, &core);
    int rc = 0;
    w->epoch++;
    if (w->r_usable && order_by_r(w, &wq->query, &core, valued) == 0) {
        write_witness(w, &wq->query, inst, n_inst, &core, g);
        rc = 1;
    } else {
        clear_values(w, valued);
        hb_answer a = order_by_z3(w, &wq->query, &core, valued);
        if (a == ANSWER_SAT) {
            write_witness(w, &wq->query, inst, n_inst, &core, g);
            rc = 1;
        } else {
            rc = a == ANSWER_UNSAT ? 0 : a == ANSWER_UNKNOWN ? 2 : -1;
        }
    }
    clear_values(w, valued);
    free(core.v);
    return rc;
}

int witness_find(witness_finder *w, const uint32_t *inst, uint32_t n_inst,
                 const witness_query *alts, size_t n_alts, race_group *g,
                 char *err, size_t err_len)
{
    event_list valued = {0};
    int found = 0, unknown = 0;
    for (size_t i = 0; i < n_alts && !found; i++) {
        int rc = try_query(w, inst, n_inst, &alts[i], g, &valued);
        if (rc < 0) {
            snprintf(err, err_len, "the solver failed while finding a "
                     "witness: %s", hb_solver_error(w->solver));
            free(valued.v);
            return -1;
        }
        found = rc == 1;
        unknown |= rc == 2;
    }
    free(valued.v);
    (void)unknown;
    return found ? 0 : 1;
}
