/*
 * analysis.c — candidate generation for data, message and handler races
 * (docs/model.md §4), their verdicts (exact shortcuts, then Z3), and
 * grouping into race groups.
 */
#include "spider.h"

#include <string.h>
#include <time.h>
#include <uthash.h>

/* ---- groups ------------------------------------------------------------------ */

/* A group while instances are counted: ids, not yet strings. */
typedef struct group_key {
    uint32_t kind, lo, hi;   /* location ids, lo <= hi */
} group_key;

typedef struct group_entry {
    group_key key;
    uint32_t index;
    UT_hash_handle hh;
} group_entry;

typedef struct group_state {
    group_key key;
    uint8_t lo_first;        /* location lo sorts before location hi */
    uint64_t count;
    uint64_t unchecked;      /* candidates not asked: the group races */
    uint64_t undecided;      /* candidates the solver left open */
    uint8_t has_instance, instance_races;
    uint32_t inst[4];        /* first, second (, rcv1, rcv2) of the instance */
} group_state;

enum { GROUP_CACHE = 4096 };

typedef struct grouper {
    const trace *t;
    group_entry *table;
    group_state *g;
    uint32_t n, cap;
    uint32_t *thread_rank;   /* threads ordered by name */
    struct { group_key key; uint32_t index; } cache[GROUP_CACHE];
} grouper;

/* A location's id: its interned string, or one of its own for "thread#i". */
static uint32_t loc_id(const trace *t, uint32_t e)
{
    return t->events[e].loc != STR_NONE ? t->events[e].loc : t->n_strings + e;
}

static uint32_t new_group(grouper *g, const group_key *key, uint32_t a,
                          uint32_t b)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 256;
        g->g = realloc(g->g, g->cap * sizeof *g->g);
    }
    group_state *gs = &g->g[g->n];
    memset(gs, 0, sizeof *gs);
    gs->key = *key;
    char la[64], lb[64];
    int a_is_lo = loc_id(g->t, a) == key->lo;
    int c = strcmp(event_location(g->t, a, la, sizeof la),
                   event_location(g->t, b, lb, sizeof lb));
    gs->lo_first = a_is_lo ? c <= 0 : c >= 0;
    group_entry *entry = malloc(sizeof *entry);
    entry->key = *key;
    entry->index = g->n;
    HASH_ADD(hh, g->table, key, sizeof *key, entry);
    return g->n++;
}

/* The group of locations {loc(a), loc(b)}; a small cache in front of the
 * hash table, since instances of one group come in runs. */
static uint32_t group_of(grouper *g, race_kind kind, uint32_t a, uint32_t b)
{
    uint32_t la = loc_id(g->t, a), lb = loc_id(g->t, b);
    group_key key = {kind, la < lb ? la : lb, la < lb ? lb : la};
    uint32_t slot = (key.lo * 2654435761u ^ key.hi * 40503u ^ kind) % GROUP_CACHE;
    if (!memcmp(&g->cache[slot].key, &key, sizeof key))
        return g->cache[slot].index;
    group_entry *found;
    HASH_FIND(hh, g->table, &key, sizeof key, found);
    uint32_t index = found ? found->index : new_group(g, &key, a, b);
    g->cache[slot].key = key;
    g->cache[slot].index = index;
    return index;
}

static void rank_threads(grouper *g);

static grouper *new_grouper(const trace *t)
{
    grouper *g = calloc(1, sizeof *g);
    g->t = t;
    for (uint32_t i = 0; i < GROUP_CACHE; i++)
        g->cache[i].key.kind = UINT32_MAX; /* empty */
    rank_threads(g);
    return g;
}

static void free_grouper(grouper *g)
{
    group_entry *e, *tmp;
    HASH_ITER(hh, g->table, e, tmp) {
        HASH_DEL(g->table, e);
        free(e);
    }
    free(g->g);
    free(g->thread_rank);
    free(g);
}

static int by_name(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    return strcmp(t->strings[t->threads[*(const uint32_t *)x].name],
                  t->strings[t->threads[*(const uint32_t *)y].name]);
}

