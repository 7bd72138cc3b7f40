/*
 * analysis.c — candidate generation for data, message and handler races
 * (docs/model.md §4), their verdicts, and grouping into race groups.
 */
#include "spider.h"

#include <string.h>
#include <time.h>
#include <uthash.h>

/* A candidate: the query that decides it and what it is about. */
typedef struct candidate {
    uint8_t kind;            /* RACE_DATA or RACE_MESSAGE */
    uint32_t a, b;           /* DATA: the accesses; MESSAGE: r1, r2 */
} candidate;

typedef struct cand_list {
    candidate *c;
    hb_query *q;
    size_t n, cap;
} cand_list;

static void add_candidate(cand_list *l, race_kind kind, uint32_t a,
                          uint32_t b, hb_query q)
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
    l->c[l->n] = (candidate){(uint8_t)kind, a, b};
    l->q[l->n++] = q;
}

static int conflicting(const event *x, const event *y)
{
    return x->object == y->object && x->thread != y->thread &&
           (x->kind == EV_WRITE || y->kind == EV_WRITE);
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
static void data_candidates(const trace *t, const hb_model *m, cand_list *l)
{
    uint32_t *acc = malloc(sizeof(uint32_t) * (t->n_events + 1));
    uint32_t n = 0;
    for (uint32_t e = 0; e < t->n_events; e++)
        if (m->kept[e] && event_is_access(&t->events[e]))
            acc[n++] = e;
    qsort_r(acc, n, sizeof *acc, by_object, (void *)t);
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        while (j < n && t->events[acc[j]].object == t->events[acc[i]].object)
            j++;
        for (uint32_t x = i; x < j; x++)
            for (uint32_t y = x + 1; y < j; y++)
                if (conflicting(&t->events[acc[x]], &t->events[acc[y]]))
                    add_candidate(l, RACE_DATA, acc[x], acc[y],
                                  (hb_query){QUERY_SIMULTANEOUS, acc[x], acc[y]});
        i = j;
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

/* RCVs r1 before r2 in one thread: could m2 have been delivered first? */
static void message_candidates(const trace *t, const hb_model *m,
                               cand_list *l)
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
                add_candidate(l, RACE_MESSAGE, rcvs[x], rcvs[y],
                              (hb_query){QUERY_BEFORE, (uint32_t)s2, rcvs[x]});
            }
    }
    free(rcvs);
}

/* ---- grouping ------------------------------------------------------------- */

/* A group while instances are counted: event ids, not yet strings. */
typedef struct group_entry {
    char *key;               /* kind, loc1, loc2, each NUL-terminated */
    size_t key_len;
    race_kind kind;
    uint64_t count;
    uint32_t inst[4];        /* first, second (, rcv1, rcv2): the instance */
    UT_hash_handle hh;
} group_entry;

typedef struct grouper {
    const trace *t;
    group_entry *table;
} grouper;

static char *dup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static event_ref ref_of(const trace *t, uint32_t e)
{
    char buf[64];
    const event *ev = &t->events[e];
    return (event_ref){
        .thread = dup(t->strings[t->threads[ev->thread].name]),
        .location = dup(event_location(t, e, buf, sizeof buf)),
        .file = dup(t->files[ev->file]), .line = ev->line,
        .type = event_kind_name(ev->kind)};
}

/* Orders events by (thread name, position in the thread's input): the same
 * whatever the file layout or the order of files on the command line. */
static int cmp_events(const trace *t, uint32_t a, uint32_t b)
{
    const event *x = &t->events[a], *y = &t->events[b];
    if (x->thread != y->thread) {
        int c = strcmp(t->strings[t->threads[x->thread].name],
                       t->strings[t->threads[y->thread].name]);
        if (c)
            return c;
    }
    return x->input_index < y->input_index ? -1
         : x->input_index > y->input_index;
}

static int cmp_instances(const trace *t, const uint32_t *x, const uint32_t *y,
                         int n)
{
    for (int i = 0; i < n; i++) {
        int c = cmp_events(t, x[i], y[i]);
        if (c)
            return c;
    }
    return 0;
}

/* Counts one instance; the group shows its least instance (cmp_instances),
 * so the report never depends on the order instances are found in. */
static void count_instance(grouper *g, race_kind kind, uint32_t a, uint32_t b,
                           uint32_t ra, uint32_t rb)
{
    const trace *t = g->t;
    char la[64], lb[64];
    const char *locs[2] = {event_location(t, a, la, sizeof la),
                           event_location(t, b, lb, sizeof lb)};
    int swap = strcmp(locs[0], locs[1]) > 0;
    if (strcmp(locs[0], locs[1]) == 0 && cmp_events(t, a, b) > 0)
        swap = 1;
    uint32_t inst[4] = {swap ? b : a, swap ? a : b, swap ? rb : ra,
                        swap ? ra : rb};
    int n_inst = kind == RACE_MESSAGE ? 4 : 2;
    size_t l0 = strlen(locs[swap]), l1 = strlen(locs[!swap]);
    size_t key_len = 2 + l0 + 1 + l1 + 1;
    char *key = malloc(key_len);
    key[0] = (char)('0' + kind);
    key[1] = '\0';
    memcpy(key + 2, locs[swap], l0 + 1);
    memcpy(key + 3 + l0, locs[!swap], l1 + 1);
    group_entry *found;
    HASH_FIND(hh, g->table, key, key_len, found);
    if (found) {
        found->count++;
        if (cmp_instances(t, inst, found->inst, n_inst) < 0)
            memcpy(found->inst, inst, sizeof inst);
        free(key);
        return;
    }
    found = calloc(1, sizeof *found);
    found->key = key;
    found->key_len = key_len;
    found->kind = kind;
    found->count = 1;
    memcpy(found->inst, inst, sizeof inst);
    HASH_ADD_KEYPTR(hh, g->table, found->key, found->key_len, found);
}

