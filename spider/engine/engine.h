/*
 * engine.h — the analysis API: what an analysis calls while it generates
 * (engine.c), with the descriptor it fills in (analysis.h) and the
 * happens-before order it may ask (hb_order.h).  An analysis includes
 * this header and no other of the engine's.
 *
 * An analysis (analysis_data.c, analysis_message.c, analysis_atomicity.c,
 * ...) is one `analysis` descriptor in the table of
 * spider/analysis/analyses.c, which hands it to engine_analyse()
 * (engine_analyse.h).  It turns the trace into candidates: each candidate
 * is one dynamic instance (up to GROUP_EVENTS events) that holds when
 * every one of its queries (hb_query: a conjunction or disjunction of
 * difference atoms, encode.h) is satisfiable with Φ.  The engine decides
 * them all the same way (engine_decide.c):
 *
 *   exact shortcuts (engine_shortcut.c: vector clocks over the
 *   unconditional graph U and an observed-order witness graph R,
 *   shortcut_clocks.c over the graphs of shortcut_graph.c, and lock
 *   exclusion), then Z3 for the rest (engine_pool.c: a pool of worker
 *   threads, each with its own Z3 context)
 *
 * and groups the instances that hold by location (engine_group.c),
 * keeping a count and one instance per group.  Nothing in the engine
 * knows a kind of bug.
 *
 * Ownership: the engine owns candidates and groups; an analysis only adds
 * to them through engine_add(), engine_record*() and engine_count().
 * Allocation failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_ENGINE_H
#define SPIDER_ENGINE_H

#include "../spider.h"
#include "analysis.h"
#include "hb_order.h"

/* What an analysis may read while it generates. */
const trace *engine_trace(const engine_run *run);
const hb_model *engine_model(const engine_run *run);
const analysis_options *engine_options(const engine_run *run);

/* Adds a candidate of kind `kind` with events ev (its kind's n_shown of
 * them); the group is found from its located events.  Kind by kind, but
 * from generate_batch in any order of kinds. */
void engine_add(engine_run *run, race_kind kind, const uint32_t *ev,
                uint32_t rank, int dedupable);

/* Makes room for `extra` more candidates at once; if memory runs out,
 * ends the run with `what` ("N candidates on variable x of node n") in the
 * message (util/alloc.h). */
void engine_reserve(engine_run *run, uint64_t extra, const char *what);

/* Orders events by context (thread, by name; then innermost handler,
 * NONE first), then program order: an order that does not depend on the
 * order of files or of events in them. */
int engine_context_cmp(const engine_run *run, uint32_t a, uint32_t b);
/* The kept accesses by variable, then context (engine_context_cmp): the
 * consecutive accesses of a context to a variable are neighbours, and a
 * thread's accesses to a variable form one run.  The caller frees it. */
uint32_t *engine_accesses_by_context(const engine_run *run, uint32_t *n);
/* A thread's place among the threads ordered by name: the order the
 * report's instances are compared in (with the event's input_index). */
uint32_t engine_thread_rank(const engine_run *run, uint32_t thread);
/* The largest l with 2^l <= n (0 for n = 0). */
static inline uint32_t engine_floor_log2(uint64_t n)
{
    uint32_t l = 0;
    while (n >>= 1)
        l++;
    return l;
}
/* The first k in m[from..to) with m[k] >= x (m ascending): from..to. */
static inline uint32_t engine_lower_bound(const uint32_t *m, uint32_t from,
                                          uint32_t to, uint32_t x)
{
    while (from < to) {
        uint32_t mid = from + (to - from) / 2;
        if (m[mid] < x)
            from = mid + 1;
        else
            to = mid;
    }
    return from;
}

/* Sorts the n elements of `size` bytes at base stably by key(element,
 * ctx), every key below `range`: a counting sort, linear (a qsort of
 * millions of racing pairs took seconds).  Allocation failure ends the
 * run. */
