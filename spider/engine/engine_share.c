/*
 * engine_share.c — a rank's share of the trace analysed, and the parts
 * merged at rank 0 (engine_share.h).
 */
#include "engine_share.h"
#include "engine_decide.h"
#include "context.h"

#include "../../util/alloc.h"
#include "../../util/pack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int own(const trace_share *s, uint32_t e) { return !s->foreign[e]; }

/* The event of the share whose whole-trace id is g, when it is this
 * rank's own; else UINT32_MAX.  (The share's events are in the whole
 * trace's order.) */
static uint32_t own_event(const trace_share *s, uint32_t g)
{
    uint32_t e = engine_lower_bound(s->global, 0, s->t->n_events, g);
    return e < s->t->n_events && s->global[e] == g && own(s, e)
               ? e : UINT32_MAX;
}

/* ---- what the share cannot decide alone ---------------------------------- */

/* An own CREATE or JOIN of a thread of another rank, or of one with no
 * events (its fork or join edge lies between two shares; the whole
 * trace's count of such threads is not this rank's to say). */
static int crosses_ranks(const trace_share *s)
{
    const trace *t = s->t;
    for (uint32_t e = 0; e < t->n_events; e++) {
        const event *ev = &t->events[e];
        if (!own(s, e) || (ev->kind != EV_CREATE && ev->kind != EV_JOIN))
            continue;
        const thread_info *th = ev->object == NONE ? NULL
                                                   : &t->threads[ev->object];
        if (!th || !th->n_events || !own(s, th->events[0]))
            return 1;
    }
    /* a CREATE is never another node's endpoint: an own thread created
     * on another rank has its CREATE on that rank, which says so */
    return 0;
}

/* The trace's derived facts one process warns of (trace_derive.c): a
 * share's are worded over its part, so any of them sends the run whole. */
static int warns(const trace_stats *st)
{
    return st->handlers_without_message || st->handlers_unclosed ||
           st->handler_ends_ignored || st->sections_unreleased ||
           st->unlocks_ignored || st->joins_unknown;
}

/* ---- the summary of the own nodes ----------------------------------------- */

/* What of the summary is the own nodes' alone: their threads, handlers,
 * sections, kept events, messages and constraints (an edge is counted by
 * the rank of the event it enters). */
static void own_summary(const trace_share *s, const hb_model *m,
                        report_summary *sum)
{
    const trace *t = s->t;
    sum->threads = 0;
    for (uint32_t i = 0; i < t->n_threads; i++)
        sum->threads += t->threads[i].n_events &&
                        own(s, t->threads[i].events[0]);
    sum->handlers = 0;
    for (uint32_t i = 0; i < t->n_handlers; i++)
        sum->handlers += own(s, t->handlers[i].begin);
    sum->lock_sections = 0;
    for (uint32_t i = 0; i < t->n_sections; i++)
        sum->lock_sections += own(s, t->sections[i].acquire);
    sum->events_analyzed = 0;
    for (uint32_t e = 0; e < t->n_events; e++)
        sum->events_analyzed += own(s, e) && m->kept[e];
    trace_share_messages msg;
    trace_share_count_messages(s, &msg);
    sum->trace.rcvs_matched = msg.rcvs_matched;
    sum->trace.rcvs_unmatched = msg.rcvs_unmatched;
    sum->trace.sends_unreceived = msg.sends_unreceived;
    sum->constraints = hb_model_size(m);
    for (uint32_t i = 0; i < m->n_edges; i++)
        if (!own(s, m->edges[i].after)) {
            hb_counts_add(&sum->constraints_by_origin,
                          (hb_origin)m->edge_origin[i], -1);
            sum->constraints--;
        }
}