/* The printable group of a counted one. */
static race_group finish_group(const trace *t, const group_entry *e)
{
    race_group rg;
    memset(&rg, 0, sizeof rg);
    rg.kind = e->kind;
    rg.locations[0] = dup(e->key + 2);
    rg.locations[1] = dup(e->key + 3 + strlen(e->key + 2));
    rg.count = e->count;
    rg.first = ref_of(t, e->inst[0]);
    rg.second = ref_of(t, e->inst[1]);
    if (e->kind == RACE_MESSAGE) {
        rg.first_rcv = ref_of(t, e->inst[2]);
        rg.second_rcv = ref_of(t, e->inst[3]);
        rg.node = dup(t->strings[t->threads[t->events[e->inst[2]].thread].node]);
    } else {
        const shared_object *o = &t->objects[t->events[e->inst[0]].object];
        rg.node = dup(t->strings[o->node]);
        rg.variable = dup(t->strings[o->name]);
    }
    return rg;
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
            count_instance(g, RACE_HANDLER, a, b, 0, 0);
            (*instances)++;
        }
    }
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
                         const cand_list *l, const hb_answer *answers)
{
    grouper g = {.t = t};
    int32_t *handler_of = handlers_by_rcv(t);
    for (size_t i = 0; i < l->n; i++) {
        const candidate *c = &l->c[i];
        if (answers[i] == ANSWER_UNKNOWN)
            r->summary.undecided++;
        if (answers[i] != ANSWER_SAT)
            continue;
        r->summary.instances[c->kind]++;
        if (c->kind == RACE_DATA) {
            count_instance(&g, RACE_DATA, c->a, c->b, 0, 0);
            continue;
        }
        uint32_t s1 = t->matches[t->events[c->a].match].sends[0];
        uint32_t s2 = t->matches[t->events[c->b].match].sends[0];
        count_instance(&g, RACE_MESSAGE, s1, s2, c->a, c->b);
        handler_races(&g, m, c->a, c->b, handler_of,
                      &r->summary.instances[RACE_HANDLER]);
    }
    free(handler_of);
    r->groups = calloc(HASH_COUNT(g.table) + 1, sizeof *r->groups);
    group_entry *e, *tmp;
    HASH_ITER(hh, g.table, e, tmp) {
        r->groups[r->n_groups++] = finish_group(t, e);
        HASH_DEL(g.table, e);
        free(e->key);
        free(e);
    }
    qsort(r->groups, r->n_groups, sizeof *r->groups, cmp_groups);
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
    r->files = malloc(sizeof(char *) * (t->n_files + 1));
    for (uint32_t i = 0; i < t->n_files; i++)
        r->files[i] = strdup(t->files[i]);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int model_consistent(const hb_model *m, const analysis_options *opts,
                            char *err, size_t err_len)
{
    hb_solver *s = hb_solver_new(m, opts->tuning, 0);
    if (!s) {
        snprintf(err, err_len, "the Z3 solver could not be set up");
        return 0;
    }
    hb_answer a = hb_solver_check_model(s);
    hb_solver_free(s);
    if (a == ANSWER_UNSAT)
        snprintf(err, err_len, "inconsistent trace: its happens-before model "
                 "is unsatisfiable (a receive before its send, or a cycle "
                 "through fork/join, messages and locks)");
    return a != ANSWER_UNSAT;
}

report *analyse(const trace *t, const hb_model *m,
                const analysis_options *opts, char *err, size_t err_len)
{
    if (!model_consistent(m, opts, err, err_len))
        return NULL;
    report *r = calloc(1, sizeof *r);
    fill_summary(r, t, m, opts);
    cand_list l = {0};
    data_candidates(t, m, &l);
    r->summary.candidates[RACE_DATA] = l.n;
    message_candidates(t, m, &l);
    r->summary.candidates[RACE_MESSAGE] = l.n - r->summary.candidates[RACE_DATA];
    hb_answer *answers = malloc(sizeof(hb_answer) * (l.n + 1));
    double start = now();
    int rc = solve_all(m, l.q, l.n, answers, opts->jobs, opts->tuning,
                       opts->timeout_ms);
    r->timings.solve = now() - start;
    r->timings.jobs = opts->jobs;
    if (rc == 0)
        build_groups(r, t, m, &l, answers);
    else
        snprintf(err, err_len, "the Z3 solver failed");
    free(answers);
    free(l.c);
    free(l.q);
    if (rc != 0) {
        report_free(r);
        return NULL;
    }
    return r;
}