void engine_counting_sort(void *base, size_t n, size_t size, uint32_t range,
                          uint32_t (*key)(const void *elem, const void *ctx),
                          const void *ctx);

/* Sorts events ev[0..n) stably by the batch of o their thread's node is
 * in, and returns where each batch starts: batch b is ev[start[b] ..
 * start[b + 1]) (hb_order_n_batches(o) + 1 entries; the caller frees
 * them).  For an analysis whose generate_batch takes a batch's share. */
uint32_t *engine_sort_by_batch(const hb_order *o, uint32_t *ev, uint32_t n);

/* qsort comparator of uint64_t. */
int engine_cmp_u64(const void *a, const void *b);

/* The kept accesses (R, W) in the order of cmp(a, b, trace) (NULL: event
 * order); *n says how many.  The caller frees the array. */
uint32_t *engine_accesses(const engine_run *run,
                          int (*cmp)(const void *, const void *, void *),
                          uint32_t *n);

/* State an analysis keeps from `generate` to `proven`: the engine frees it
 * with free_fn when the run ends. */
void engine_set_state(engine_run *run, race_kind kind, void *state,
                      void (*free_fn)(void *));
void *engine_state(const engine_run *run, race_kind kind);

/* Counts n candidates of `kind` that the analysis found UNSAT by U alone
 * (hb_order) and did not add. */
void engine_count_unsat(engine_run *run, race_kind kind, uint64_t n);

/* For an analysis that decides candidates itself (hb_order, below): the
 * group of an instance; whether the run lets it leave out candidates of
 * a group that holds at a rank no higher than theirs (not --all-instances
 * nor --solver=z3); a candidate decided SAT or UNSAT; n candidates of such
 * a group left out.  What it leaves out must not depend on the order of
 * files or events (decide in an order of names and positions). */
uint32_t engine_group(engine_run *run, race_kind kind, const uint32_t *ev);
int engine_may_skip(const engine_run *run);
/* Whether the run leaves out dedupable candidates of `group` at `rank`:
 * engine_may_skip() and the group already holds at a rank no higher.  An
 * analysis may count such a candidate unchecked (engine_record_unchecked)
 * instead of adding it only when the shortcuts could not decide it (else
 * they would count it decided): what Z3 alone would be asked. */
int engine_skips(const engine_run *run, uint32_t group, uint32_t rank);
void engine_record(engine_run *run, race_kind kind, uint32_t group,
                   const uint32_t *ev, uint32_t rank, hb_answer verdict);
void engine_record_unchecked(engine_run *run, race_kind kind, uint32_t group,
                             uint64_t n);
/* n candidates (n > 0) of one group that the shortcuts decided SAT, ev
 * the least of them (the group shows its least instance): as n calls of
 * engine_record(), for an analysis that counts over intervals. */
void engine_record_sat(engine_run *run, race_kind kind, uint32_t group,
                       const uint32_t *ev, uint32_t rank, uint64_t n);

/* What generate_batch learns beside candidates and counts, for the
 * analysis's own state: calls its `note` with v (message races: the
 * racing handlers of a run of receives).  Through the engine, so that a
 * run split over ranks replays it in batch order (engine_log.h). */
void engine_note(engine_run *run, race_kind kind, const uint32_t v[3]);

/* Whether SIGINT/SIGTERM asked the run to stop: a long loop of an
 * analysis checks it and stops (the report is then partial). */
int engine_stopped(const engine_run *run);

/* Counts an instance that holds without a query (handler races); n of
 * one group at once, ev the least of them (the group shows its least). */
void engine_count(engine_run *run, race_kind kind, const uint32_t *ev,
                  uint64_t n);

/* The run's hb_order, made when first asked for (the analyses share its
 * sweeps); NULL with --solver=z3 (nothing is decided while generating) or
 * when U has a cycle.  The engine frees it. */
hb_order *engine_order(engine_run *run);

#endif