static void rank_threads(grouper *g)
{
    const trace *t = g->t;
    uint32_t *order = malloc(sizeof(uint32_t) * (t->n_threads + 1));
    g->thread_rank = malloc(sizeof(uint32_t) * (t->n_threads + 1));
    for (uint32_t i = 0; i < t->n_threads; i++)
        order[i] = i;
    qsort_r(order, t->n_threads, sizeof *order, by_name, (void *)t);
    for (uint32_t i = 0; i < t->n_threads; i++)
        g->thread_rank[order[i]] = i;
    free(order);
}

/* Orders events by (thread name, position in the thread's input): the same
 * whatever the file layout or the order of files on the command line. */
static int cmp_events(const grouper *g, uint32_t a, uint32_t b)
{
    const event *x = &g->t->events[a], *y = &g->t->events[b];
    if (x->thread != y->thread)
        return g->thread_rank[x->thread] < g->thread_rank[y->thread] ? -1 : 1;
    return x->input_index < y->input_index ? -1
         : x->input_index > y->input_index;
}

/* Offers an instance of group gi to show: the least racing instance, or
 * the least undecided one while none races, so the report never depends
 * on the order instances are found in. */
static void offer_instance(grouper *g, uint32_t gi, uint32_t a, uint32_t b,
                           uint32_t ra, uint32_t rb, int races)
{
    group_state *gs = &g->g[gi];
    uint32_t la = loc_id(g->t, a), lb = loc_id(g->t, b);
    uint32_t first_loc = gs->lo_first ? gs->key.lo : gs->key.hi;
    int swap = la != lb ? la != first_loc : cmp_events(g, a, b) > 0;
    uint32_t inst[4] = {swap ? b : a, swap ? a : b, swap ? rb : ra,
                        swap ? ra : rb};
    int n = gs->key.kind == RACE_MESSAGE ? 4 : 2;
    int less = !gs->has_instance || (races && !gs->instance_races);
    if (!races && gs->instance_races)
        return;
    for (int i = 0; i < n && !less; i++) {
        int d = cmp_events(g, inst[i], gs->inst[i]);
        if (d) {
            less = d < 0;
            break;
        }
    }
    if (less) {
        memcpy(gs->inst, inst, sizeof inst);
        gs->has_instance = 1;
        gs->instance_races = (uint8_t)races;
    }
}

static void count_instance(grouper *g, uint32_t gi, uint32_t a, uint32_t b,
                           uint32_t ra, uint32_t rb)
{
    offer_instance(g, gi, a, b, ra, rb, 1);
    g->g[gi].count++;
}

static char *copy_str(const char *s)
{
    return s ? strdup(s) : NULL;
}

static event_ref ref_of(const trace *t, uint32_t e)
{
    char buf[64];
    const event *ev = &t->events[e];
    return (event_ref){
        .thread = copy_str(t->strings[t->threads[ev->thread].name]),
        .location = copy_str(event_location(t, e, buf, sizeof buf)),
        .file = copy_str(t->files[ev->file]), .line = ev->line,
        .type = event_kind_name(ev->kind)};
}

/* The printable group of a counted one. */
static race_group finish_group(const trace *t, const group_state *gs)
{
    race_group rg;
    memset(&rg, 0, sizeof rg);
    rg.kind = (race_kind)gs->key.kind;
    rg.count = gs->count;
    rg.unchecked = gs->unchecked;
    rg.undecided = gs->undecided;
    rg.first = ref_of(t, gs->inst[0]);
    rg.second = ref_of(t, gs->inst[1]);
    rg.locations[0] = copy_str(rg.first.location);
    rg.locations[1] = copy_str(rg.second.location);
    if (rg.kind == RACE_MESSAGE) {
        rg.first_rcv = ref_of(t, gs->inst[2]);
        rg.second_rcv = ref_of(t, gs->inst[3]);
        rg.node = copy_str(t->strings[t->threads[t->events[gs->inst[2]].thread].node]);
    } else {
        const shared_object *o = &t->objects[t->events[gs->inst[0]].object];
        rg.node = copy_str(t->strings[o->node]);
        rg.variable = copy_str(t->strings[o->name]);
    }
    return rg;
}

/* ---- candidates ------------------------------------------------------------- */

typedef struct candidate {
    uint8_t kind;            /* RACE_DATA or RACE_MESSAGE */
    uint8_t dedupable;       /* may be skipped once its group races */
    uint32_t a, b;           /* DATA: the accesses; MESSAGE: r1, r2 */
    uint32_t group;
} candidate;

