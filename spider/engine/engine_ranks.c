/*
 * engine_ranks.c — generate_batch split over ranks, replayed on rank 0
 * in batch order, and Z3's units dealt out to the ranks
 * (engine_ranks.h).
 */
#include "engine_ranks.h"
#include "engine_log.h"
#include "engine_pool.h"

#include "../../util/pack.h"

#include <stdatomic.h>
#include <string.h>

void engine_generate_batch(engine_run *run, hb_order *o, uint32_t b)
{
    const report_summary *s = &run->r->summary;
    int focused = hb_order_focus(o, b);
    for (int k = 0; k < RACE_KINDS; k++)
        if (s->enabled[k] && run->g->analyses[k]->generate_batch)
            run->g->analyses[k]->generate_batch(run, b, focused);
}

void engine_ranks_deal(const hb_order *o, unsigned n_ranks, uint32_t *owner)
{
    const trace *t = hb_order_trace(o);
    uint32_t n_batches = hb_order_n_batches(o);
    uint64_t *size = xcalloc((size_t)n_batches + 1, sizeof *size);
    for (uint32_t i = 0; i < t->n_threads; i++)
        size[hb_order_batch(o, i)] += t->threads[i].n_events;
    comm_deal(size, n_batches, n_ranks, owner);
    free(size);
}

/* ---- replaying -------------------------------------------------------------- */

/* Where rank 0 is in one rank's log, and the run's groups by the log's
 * numbers. */
typedef struct cursor {
    const uint32_t *w;
    size_t n, at;
    uint32_t *group;
    size_t n_groups, cap;
} cursor;

static int apply(engine_run *run, cursor *cur, const log_entry *e)
{
    if ((e->op == LOG_SAT || e->op == LOG_UNCHECKED) && e->group >= cur->n_groups)
        return -1;
    switch (e->op) {
    case LOG_ADD:
        engine_add(run, e->kind, e->ev, e->rank, (int)e->dedupable);
        break;
    case LOG_GROUP:
        ALLOC_GROW(cur->group, cur->n_groups + 1, cur->cap);
        cur->group[cur->n_groups++] = engine_group(run, e->kind, e->ev);
        break;
    case LOG_SAT:
        engine_record_sat(run, e->kind, cur->group[e->group], e->ev, e->rank, e->n);
        break;
    case LOG_UNCHECKED:
        engine_record_unchecked(run, e->kind, cur->group[e->group], e->n);
        break;
    case LOG_UNSAT: engine_count_unsat(run, e->kind, e->n); break;
    case LOG_COUNT: engine_count(run, e->kind, e->ev, e->n); break;
    case LOG_NOTE: engine_note(run, e->kind, e->v); break;
    case LOG_BATCH: return -1;
    }
    return 0;
}

/* Batch b of its owner's log, when the owner made it (a rank that was
 * stopped made only its first batches). */
static int replay_batch(engine_run *run, cursor *cur, uint32_t b)
{
    const analysis *const *analyses = run->g->analyses;
    log_entry e;
    size_t at = cur->at;
    if (at >= cur->n)
        return 0;
    if (engine_log_read(cur->w, cur->n, &at, analyses, &e) || e.op != LOG_BATCH)
        return -1;
    if (e.batch != b)
        return e.batch > b ? 0 : -1;
    cur->at = at;
    while (cur->at < cur->n) {
        if (engine_log_read(cur->w, cur->n, &at, analyses, &e))
            return -1;
        if (e.op == LOG_BATCH)
            break;
        cur->at = at;
        if (apply(run, cur, &e))
            return -1;
    }
    return 0;
}

static int replay(engine_run *run, const comm_parts *p, const uint32_t *owner,
                  uint32_t n_batches)
{
    cursor *cur = xcalloc(p->n, sizeof *cur);
    for (unsigned r = 0; r < p->n; r++)
        cur[r] = (cursor){.w = p->data[r], .n = p->len[r] / sizeof(uint32_t)};
    int rc = 0;
    for (uint32_t b = 0; b < n_batches && rc == 0; b++)
        rc = replay_batch(run, &cur[owner[b]], b);
    for (unsigned r = 0; r < p->n; r++)
        free(cur[r].group);
    free(cur);
    return rc;
}