/* rank 0's summary plus another rank's part of it */
static void add_summary(report_summary *to, const report_summary *p)
{
    to->threads += p->threads;
    to->handlers += p->handlers;
    to->lock_sections += p->lock_sections;
    to->events_analyzed += p->events_analyzed;
    to->trace.rcvs_matched += p->trace.rcvs_matched;
    to->trace.rcvs_unmatched += p->trace.rcvs_unmatched;
    to->trace.sends_unreceived += p->trace.sends_unreceived;
    to->constraints += p->constraints;
    const uint64_t *from = &p->constraints_by_origin.program_order;
    uint64_t *into = &to->constraints_by_origin.program_order;
    for (size_t i = 0; i < sizeof p->constraints_by_origin / sizeof *from; i++)
        into[i] += from[i];
    for (int k = 0; k < RACE_KINDS; k++) {
        to->candidates[k] += p->candidates[k];
        to->instances[k] += p->instances[k];
    }
    to->undecided += p->undecided;
    to->not_asked += p->not_asked;
    to->by_shortcut_unsat += p->by_shortcut_unsat;
    to->by_shortcut_sat += p->by_shortcut_sat;
    to->by_z3 += p->by_z3;
    to->partial |= p->partial;
    to->pruning.accesses += p->pruning.accesses;
    to->pruning.handler_events += p->pruning.handler_events;
    to->pruning.thread_events += p->pruning.thread_events;
    to->pruning.other_events += p->pruning.other_events;
    if (p->pruning.rounds > to->pruning.rounds)
        to->pruning.rounds = p->pruning.rounds;
}

/* ---- the rank's run ----------------------------------------------------- */

/* Generates the own batches on run, its order made over the share (and
 * Φ's edges dropped then: only the order reads them).  Returns 1 when
 * something is left that the share cannot decide. */
static int run_share(engine_run *run, hb_outside *out)
{
    const trace_share *s = run->share;
    const report_summary *sum = &run->r->summary;
    /* one thread: the ranks are the run's parallelism, and sweeping a
     * batch ahead on a second thread holds a second batch's clocks */
    run->order = hb_order_new_share(s->t, run->m, 1, run->o->batch_chains,
                                    s->foreign, out);
    run->order_made = 1;
    hb_outside_free(out);
    hb_model_drop_edges(run->m);
    /* R is a witness only where no node needs a choice of lock order or
     * wake-up: a rank knows its own nodes', and every rank must say so
     * (engine_analyse_share()'s vote), or a choice on another node could
     * order what this rank's R leaves apart */
    if (!run->order || !hb_order_r_is_u(run->order))
        return 1;
    for (int k = 0; k < RACE_KINDS; k++) {
        const analysis *a = run->g->analyses[k];
        if (sum->enabled[k] && a->generate)
            a->generate(run);
    }
    run->kinds_mixed = 1;
    hb_order *o = run->order;
    /* a stop leaves the rest undecided, as in one process */
    for (uint32_t b = 0; b < hb_order_n_own_batches(o) && !engine_stopped(run);
         b++)
        engine_generate_batch(run, o, b);
    if (engine_stopped(run)) { /* what was found, undecided */
        engine_count_verdicts(run, NULL);
        return 0;
    }
    if (sum->not_asked)
        return 1; /* what Z3 would have been asked: skipped */
    engine_sort_by_kind(run);
    hb_answer *verdict = xmalloc_array(run->n + 1, sizeof *verdict);
    int decided = engine_decide_shortcuts(run, verdict);
    if (decided || engine_stopped(run))
        engine_count_verdicts(run, decided ? verdict : NULL);
    free(verdict);
    return !decided && !engine_stopped(run);
}

/* ---- a rank's part: its summary and groups -------------------------------- */

static void pack_u64(pack *p, uint64_t v) { pack_put(p, &v, sizeof v); }
static uint64_t unpack_u64(unpack *u)
{
    uint64_t v;
    unpack_get(u, &v, sizeof v);
    return v;
}
static void pack_str(pack *p, const char *s)
{
    pack_put(p, (uint8_t[]){s != NULL}, 1);
    if (s)
        pack_text(p, s, strlen(s));
}
static char *unpack_str(unpack *u)
{
    uint8_t has = 0;
    unpack_get(u, &has, 1);
    size_t len;
    return has ? xstrdup(unpack_text(u, &len)) : NULL;
}

/* A group as it comes from a rank, with what picks the instance shown. */
typedef struct part_group {
    race_group g;                    /* its events are filled in later */
    uint32_t global[GROUP_EVENTS];   /* the shown events, whole-trace ids */
    uint32_t input_index[GROUP_EVENTS];
    char *thread[GROUP_EVENTS];
    uint8_t holds;
} part_group;