typedef struct cand_list {
    candidate *c;
    hb_query *q;
    size_t n, cap;
} cand_list;

static void add_candidate(cand_list *l, candidate c, hb_query q)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1024;
        l->c = realloc(l->c, l->cap * sizeof *l->c);
        l->q = realloc(l->q, l->cap * sizeof *l->q);
        if (!l->c || !l->q) {
            fputs("spider: out of memory\n", stderr);
            exit(2);
        }
    }
    l->c[l->n] = c;
    l->q[l->n++] = q;
}

static int by_object(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    int32_t oa = t->events[a].object, ob = t->events[b].object;
    if (oa != ob)
        return oa < ob ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* Accesses a, b to the same object, in different threads, one a write. */
static void data_candidates(const trace *t, const hb_model *m, grouper *g,
                            cand_list *l)
{
    uint32_t *acc = malloc(sizeof(uint32_t) * (t->n_events + 1));
    uint32_t n = 0;
    for (uint32_t e = 0; e < t->n_events; e++)
        if (m->kept[e] && event_is_access(&t->events[e]))
            acc[n++] = e;
    qsort_r(acc, n, sizeof *acc, by_object, (void *)t);
    for (uint32_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && t->events[acc[j]].object == t->events[acc[i]].object;)
            j++;
        for (uint32_t x = i; x < j; x++)
            for (uint32_t y = x + 1; y < j; y++) {
                const event *ex = &t->events[acc[x]], *ey = &t->events[acc[y]];
                if (ex->thread == ey->thread ||
                    (ex->kind != EV_WRITE && ey->kind != EV_WRITE))
                    continue;
                candidate c = {RACE_DATA, 1, acc[x], acc[y],
                               group_of(g, RACE_DATA, acc[x], acc[y])};
                add_candidate(l, c, (hb_query){QUERY_SIMULTANEOUS, acc[x], acc[y]});
            }
    }
    free(acc);
}

static int32_t its_send(const trace *t, const hb_model *m, uint32_t rcv)
{
    const event *r = &t->events[rcv];
    if (r->match == NONE)
        return NONE;
    uint32_t s = t->matches[r->match].sends[0];
    return m->kept[s] ? (int32_t)s : NONE;
}

/* Whether a racing pair of these receives could add handler races: if so,
 * it is never skipped (its handler groups are not known in advance). */
static int has_handler_accesses(const trace *t, const int32_t *handler_of,
                                uint32_t rcv)
{
    return handler_of[rcv] != NONE &&
           t->handlers[handler_of[rcv]].begin != t->handlers[handler_of[rcv]].last;
}

/* RCVs r1 before r2 in one thread: could m2 have been delivered first? */
static void message_candidates(const trace *t, const hb_model *m, grouper *g,
                               const int32_t *handler_of, cand_list *l)
{
    uint32_t *rcvs = malloc(sizeof(uint32_t) * (t->n_events + 1));
    for (uint32_t i = 0; i < t->n_threads; i++) {
        const thread_info *th = &t->threads[i];
        uint32_t n = 0;
        for (uint32_t k = 0; k < th->n_events; k++) {
            uint32_t e = th->events[k];
            if (t->events[e].kind == EV_RCV && m->kept[e] &&
                its_send(t, m, e) != NONE)
                rcvs[n++] = e;
        }
        for (uint32_t x = 0; x < n; x++)
            for (uint32_t y = x + 1; y < n; y++) {
                const event *r1 = &t->events[rcvs[x]], *r2 = &t->events[rcvs[y]];
                int32_t s1 = its_send(t, m, rcvs[x]), s2 = its_send(t, m, rcvs[y]);
                if (s1 == s2)
                    continue;
                if (r1->tcp && r2->tcp && r1->object != NONE &&
                    r1->object == r2->object)
                    continue; /* TCP keeps a channel's order */
                int handlers = has_handler_accesses(t, handler_of, rcvs[x]) &&
                               has_handler_accesses(t, handler_of, rcvs[y]);
                candidate c = {RACE_MESSAGE, !handlers, rcvs[x], rcvs[y],
                               group_of(g, RACE_MESSAGE, (uint32_t)s1, (uint32_t)s2)};
                add_candidate(l, c, (hb_query){QUERY_BEFORE, (uint32_t)s2, rcvs[x]});
            }
    }
    free(rcvs);
}