int engine_ranks_generate(engine_run *run, comm *c)
{
    hb_order *o = engine_order(run);
    uint32_t n_batches = hb_order_n_batches(o);
    if (comm_size(c) == 1) {
        for (uint32_t b = 0; b < n_batches && !engine_stopped(run); b++)
            engine_generate_batch(run, o, b);
        return 0;
    }
    uint32_t *owner = xmalloc_array((size_t)n_batches + 1, sizeof *owner);
    engine_ranks_deal(o, c->size, owner);
    batch_log *log = engine_log_new(run->g);
    run->log = log;
    for (uint32_t b = 0; b < n_batches && !engine_stopped(run); b++)
        if (owner[b] == c->rank) {
            engine_log_batch(log, b);
            engine_generate_batch(run, o, b);
        }
    run->log = NULL;
    comm_parts parts;
    memset(&parts, 0, sizeof parts);
    int rc = comm_gather(c, log->w, log->n * sizeof *log->w, &parts);
    engine_log_free(log);
    if (rc == 0 && c->rank == 0)
        rc = replay(run, &parts, owner, n_batches);
    comm_parts_free(&parts);
    free(owner);
    return rc;
}

/* ---- Z3's work over the ranks ------------------------------------------------ */

/* One rank's units as they come over: its candidates' queries, what the
 * shortcuts proved of them (qa[2c + k], the pool's query answers), and
 * the units. */
typedef struct share_cand {
    uint32_t global;                 /* its index on rank 0 */
    uint32_t nq;
    hb_query q[2];
} share_cand;

typedef struct z3_share {
    share_cand *cand;
    uint32_t n, cand_cap;
    hb_answer *qa;
    uint32_t qa_cap;
    uint32_t *unit_start;            /* n_units + 1 */
    uint8_t *stop;
    uint32_t n_units, start_cap, stop_cap;
} z3_share;

static unsigned share_n(const void *ctx, uint32_t c)
{
    return ((const z3_share *)ctx)->cand[c].nq;
}

static hb_query share_get(const void *ctx, uint32_t c, unsigned k)
{
    return ((const z3_share *)ctx)->cand[c].q[k];
}

static size_t share_id(const void *ctx, uint32_t c, unsigned k)
{
    (void)ctx;
    return 2 * (size_t)c + k;
}

/* Every unit of w with its owner: per unit the owner, whether it stops
 * at its first candidate that holds, its candidates; per candidate its
 * index, its queries and their answers so far. */
static void pack_work(const solve_work *w, const hb_answer *qa, unsigned ranks,
                      pack *out)
{
    uint64_t *size = xmalloc_array((size_t)w->n_units + 1, sizeof *size);
    uint32_t *owner = xmalloc_array((size_t)w->n_units + 1, sizeof *owner);
    for (uint32_t u = 0; u < w->n_units; u++)
        size[u] = w->unit_start[u + 1] - w->unit_start[u];
    comm_deal(size, w->n_units, ranks, owner);
    const candidate_queries *cq = &w->queries;
    pack_u32(out, w->n_units);
    for (uint32_t u = 0; u < w->n_units; u++) {
        pack_u32(out, owner[u]);
        pack_u32(out, w->stop_at_sat[u]);
        pack_u32(out, (uint32_t)size[u]);
        for (uint32_t i = w->unit_start[u]; i < w->unit_start[u + 1]; i++) {
            uint32_t c = w->order[i];
            unsigned nq = cq->n(cq->ctx, c);
            pack_u32(out, c);
            pack_u32(out, nq);
            for (unsigned k = 0; k < nq; k++) {
                hb_query q = cq->get(cq->ctx, c, k);
                int32_t a = qa[cq->id(cq->ctx, c, k)];
                pack_put(out, &q, sizeof q);
                pack_put(out, &a, sizeof a);
            }
        }
    }
    free(owner);
    free(size);
}

static void share_free(z3_share *s)
{
    free(s->cand);
    free(s->qa);
    free(s->unit_start);
    free(s->stop);
    memset(s, 0, sizeof *s);
}

/* This rank's units of the packed work.  0, or -1 (and nothing) when it
 * is cut short or names more than two queries a candidate. */
