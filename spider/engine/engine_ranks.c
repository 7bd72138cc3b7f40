/*
 * engine_ranks.c — generate_batch split over ranks, replayed on rank 0
 * in batch order (engine_ranks.h).
 */
#include "engine_ranks.h"
#include "engine_log.h"

#include <string.h>

/* Every enabled analysis's candidates of batch b. */
static void generate_batch(engine_run *run, hb_order *o, uint32_t b)
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
    uint64_t *key = xcalloc((size_t)n_batches + 1, sizeof *key);
    for (uint32_t i = 0; i < t->n_threads; i++)
        key[hb_order_batch(o, i)] += (uint64_t)t->threads[i].n_events << 32;
    /* largest first; of equal sizes the first batch first */
    for (uint32_t b = 0; b < n_batches; b++)
        key[b] = (key[b] | (UINT32_MAX - b));
    qsort(key, n_batches, sizeof *key, engine_cmp_u64);
    uint64_t *load = xcalloc(n_ranks, sizeof *load);
    for (uint32_t i = n_batches; i-- > 0;) {
        uint32_t b = UINT32_MAX - (uint32_t)key[i];
        unsigned least = 0;
        for (unsigned r = 1; r < n_ranks; r++)
            if (load[r] < load[least])
                least = r;
        owner[b] = least;
        load[least] += key[i] >> 32;
    }
    free(load);
    free(key);
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
            generate_batch(run, o, b);
        return 0;
    }
    uint32_t *owner = xmalloc_array((size_t)n_batches + 1, sizeof *owner);
    engine_ranks_deal(o, c->size, owner);
    batch_log *log = engine_log_new(run->g);
    run->log = log;
    for (uint32_t b = 0; b < n_batches && !engine_stopped(run); b++)
        if (owner[b] == c->rank) {
            engine_log_batch(log, b);
            generate_batch(run, o, b);
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