static int32_t *handlers_by_rcv(const trace *t)
{
    int32_t *h = malloc(sizeof(int32_t) * (t->n_events + 1));
    for (uint32_t e = 0; e < t->n_events; e++)
        h[e] = NONE;
    for (uint32_t i = 0; i < t->n_handlers; i++)
        if (t->handlers[i].rcv != NONE)
            h[t->handlers[i].rcv] = (int32_t)i;
    return h;
}

/* Accesses a ∈ handler(m1), b ∈ handler(m2) to one variable, one a write. */
static void handler_races(grouper *g, const hb_model *m, uint32_t r1,
                          uint32_t r2, const int32_t *handler_of,
                          uint64_t *instances)
{
    const trace *t = g->t;
    if (handler_of[r1] == NONE || handler_of[r2] == NONE)
        return;
    const handler *h1 = &t->handlers[handler_of[r1]];
    const handler *h2 = &t->handlers[handler_of[r2]];
    const thread_info *th = &t->threads[h1->thread];
    for (uint32_t x = t->events[h1->begin].pos; x <= t->events[h1->last].pos; x++) {
        uint32_t a = th->events[x];
        const event *ea = &t->events[a];
        if (!m->kept[a] || !event_is_access(ea))
            continue;
        for (uint32_t y = t->events[h2->begin].pos; y <= t->events[h2->last].pos; y++) {
            uint32_t b = th->events[y];
            const event *eb = &t->events[b];
            if (!m->kept[b] || !event_is_access(eb) || ea->object != eb->object ||
                (ea->kind != EV_WRITE && eb->kind != EV_WRITE))
                continue;
            count_instance(g, group_of(g, RACE_HANDLER, a, b), a, b, 0, 0);
            (*instances)++;
        }
    }
}

/* ---- verdicts --------------------------------------------------------------- */

typedef struct slice_order {
    const hb_query *q;
    const uint32_t *unit;
} slice_order;

static uint32_t query_unit(const slice_order *so, uint32_t i)
{
    uint32_t a = so->unit[so->q[i].a], b = so->unit[so->q[i].b];
    return a > b ? a : b;
}

/* Queries in the order of the prefix of Φ they need (encode_slice.c). */
static int by_slice(const void *x, const void *y, void *ctx)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    uint32_t ua = query_unit(ctx, a), ub = query_unit(ctx, b);
    if (ua != ub)
        return ua < ub ? -1 : 1;
    return a < b ? -1 : a > b;
}

static int by_group(const void *x, const void *y, void *ctx)
{
    const candidate *c = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    if (c[a].group != c[b].group)
        return c[a].group < c[b].group ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* Sends what the shortcuts left undecided to Z3.  Unless every instance
 * is wanted, a candidate whose group already races is not asked, and the
 * rest of a group stop at their first race. */
static int ask_solver(const hb_model *m, const cand_list *l, hb_answer *answers,
                      const analysis_options *opts, uint32_t n_groups)
{
    uint8_t *racing = calloc(n_groups + 1, 1);
    int dedup = opts->solver == SOLVER_AUTO && !opts->all_instances;
    for (size_t i = 0; i < l->n; i++)
        if (answers[i] == ANSWER_SAT)
            racing[l->c[i].group] = 1;
    uint32_t *order = malloc(sizeof(uint32_t) * (l->n + 1));
    uint32_t n = 0, n_grouped = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (answers[i] != ANSWER_UNKNOWN)
            continue;
        if (dedup && l->c[i].dedupable && racing[l->c[i].group])
            answers[i] = ANSWER_NOT_ASKED;
        else
            order[n++] = (uint32_t)i;
    }
    /* dedupable ones first, sorted by group, then the rest one by one */
    if (dedup) {
        uint32_t *sorted = malloc(sizeof(uint32_t) * (n + 1)), k = 0;
        for (uint32_t i = 0; i < n; i++)
            if (l->c[order[i]].dedupable)
                sorted[k++] = order[i];
        n_grouped = k;
        for (uint32_t i = 0; i < n; i++)
            if (!l->c[order[i]].dedupable)
                sorted[k++] = order[i];
        free(order);
        order = sorted;
        qsort_r(order, n_grouped, sizeof *order, by_group, l->c);
    }
    if (n == 0) { /* the shortcuts decided everything */
        free(order);
        free(racing);
        return 0;
    }
    uint32_t *slices = hb_model_slices(m);
    slice_order so = {l->q, slices};
    qsort_r(order + n_grouped, n - n_grouped, sizeof *order, by_slice, &so);
    uint32_t *unit_start = malloc(sizeof(uint32_t) * (n + 2));
    uint8_t *stop = malloc(n + 1);
    uint32_t units = 0;
    for (uint32_t i = 0; i < n; i++) {
        int same = i > 0 && i < n_grouped &&
                   l->c[order[i]].group == l->c[order[i - 1]].group;
        if (!same) {
            stop[units] = i < n_grouped;
            unit_start[units++] = i;
        }
    }
    unit_start[units] = n;
    solve_work w = {.queries = l->q, .order = order, .unit_start = unit_start,
                    .n_units = units, .stop_at_sat = stop, .slices = slices,
                    .stop = opts->stop};
    int rc = solve_all(m, &w, answers, opts->jobs, opts->tuning, opts->timeout_ms);
    free(order);
    free(unit_start);
    free(stop);
    free(racing);
    free(slices);
    return rc;
}