static int share_of(const void *data, size_t len, unsigned rank, z3_share *s)
{
    unpack u = unpack_of(data, len);
    memset(s, 0, sizeof *s);
    uint32_t units = unpack_u32(&u);
    for (uint32_t i = 0; i < units && !u.bad; i++) {
        uint32_t owner = unpack_u32(&u), stop = unpack_u32(&u);
        uint32_t n = unpack_u32(&u);
        int mine = owner == rank;
        if (mine) {
            ALLOC_GROW(s->unit_start, s->n_units + 2, s->start_cap);
            ALLOC_GROW(s->stop, s->n_units + 1, s->stop_cap);
            s->stop[s->n_units] = (uint8_t)stop;
            s->unit_start[s->n_units++] = s->n;
        }
        for (uint32_t j = 0; j < n && !u.bad; j++) {
            share_cand c = {.global = unpack_u32(&u), .nq = unpack_u32(&u)};
            int32_t a[2];
            if (c.nq > 2)
                u.bad = 1;
            for (unsigned k = 0; k < c.nq && !u.bad; k++) {
                unpack_get(&u, &c.q[k], sizeof c.q[k]);
                unpack_get(&u, &a[k], sizeof a[k]);
            }
            if (!mine || u.bad)
                continue;
            ALLOC_GROW(s->cand, s->n + 1, s->cand_cap);
            ALLOC_GROW(s->qa, 2 * s->n + 2, s->qa_cap);
            for (unsigned k = 0; k < c.nq; k++)
                s->qa[2 * s->n + k] = (hb_answer)a[k];
            s->cand[s->n++] = c;
        }
    }
    if (s->unit_start)
        s->unit_start[s->n_units] = s->n;
    if (!u.bad)
        return 0;
    share_free(s);
    return -1;
}

/* Decides this rank's share with its pool; the verdicts into *verdict
 * (the caller frees it).  solve_all()'s status. */
static int solve_share(const engine_run *run, z3_share *s, const uint32_t *slices,
                       hb_solver *premade, hb_solver_options so,
                       hb_answer **verdict, char *err, size_t err_len)
{
    *verdict = xmalloc_array((size_t)s->n + 1, sizeof **verdict);
    uint32_t *order = xmalloc_array((size_t)s->n + 1, sizeof *order);
    for (uint32_t c = 0; c < s->n; c++) {
        (*verdict)[c] = ANSWER_UNKNOWN;
        order[c] = c;
    }
    solve_work w = {.queries = {share_n, share_get, share_id, s},
                    .progress = run->o->progress, .order = order, .unit_start = s->unit_start,
                    .n_units = s->n_units, .stop_at_sat = s->stop,
                    .slices = slices, .may_leave = run->o->abandoned != NULL,
                    .premade = premade};
    int rc = 0;
    if (s->n_units)
        rc = solve_all(run->m, &w, s->qa, *verdict, run->o->jobs, so, err,
                       err_len);
    else
        hb_solver_free(premade); /* solve_all() would have owned it */
    if (rc == 1) /* a worker left in Z3 may read the order: it stays */
        return rc;
    free(order);
    return rc;
}

/* What a rank sends back: its status, message and verdicts. */
static void pack_verdicts(int rc, const char *err, const z3_share *s,
                          const hb_answer *verdict, pack *out)
{
    pack_u32(out, (uint32_t)rc);
    pack_text(out, err, strlen(err));
    pack_u32(out, s->n);
    for (uint32_t c = 0; c < s->n; c++) {
        int32_t v = verdict[c];
        pack_u32(out, s->cand[c].global);
        pack_put(out, &v, sizeof v);
    }
}

/* Rank 0: every rank's verdicts into verdict.  The first failure's
 * message (by rank) into err: -1; else 0. */
static int apply_verdicts(const comm_parts *p, hb_answer *verdict,
                          size_t n_candidates, run_progress *progress,
                          char *err, size_t err_len)
{
    for (unsigned r = 1; r < p->n; r++) { /* rank 0's are in already */
        unpack u = unpack_of(p->data[r], p->len[r]);
        int rc = (int)unpack_u32(&u);
        size_t len;
        const char *msg = unpack_text(&u, &len);
        if (rc == -1) {
            snprintf(err, err_len, "%s", msg);
            return -1;
        }
        uint32_t n = unpack_u32(&u), decided = 0;
        for (uint32_t i = 0; i < n && !u.bad; i++) {
            uint32_t c = unpack_u32(&u);
            int32_t v;
            unpack_get(&u, &v, sizeof v);
            if (c >= n_candidates)
                u.bad = 1;
            else
                verdict[c] = (hb_answer)v;
            decided += v != ANSWER_UNKNOWN;
        }
        if (u.bad) {
            snprintf(err, err_len, "internal: rank %u's verdicts came cut "
                     "short", r);
            return -1;
        }
        if (progress)
            atomic_fetch_add(&progress->done, decided);
    }
    return 0;
}