static void pack_group(pack *p, const trace_share *s, const group_state *gs,
                       const race_group *g)
{
    pack_u32(p, g->kind);
    pack_u32(p, g->n_locations);
    for (uint32_t i = 0; i < g->n_locations; i++)
        pack_str(p, g->locations[i]);
    pack_str(p, g->node);
    pack_str(p, g->variable);
    pack_str(p, g->variable_y);
    pack_put(p, g->pattern, sizeof g->pattern);
    pack_u32(p, g->rule_support);
    pack_put(p, &g->rule_confidence, sizeof g->rule_confidence);
    pack_u64(p, g->count);
    pack_u64(p, g->unchecked);
    pack_u64(p, g->undecided);
    pack_put(p, (uint8_t[]){g->ranked, gs->instance_holds}, 2);
    pack_u32(p, g->gap);
    pack_u32(p, g->n_events);
    for (uint32_t i = 0; i < g->n_events; i++) {
        pack_u32(p, s->global[gs->inst[i]]);
        pack_u32(p, s->t->events[gs->inst[i]].input_index);
        pack_str(p, g->events[i].thread);
    }
}

static part_group unpack_group(unpack *u)
{
    part_group pg;
    memset(&pg, 0, sizeof pg);
    race_group *g = &pg.g;
    g->kind = (race_kind)unpack_u32(u);
    g->n_locations = unpack_u32(u);
    if (g->n_locations > GROUP_EVENTS)
        g->n_locations = 0, u->bad = 1;
    for (uint32_t i = 0; i < g->n_locations; i++)
        g->locations[i] = unpack_str(u);
    g->node = unpack_str(u);
    g->variable = unpack_str(u);
    g->variable_y = unpack_str(u);
    unpack_get(u, g->pattern, sizeof g->pattern);
    g->rule_support = unpack_u32(u);
    unpack_get(u, &g->rule_confidence, sizeof g->rule_confidence);
    g->count = unpack_u64(u);
    g->unchecked = unpack_u64(u);
    g->undecided = unpack_u64(u);
    uint8_t flags[2] = {0, 0};
    unpack_get(u, flags, 2);
    g->ranked = flags[0];
    pg.holds = flags[1];
    g->gap = unpack_u32(u);
    g->n_events = unpack_u32(u);
    if (g->n_events > GROUP_EVENTS)
        g->n_events = 0, u->bad = 1;
    for (uint32_t i = 0; i < g->n_events; i++) {
        pg.global[i] = unpack_u32(u);
        pg.input_index[i] = unpack_u32(u);
        pg.thread[i] = unpack_str(u);
    }
    return pg;
}

/* Whether a group read back has what the merge and the printers read. */
static int whole_group(const part_group *pg)
{
    if ((unsigned)pg->g.kind >= RACE_KINDS || !pg->g.node)
        return 0;
    for (uint32_t i = 0; i < pg->g.n_locations; i++)
        if (!pg->g.locations[i])
            return 0;
    for (uint32_t i = 0; i < pg->g.n_events; i++)
        if (!pg->thread[i])
            return 0;
    return 1;
}

static void part_group_free(part_group *pg)
{
    race_group_free(&pg->g); /* its events are not filled in yet */
    for (uint32_t i = 0; i < GROUP_EVENTS; i++)
        free(pg->thread[i]);
}

/* The rank's summary (own: own_summary()'s figures) and its groups that
 * hold or are open. */
static void pack_part(pack *p, engine_run *run, const report_summary *own)
{
    const trace_share *s = run->share;
    report_summary sum = run->r->summary;
    sum.threads = own->threads;
    sum.handlers = own->handlers;
    sum.lock_sections = own->lock_sections;
    sum.events_analyzed = own->events_analyzed;
    sum.trace.rcvs_matched = own->trace.rcvs_matched;
    sum.trace.rcvs_unmatched = own->trace.rcvs_unmatched;
    sum.trace.sends_unreceived = own->trace.sends_unreceived;
    sum.constraints = own->constraints;
    sum.constraints_by_origin = own->constraints_by_origin;
    pack_put(p, &sum, sizeof sum);
    grouper *g = run->g;
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n; i++)
        n += g->g[i].count || g->g[i].undecided;
    pack_u32(p, n);
    for (uint32_t i = 0; i < g->n; i++) {
        const group_state *gs = &g->g[i];
        if (!gs->count && !gs->undecided)
            continue;
        /* its events' contexts come from their owners (fetch_events()) */
        race_group rg = engine_finish_group(s->t, run->o, NULL,
                                            g->analyses[gs->key.kind], gs);
        pack_group(p, s, gs, &rg);
        race_group_free(&rg);
    }
}