static int cmp_groups(const void *x, const void *y)
{
    const race_group *a = x, *b = y;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    int c = strcmp(a->locations[0], b->locations[0]);
    return c ? c : strcmp(a->locations[1], b->locations[1]);
}

static void build_groups(report *r, const trace *t, const hb_model *m,
                         grouper *g, const cand_list *l,
                         const hb_answer *answers, const int32_t *handler_of)
{
    report_summary *s = &r->summary;
    for (size_t i = 0; i < l->n; i++) {
        const candidate *c = &l->c[i];
        if (answers[i] == ANSWER_UNKNOWN) {
            s->undecided++;
            g->g[c->group].undecided++;
            if (c->kind == RACE_DATA)
                offer_instance(g, c->group, c->a, c->b, 0, 0, 0);
            else
                offer_instance(g, c->group,
                               t->matches[t->events[c->a].match].sends[0],
                               t->matches[t->events[c->b].match].sends[0],
                               c->a, c->b, 0);
        }
        if (answers[i] == ANSWER_NOT_ASKED) {
            s->not_asked++;
            g->g[c->group].unchecked++;
        }
        if (answers[i] != ANSWER_SAT)
            continue;
        s->instances[c->kind]++;
        if (c->kind == RACE_DATA) {
            count_instance(g, c->group, c->a, c->b, 0, 0);
            continue;
        }
        uint32_t s1 = t->matches[t->events[c->a].match].sends[0];
        uint32_t s2 = t->matches[t->events[c->b].match].sends[0];
        count_instance(g, c->group, s1, s2, c->a, c->b);
        handler_races(g, m, c->a, c->b, handler_of, &s->instances[RACE_HANDLER]);
    }
    r->groups = calloc(g->n + 1, sizeof *r->groups);
    r->open = calloc(g->n + 1, sizeof *r->open);
    for (uint32_t i = 0; i < g->n; i++) {
        if (g->g[i].count)
            r->groups[r->n_groups++] = finish_group(t, &g->g[i]);
        else if (g->g[i].undecided)
            r->open[r->n_open++] = finish_group(t, &g->g[i]);
    }
    qsort(r->groups, r->n_groups, sizeof *r->groups, cmp_groups);
    qsort(r->open, r->n_open, sizeof *r->open, cmp_groups);
    for (size_t i = 0; i < r->n_groups; i++)
        r->n_by_kind[r->groups[i].kind]++;
}