static int ranks_lost(char *err, size_t err_len)
{
    snprintf(err, err_len, "the ranks of the job lost each other (a "
             "collective operation failed)");
    return -1;
}

/* Rank 0's broadcast of the work: its size, then its bytes. */
static int broadcast_work(comm *c, pack *work)
{
    uint64_t len = work->n;
    if (comm_broadcast(c, &len, sizeof len) != 0)
        return -1;
    return len ? comm_broadcast(c, work->data, work->n) : 0;
}

int engine_ranks_solve(engine_run *run, const solve_work *w,
                       hb_answer *query_answers, hb_answer *verdict,
                       hb_solver_options so, char *err, size_t err_len)
{
    comm *c = run->comm;
    if (!c)
        return solve_all(run->m, w, query_answers, verdict, run->o->jobs, so,
                         err, err_len);
    run->z3_shared = 1;
    pack work = {0}, back = {0};
    pack_work(w, query_answers, comm_size(c), &work);
    z3_share s;
    int rc = broadcast_work(c, &work) != 0 ? ranks_lost(err, err_len)
             : share_of(work.data, work.n, 0, &s) != 0
                 ? ranks_lost(err, err_len) : 0;
    free(work.data);
    if (rc != 0) {
        hb_solver_free(w->premade);
        return rc;
    }
    hb_answer *mine;
    rc = solve_share(run, &s, w->slices, w->premade, so, &mine, err, err_len);
    for (uint32_t i = 0; i < s.n; i++)
        verdict[s.cand[i].global] = mine[i];
    pack_verdicts(rc, "", &s, mine, &back);
    comm_parts parts;
    memset(&parts, 0, sizeof parts);
    if (comm_gather(c, back.data, back.n, &parts) != 0)
        rc = ranks_lost(err, err_len);
    else if (rc != -1 &&
             apply_verdicts(&parts, verdict, run->n, run->o->progress, err,
                            err_len) != 0)
        rc = -1;
    comm_parts_free(&parts);
    free(back.data);
    if (rc != 1) { /* else a worker left in Z3 may read them */
        free(mine);
        share_free(&s);
    }
    return rc;
}

void engine_ranks_release(engine_run *run)
{
    if (!run->comm || run->z3_shared)
        return;
    run->z3_shared = 1;
    pack none = {0};
    broadcast_work(run->comm, &none); /* a failure: rank 0 has said one */
}

int engine_ranks_serve(engine_run *run, hb_solver_options so)
{
    comm *c = run->comm;
    uint64_t len = 0;
    if (!c || comm_broadcast(c, &len, sizeof len) != 0)
        return -1;
    if (len == 0)
        return 0;
    char *data = xmalloc(len);
    if (comm_broadcast(c, data, len) != 0) {
        free(data);
        return -1;
    }
    z3_share s;
    char err[512] = "";
    int rc = share_of(data, len, comm_rank(c), &s);
    free(data);
    uint32_t *slices = NULL;
    hb_answer *verdict = NULL;
    if (rc == 0 && s.n_units) {
        hb_model_add_waits(run->m, run->t, run->o->stop); /* as rank 0 did */
        if (run->m->incomplete) /* stopped while making them: Φ lacks some
                                   clauses, so nothing is asked (as on rank 0) */
            s.n_units = 0;
        else
            slices = hb_model_slices(run->m);
    }
    if (rc == 0)
        rc = solve_share(run, &s, slices, NULL, so, &verdict, err, sizeof err);
    else
        snprintf(err, sizeof err, "internal: rank %u's Z3 work came cut "
                 "short", comm_rank(c));
    pack back = {0};
    pack_verdicts(rc, err, &s, verdict, &back);
    comm_parts none;
    memset(&none, 0, sizeof none);
    int sent = comm_gather(c, back.data, back.n, &none);
    free(back.data);
    if (rc == 1)
        return 1; /* workers left in Z3 read the slices and the share */
    free(slices);
    free(verdict);
    share_free(&s);
    return sent == 0 ? 0 : -1;
}