/* ---- the merge at rank 0 -------------------------------------------------- */

static int cmp_parts(const void *x, const void *y)
{
    return engine_cmp_groups(&((const part_group *)x)->g,
                             &((const part_group *)y)->g);
}

/* grouper_offer()'s order of shown instances: one that holds first, then
 * the lower rank, then event by event by thread name and input position. */
static int cmp_instances(const part_group *a, const part_group *b)
{
    if (a->holds != b->holds)
        return a->holds ? -1 : 1;
    if (a->g.gap != b->g.gap)
        return a->g.gap < b->g.gap ? -1 : 1;
    for (uint32_t i = 0; i < a->g.n_events; i++) {
        int c = strcmp(a->thread[i], b->thread[i]);
        if (c)
            return c;
        if (a->input_index[i] != b->input_index[i])
            return a->input_index[i] < b->input_index[i] ? -1 : 1;
    }
    return 0;
}

/* Every rank's groups, one per kind and locations; NULL-free. */
static part_group *merge_groups(part_group *all, size_t n, size_t *n_out)
{
    if (n > 1) /* all is NULL when no rank has a group */
        qsort(all, n, sizeof *all, cmp_parts);
    size_t kept = 0;
    for (size_t i = 0; i < n;) {
        size_t best = i, j = i + 1;
        uint64_t count = all[i].g.count, unchecked = all[i].g.unchecked,
                 undecided = all[i].g.undecided;
        for (; j < n && cmp_parts(&all[i], &all[j]) == 0; j++) {
            count += all[j].g.count;
            unchecked += all[j].g.unchecked;
            undecided += all[j].g.undecided;
            if (cmp_instances(&all[j], &all[best]) < 0)
                best = j;
        }
        for (size_t k = i; k < j; k++)
            if (k != best)
                part_group_free(&all[k]);
        part_group pg = all[best];
        pg.g.count = count, pg.g.unchecked = unchecked;
        pg.g.undecided = undecided;
        all[kept++] = pg;
        i = j;
    }
    *n_out = kept;
    return all;
}

/* ---- the events shown, from their owners ----------------------------------- */

/* An event as fetch_events() sends it: its ref, and for each event its
 * context names (context.h) the ref when this rank owns it too, else
 * the event's whole-trace id to fetch next. */
static void pack_ref(pack *p, const event_ref *r)
{
    pack_str(p, r->thread);
    pack_str(p, r->location);
    pack_str(p, r->file);
    pack_str(p, r->node);
    pack_str(p, r->object);
    pack_str(p, r->type);
    pack_u32(p, r->line);
    pack_u32(p, r->index);
}

/* event_kind_name()'s string of the kind named `name` (refs point to
 * those), or NULL. */
static const char *static_kind_name(const char *name)
{
    for (int k = 0; name && k <= EV_KIND_MAX; k++)
        if (strcmp(event_kind_name((event_kind)k), name) == 0)
            return event_kind_name((event_kind)k);
    return NULL;
}

static event_ref unpack_ref(unpack *u)
{
    event_ref r;
    memset(&r, 0, sizeof r);
    r.thread = unpack_str(u);
    r.location = unpack_str(u);
    r.file = unpack_str(u);
    r.node = unpack_str(u);
    r.object = unpack_str(u);
    char *type = unpack_str(u);
    r.type = static_kind_name(type);
    free(type);
    r.line = unpack_u32(u);
    r.index = unpack_u32(u);
    return r;
}

