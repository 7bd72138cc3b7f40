/*
 * engine_log.c — a rank's share of generate_batch as a log of engine
 * calls (engine_log.h).  An entry is a header word (op | kind << 8) and
 * its fields, counts as two words (low, high).
 */
#include "engine_log.h"

#include <string.h>

batch_log *engine_log_new(const grouper *run_groups)
{
    batch_log *log = xcalloc(1, sizeof *log);
    log->run_groups = run_groups;
    log->groups = grouper_new(run_groups->t, run_groups->analyses);
    return log;
}

void engine_log_free(batch_log *log)
{
    if (!log)
        return;
    grouper_free(log->groups);
    free(log->w);
    free(log);
}

static void put(batch_log *log, uint32_t word)
{
    ALLOC_GROW(log->w, log->n + 1, log->cap);
    log->w[log->n++] = word;
}

static void put_header(batch_log *log, log_op op, race_kind kind)
{
    put(log, (uint32_t)op | (uint32_t)kind << 8);
}

static void put_count(batch_log *log, uint64_t n)
{
    put(log, (uint32_t)n);
    put(log, (uint32_t)(n >> 32));
}

static void put_events(batch_log *log, race_kind kind, const uint32_t *ev)
{
    for (uint32_t i = 0; i < log->groups->analyses[kind]->n_shown; i++)
        put(log, ev[i]);
}

void engine_log_batch(batch_log *log, uint32_t batch)
{
    put_header(log, LOG_BATCH, 0);
    put(log, batch);
}

void engine_log_add(batch_log *log, race_kind kind, const uint32_t *ev,
                    uint32_t rank, int dedupable)
{
    put_header(log, LOG_ADD, kind);
    put_events(log, kind, ev);
    put(log, rank);
    put(log, (uint32_t)dedupable);
}

uint32_t engine_log_group(batch_log *log, race_kind kind, const uint32_t *ev)
{
    uint32_t before = log->groups->n;
    uint32_t group = grouper_group_of(log->groups, log->groups->analyses[kind], ev);
    if (log->groups->n != before) { /* new: numbered in the order met */
        put_header(log, LOG_GROUP, kind);
        put_events(log, kind, ev);
    }
    return group;
}

static int holds_by(const group_state *gs, uint32_t rank)
{
    return gs->count && gs->instance_holds && gs->inst_rank <= rank;
}

int engine_log_holds(const batch_log *log, uint32_t group, uint32_t rank)
{
    const group_state *gs = &log->groups->g[group];
    if (holds_by(gs, rank))
        return 1;
    uint32_t in_run = grouper_find(log->run_groups, &gs->key);
    return in_run != UINT32_MAX && holds_by(&log->run_groups->g[in_run], rank);
}

void engine_log_sat(batch_log *log, race_kind kind, uint32_t group,
                    const uint32_t *ev, uint32_t rank, uint64_t n)
{
    put_header(log, LOG_SAT, kind);
    put(log, group);
    put_events(log, kind, ev);
    put(log, rank);
    put_count(log, n);
    grouper_offer(log->groups, group, ev, rank, 1);
    log->groups->g[group].count += n;
}

void engine_log_unchecked(batch_log *log, race_kind kind, uint32_t group,
                          uint64_t n)
{
    put_header(log, LOG_UNCHECKED, kind);
    put(log, group);
    put_count(log, n);
}

void engine_log_unsat(batch_log *log, race_kind kind, uint64_t n)
{
    put_header(log, LOG_UNSAT, kind);
    put_count(log, n);
}

void engine_log_count(batch_log *log, race_kind kind, const uint32_t *ev,
                      uint64_t n)
{
    put_header(log, LOG_COUNT, kind);
    put_events(log, kind, ev);
    put_count(log, n);
}

void engine_log_note(batch_log *log, race_kind kind, const uint32_t v[3])
{
    put_header(log, LOG_NOTE, kind);
    for (int i = 0; i < 3; i++)
        put(log, v[i]);
}

/* ---- reading ---------------------------------------------------------------- */

typedef struct reader {
    const uint32_t *w;
    size_t n, at;
    int short_read;
} reader;

static uint32_t get(reader *rd)
{
    if (rd->at >= rd->n) {
        rd->short_read = 1;
        return 0;
    }
    return rd->w[rd->at++];
}

static uint64_t get_count(reader *rd)
{
    uint64_t lo = get(rd);
    return lo | (uint64_t)get(rd) << 32;
}

static void get_events(reader *rd, const analysis *a, uint32_t *ev)
{
    for (uint32_t i = 0; i < a->n_shown; i++)
        ev[i] = get(rd);
}

int engine_log_read(const uint32_t *w, size_t n, size_t *at,
                    const analysis *const *analyses, log_entry *e)
{
    reader rd = {w, n, *at, 0};
    memset(e, 0, sizeof *e);
    uint32_t header = get(&rd);
    e->op = (log_op)(header & 0xff);
    e->kind = (race_kind)(header >> 8);
    if (e->kind >= RACE_KINDS)
        return -1;
    const analysis *a = analyses[e->kind];
    switch (e->op) {
    case LOG_BATCH: e->batch = get(&rd); break;
    case LOG_ADD:
        get_events(&rd, a, e->ev);
        e->rank = get(&rd);
        e->dedupable = get(&rd);
        break;
    case LOG_GROUP: get_events(&rd, a, e->ev); break;
    case LOG_SAT:
        e->group = get(&rd);
        get_events(&rd, a, e->ev);
        e->rank = get(&rd);
        e->n = get_count(&rd);
        break;
    case LOG_UNCHECKED:
        e->group = get(&rd);
        e->n = get_count(&rd);
        break;
    case LOG_UNSAT: e->n = get_count(&rd); break;
    case LOG_COUNT:
        get_events(&rd, a, e->ev);
        e->n = get_count(&rd);
        break;
    case LOG_NOTE:
        for (int i = 0; i < 3; i++)
            e->v[i] = get(&rd);
        break;
    default: return -1;
    }
    *at = rd.at;
    return rd.short_read ? -1 : 0;
}