static void fill_summary(report *r, const trace *t, const hb_model *m,
                         const analysis_options *opts)
{
    report_summary *s = &r->summary;
    s->files = t->n_files;
    s->nodes = t->n_nodes;
    s->threads = t->n_threads;
    s->events = t->n_events;
    s->events_analyzed = m->n_kept;
    memcpy(s->by_kind, t->stats.by_kind, sizeof s->by_kind);
    s->trace = t->stats;
    s->handlers = t->n_handlers;
    s->lock_sections = t->n_sections;
    s->constraints_by_origin = m->counts;
    s->constraints = hb_model_size(m);
    s->handlers_model = opts->handlers;
    s->solver_all = opts->solver == SOLVER_Z3;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "inconsistent trace: ..." naming the events of a contradiction. */
static void explain_inconsistent(const trace *t, const hb_model *m, char *err,
                                 size_t err_len)
{
    uint32_t events[8];
    size_t n = hb_model_explain(m, events, 8);
    int w = snprintf(err, err_len, "inconsistent trace: no run can order "
                     "these events as the trace says (its happens-before "
                     "model is unsatisfiable):");
    for (size_t i = 0; i < n && w > 0 && (size_t)w < err_len; i++) {
        char buf[64];
        const event *e = &t->events[events[i]];
        w += snprintf(err + w, err_len - (size_t)w, "%s %s:%u %s %s",
                      i ? (n > 1 && i + 1 == n && n == 8 ? " ... " : ",") : "",
                      t->files[e->file], e->line, event_kind_name(e->kind),
                      event_location(t, events[i], buf, sizeof buf));
    }
}

static int model_consistent(const trace *t, const hb_model *m,
                            const analysis_options *opts, char *err,
                            size_t err_len)
{
    hb_solver *s = hb_solver_new(m, opts->tuning, 0);
    if (!s) {
        snprintf(err, err_len, "the Z3 solver could not be set up");
        return 0;
    }
    hb_answer a = hb_solver_check_model(s);
    hb_solver_free(s);
    if (a == ANSWER_UNSAT)
        explain_inconsistent(t, m, err, err_len);
    return a != ANSWER_UNSAT;
}

/* Decides every candidate: shortcuts first (unless --solver=z3), then Z3. */
static int decide(const trace *t, const hb_model *m, const cand_list *l,
                  hb_answer *answers, const analysis_options *opts,
                  uint32_t n_groups, report *r, char *err, size_t err_len)
{
    int consistent = -1;
    for (size_t i = 0; i < l->n; i++)
        answers[i] = ANSWER_UNKNOWN;
    if (opts->solver == SOLVER_AUTO) {
        shortcut_stats st = {0};
        consistent = shortcut_decide(t, m, opts->handlers, l->q, l->n,
                                     answers, &st);
        r->summary.by_shortcut_unsat = st.unsat_ordered + st.unsat_locks;
        r->summary.by_shortcut_sat = st.sat_witness;
        if (consistent == 0) {
            explain_inconsistent(t, m, err, err_len);
            return -1;
        }
    }
    if (consistent != 1 && !model_consistent(t, m, opts, err, err_len))
        return -1;
    if (ask_solver(m, l, answers, opts, n_groups) != 0) {
        snprintf(err, err_len, "the Z3 solver failed");
        return -1;
    }
    for (size_t i = 0; i < l->n; i++)
        r->summary.by_z3 += answers[i] != ANSWER_NOT_ASKED;
    r->summary.by_z3 -= r->summary.by_shortcut_sat + r->summary.by_shortcut_unsat;
    return 0;
}

report *analyse(const trace *t, const hb_model *m,
                const analysis_options *opts, char *err, size_t err_len)
{
    report *r = calloc(1, sizeof *r);
    fill_summary(r, t, m, opts);
    grouper *g = new_grouper(t);
    cand_list l = {0};
    int32_t *handler_of = handlers_by_rcv(t);
    data_candidates(t, m, g, &l);
    r->summary.candidates[RACE_DATA] = l.n;
    message_candidates(t, m, g, handler_of, &l);
    r->summary.candidates[RACE_MESSAGE] = l.n - r->summary.candidates[RACE_DATA];
    hb_answer *answers = malloc(sizeof(hb_answer) * (l.n + 1));
    double start = now();
    int rc = decide(t, m, &l, answers, opts, g->n, r, err, err_len);
    r->timings.solve = now() - start;
    r->timings.jobs = opts->jobs;
    r->summary.partial = opts->stop && *opts->stop;
    if (rc == 0)
        build_groups(r, t, m, g, &l, answers, handler_of);
    free(answers);
    free(l.c);
    free(l.q);
    free(handler_of);
    free_grouper(g);
    if (rc != 0) {
        report_free(r);
        return NULL;
    }
    return r;
}