static void pack_event(pack *p, const trace_share *s, const context_finder *cf,
                       uint32_t e)
{
    event_ref r = event_ref_of(s->t, e);
    pack_ref(p, &r);
    event_ref_free(&r);
    event_context *ctx = context_find(cf, e);
    pack_u32(p, ctx->n_locks);
    for (uint32_t i = 0; i < ctx->n_locks; i++)
        pack_str(p, ctx->locks[i]);
    pack_str(p, ctx->message);
    uint32_t at[CONTEXT_EVENTS];
    context_events(s->t, e, at);
    for (int k = 0; k < CONTEXT_EVENTS; k++) {
        uint8_t how = at[k] == UINT32_MAX ? 0 : own(s, at[k]) ? 1 : 2;
        pack_put(p, &how, 1);
        if (how == 1) {
            event_ref sub = event_ref_of(s->t, at[k]);
            pack_ref(p, &sub);
            event_ref_free(&sub);
        } else if (how == 2) {
            pack_u32(p, s->global[at[k]]);
        }
    }
    event_context_free(ctx);
}

/* Where a fetched ref goes, and what names it. */
typedef struct wanted {
    uint32_t *global;
    event_ref **into;
    size_t n, cap, into_cap;
} wanted;

static void want(wanted *w, uint32_t g, event_ref *into)
{
    ALLOC_GROW(w->global, w->n + 1, w->cap);
    ALLOC_GROW(w->into, w->n + 1, w->into_cap);
    w->global[w->n] = g;
    w->into[w->n++] = into;
}

static event_ref *ref_slot(event_ref **slot)
{
    *slot = xcalloc(1, sizeof **slot);
    return *slot;
}

static void unpack_event(unpack *u, event_ref *into, wanted *next)
{
    *into = unpack_ref(u);
    event_context *ctx = xcalloc(1, sizeof *ctx);
    into->context = ctx;
    ctx->n_locks = unpack_u32(u);
    if (ctx->n_locks > (size_t)(u->end - u->p))
        ctx->n_locks = 0, u->bad = 1;
    ctx->locks = ctx->n_locks ? xmalloc_array(ctx->n_locks, sizeof *ctx->locks)
                              : NULL;
    for (uint32_t i = 0; i < ctx->n_locks; i++)
        ctx->locks[i] = unpack_str(u);
    ctx->message = unpack_str(u);
    event_ref **slot[CONTEXT_EVENTS] = {
        [CONTEXT_HANDLER] = &ctx->handler, [CONTEXT_SENDER] = &ctx->sender,
        [CONTEXT_CREATED] = &ctx->created};
    for (int k = 0; k < CONTEXT_EVENTS; k++) {
        uint8_t how = 0;
        unpack_get(u, &how, 1);
        if (how == 1)
            *ref_slot(slot[k]) = unpack_ref(u);
        else if (how == 2)
            want(next, unpack_u32(u), ref_slot(slot[k]));
    }
}

/* Rank 0's list w of whole-trace ids to every rank; each owner sends
 * back its events (with their contexts when `full`), which land where
 * w says (the ids of the contexts' events other ranks own into next).
 * -1 when a collective operation failed; bytes rank 0 cannot read set
 * *bad there alone (the caller's vote spreads it), so that every rank
 * still makes the same calls. */
static int fetch(comm *c, const trace_share *s, const context_finder *cf,
                 wanted *w, int full, wanted *next, int *bad)
{
    uint64_t n = w->n;
    if (comm_broadcast(c, &n, sizeof n) != 0)
        return -1;
    uint32_t *ids = c->rank == 0 ? w->global
                                 : xmalloc_array((size_t)n + 1, sizeof *ids);
    if (n && comm_broadcast(c, ids, (size_t)n * sizeof *ids) != 0) {
        if (c->rank != 0)
            free(ids);
        return -1;
    }
    pack p = {0};
    for (uint64_t i = 0; i < n; i++) {
        uint32_t e = own_event(s, ids[i]);
        if (e == UINT32_MAX)
            continue;
        pack_u32(&p, (uint32_t)i);
        if (full) {
            pack_event(&p, s, cf, e);
        } else {
            event_ref r = event_ref_of(s->t, e);
            pack_ref(&p, &r);
            event_ref_free(&r);
        }
    }
    if (c->rank != 0)
        free(ids);
    comm_parts parts = {0};
    int rc = comm_gather(c, p.data, p.n, &parts);
    free(p.data);
    for (unsigned r = 0; rc == 0 && !*bad && r < parts.n; r++) {
        unpack u = unpack_of(parts.data[r], parts.len[r]);
        while (!u.bad && u.p < u.end) {
            uint32_t i = unpack_u32(&u);
            if (i >= w->n || w->into[i]->thread) { /* none, or twice */
                u.bad = 1;
                break;
            }
            if (full)
                unpack_event(&u, w->into[i], next);
            else
                *w->into[i] = unpack_ref(&u);
        }
        *bad |= u.bad;
    }
    comm_parts_free(&parts);
    return rc;
}

/* Whether every ref w names has come (an owner for each). */
static int all_came(const wanted *w)
{
    for (size_t i = 0; i < w->n; i++)
        if (!w->into[i]->thread)
            return 0;
    return 1;
}

/* The events of rank 0's groups (and of their contexts), from their
 * owners: every rank takes part.  0, or -1 when a collective operation
 * failed; *bad (rank 0's) when an event came garbled, twice or not at
 * all. */
static int fetch_events(comm *c, const trace_share *s, part_group *pg,
                        size_t n, int *bad)
{
    wanted shown = {0}, named = {0}, none = {0};
    for (size_t i = 0; c->rank == 0 && i < n; i++)
        for (uint32_t k = 0; k < pg[i].g.n_events; k++)
            want(&shown, pg[i].global[k], &pg[i].g.events[k]);
    context_finder *cf = context_finder_new(s->t);
    int rc = fetch(c, s, cf, &shown, 1, &named, bad);
    context_finder_free(cf);
    if (rc == 0)
        rc = fetch(c, s, NULL, &named, 0, &none, bad);
    if (rc == 0 && (!all_came(&shown) || !all_came(&named)))
        *bad = 1;
    free(shown.global), free(shown.into);
    free(named.global), free(named.into);
    return rc;
}

/* Rank 0: the report of every rank's part; *bad when a part does not
 * read back (its groups are then left out). */
static report *merge_parts(const comm_parts *parts, part_group **pg_out,
                           size_t *n_out, int *bad)
{
    report *r = xcalloc(1, sizeof *r);
    part_group *all = NULL;
    size_t n = 0, cap = 0;
    for (unsigned k = 0; k < parts->n; k++) {
        unpack u = unpack_of(parts->data[k], parts->len[k]);
        report_summary sum;
        unpack_get(&u, &sum, sizeof sum);
        if (k == 0) {
            r->summary = sum; /* the whole trace's figures are rank 0's */
        } else {
            add_summary(&r->summary, &sum);
        }
        uint32_t groups = unpack_u32(&u);
        for (uint32_t i = 0; i < groups && !u.bad; i++) {
            part_group pg = unpack_group(&u);
            if (u.bad || !whole_group(&pg)) {
                part_group_free(&pg);
                u.bad = 1;
                break;
            }
            ALLOC_GROW(all, n + 1, cap);
            all[n++] = pg;
        }
        *bad |= u.bad || u.p != u.end;
    }
    *pg_out = merge_groups(all, n, n_out);
    return r;
}

/* The merged groups into the report, those that hold and the open ones,
 * in the report's order. */
static void place_groups(report *r, part_group *pg, size_t n)
{
    r->groups = xcalloc(n + 1, sizeof *r->groups);
    r->open = xcalloc(n + 1, sizeof *r->open);
    for (size_t i = 0; i < n; i++) {
        for (uint32_t k = 0; k < GROUP_EVENTS; k++)
            free(pg[i].thread[k]);
        if (pg[i].g.count)
            r->groups[r->n_groups++] = pg[i].g;
        else
            r->open[r->n_open++] = pg[i].g;
    }
    qsort(r->groups, r->n_groups, sizeof *r->groups, engine_cmp_groups);
    qsort(r->open, r->n_open, sizeof *r->open, engine_cmp_groups);
    for (size_t i = 0; i < r->n_groups; i++)
        r->n_by_kind[r->groups[i].kind]++;
}

static void summary_of_whole(const trace_share *s, report_summary *sum)
{
    sum->files = s->n_files;
    sum->nodes = s->n_nodes;
    sum->events = s->n_events;
    memcpy(sum->by_kind, s->whole.by_kind, sizeof sum->by_kind);
    trace_stats derived = sum->trace;
    sum->trace = s->whole;
    sum->trace.rcvs_matched = derived.rcvs_matched;
    sum->trace.rcvs_unmatched = derived.rcvs_unmatched;
    sum->trace.sends_unreceived = derived.sends_unreceived;
}

int engine_analyse_share(const analysis *const *analyses,
                         const trace_share *s, hb_model *m,
                         hb_outside *out, const prune_stats *pruning,
                         const analysis_options *opts, comm *c,
                         report **rep, char *err, size_t err_len)
{
    *rep = NULL;
    report *own_r = xcalloc(1, sizeof *own_r);
    engine_fill_summary(own_r, s->t, m, analyses, opts);
    own_r->summary.pruning = *pruning;
    engine_run run = {.t = s->t, .m = m, .o = opts, .r = own_r,
                      .g = grouper_new(s->t, analyses), .share = s};
    report_summary scratch = own_r->summary; /* before Φ's edges go */
    own_summary(s, m, &scratch);
    /* no outside: the ranks stopped before the analysis, whose report
     * is then the summary of what was read, as one process's is */
    uint64_t cannot = out && (warns(&s->t->stats) || crosses_ranks(s));
    if (out && !cannot)
        cannot = run_share(&run, out);
    else if (out)
        hb_outside_free(out);
    own_r->summary.partial = !out || engine_stopped(&run);
    hb_order_free(run.order);
    run.order = NULL;
    /* the votes: a rank that cannot decide sends every rank to the whole
     * trace, but a stopped run reports what it has; where both hold,
     * no verdict stands (one rank's R may not be the whole trace's):
     * the summary alone, as a stop before the analysis gives */
    uint64_t stopped = own_r->summary.partial;
    int rc = comm_reduce_max(c, &cannot);
    if (rc == 0)
        rc = comm_reduce_max(c, &stopped);
    if (rc == 0 && cannot && stopped) {
        grouper_free(run.g);
        run.g = grouper_new(s->t, analyses);
        report_summary *sum = &own_r->summary;
        memset(sum->candidates, 0, sizeof sum->candidates);
        memset(sum->instances, 0, sizeof sum->instances);
        sum->undecided = sum->not_asked = 0;
        sum->by_shortcut_unsat = sum->by_shortcut_sat = sum->by_z3 = 0;
        cannot = 0;
    }
    pack p = {0};
    if (rc == 0 && !cannot)
        pack_part(&p, &run, &scratch);
    engine_run_free(&run);
    if (rc != 0 || cannot) {
        free(p.data);
        report_free(own_r);
        if (rc != 0)
            snprintf(err, err_len, "the ranks of the job lost each other (a "
                     "collective operation failed)");
        return rc != 0 ? -1 : 1;
    }
    comm_parts parts = {0};
    rc = comm_gather(c, p.data, p.n, &parts);
    free(p.data);
    part_group *pg = NULL;
    size_t n = 0;
    report *r = NULL;
    int bad = 0; /* rank 0's: a part or an event did not read back */
    if (rc == 0 && c->rank == 0) {
        r = merge_parts(&parts, &pg, &n, &bad);
        summary_of_whole(s, &r->summary);
    }
    comm_parts_free(&parts);
    report_free(own_r);
    if (rc == 0)
        rc = fetch_events(c, s, pg, n, &bad);
    uint64_t failed = rc != 0 || bad; /* rank 0's check too: every rank */
    if (comm_reduce_max(c, &failed) != 0 || failed)
        rc = -1;
    if (r)
        place_groups(r, pg, n);
    free(pg);
    if (rc != 0) {
        report_free(r);
        snprintf(err, err_len, "the ranks of the job lost each other (a "
                 "collective operation failed)");
        return -1;
    }
    if (r) {
        r->timings.jobs = opts->jobs;
        r->timings.shares = c->size;
    }
    *rep = r;
    return 0;
}
