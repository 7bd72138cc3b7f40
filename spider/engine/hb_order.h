/*
 * hb_order.h — the happens-before order as the analyses read it while
 * they generate (hb_order.c): the exact shortcuts of engine_shortcut.h
 * batch by batch, and U's and R's reachability for counting over
 * intervals of chains.  Part of the analysis API (engine.h).
 *
 * Ownership: an hb_order borrows the trace and the model until freed;
 * answers are the caller's.  Allocation failure ends the run
 * (util/alloc.h).
 */
#ifndef SPIDER_HB_ORDER_H
#define SPIDER_HB_ORDER_H

#include "engine_shortcut.h"

/* The shortcuts for one batch of nodes at a time, for an analysis whose
 * candidates are too many to store (a product): it decides each as it
 * makes it and stores only what Z3 must decide.  Also U's reachability
 * between kept accesses, to leave out what U alone makes UNSAT (exact;
 * --solver=z3 leaves nothing out, so that `make check` compares). */
typedef struct hb_order hb_order;

/* Batches of whole nodes, of at most batch_chains chains each (0: 128;
 * --batch-chains).  NULL when U has a cycle or the WAITs cannot all be matched
 * (hb_wait_matching(), tried where the observed order is no run): Φ is
 * then unsatisfiable and the engine says so.  With threads >= 2, U and R are built side by side and the next
 * batches are swept ahead on a second thread while the analyses read the
 * focused one (a thread that cannot be made: all on the caller's).
 * Allocation failure ends the run. */
hb_order *hb_order_new(const trace *t, const hb_model *m, unsigned threads,
                       unsigned batch_chains);
/* hb_order_new() for a rank's share of a split run: over its own events
 * and the other ranks' sync events (shortcut_setup_share(),
 * shortcut_graph.h), so that U's answers about own events are the whole
 * trace's.  R is U or no witness: a share knows only its own nodes'
 * choices.  NULL as hb_order_new(), when this rank sees U's cycle.
 * `outside` is taken: freed (hb_outside_free()) as soon as U is built
 * from it, for it is large; `foreign` is borrowed. */
hb_order *hb_order_new_share(const trace *t, const hb_model *m,
                             unsigned threads, unsigned batch_chains,
                             const uint8_t *foreign, hb_outside *outside);
/* The trace it was made for. */
const trace *hb_order_trace(const hb_order *o);
/* The batch holding the node of a thread; how many batches there are. */
uint32_t hb_order_batch(const hb_order *o, uint32_t thread);
uint32_t hb_order_n_batches(const hb_order *o);
/* The first batches, of the nodes whose candidates are the run's: all
 * of them but of a share (hb_order_new_share()). */
uint32_t hb_order_n_own_batches(const hb_order *o);
/* Makes `batch` the one the calls below answer for (sweeps of U and R).
 * Returns 0 when the batch has too many chains (SHORTCUT_MAX_CELLS,
 * shortcut_graph.h) or is not own (hb_order_n_own_batches()): ask
 * nothing then. */
int hb_order_focus(hb_order *o, uint32_t batch);
/* shortcut_decide() on o's graphs, without building them again (the
 * candidates' queries, once made).  Leaves no batch focused. */
int hb_order_decide_all(hb_order *o, const query_list *q, hb_answer *answers,
                        shortcut_stats *st);
/* Does kept event x reach kept access y in U (x ≠ y, both of the focused
 * batch)? */
int hb_order_before(const hb_order *o, uint32_t x, uint32_t y);
/* The shortcuts' answer to a query over accesses of the focused batch:
 * SAT, UNSAT, or UNKNOWN (Z3 must decide), counted in st. */
hb_answer hb_order_decide(const hb_order *o, const hb_query *q,
                          shortcut_stats *st);
/* For counting over intervals of chains (analysis_data.c): where kept
 * event e lies, its chain (numbered by shortcut_setup(),
 * shortcut_graph.c) and position in
 * it, program order along the chain. */
uint32_t hb_order_chain(const hb_order *o, uint32_t e);
uint32_t hb_order_pos(const hb_order *o, uint32_t e);
/* The last position on chain c of an event that reaches y in U (resolved
 * 0) or R (resolved 1), or -1 when none does: every event of c up to it
 * reaches y, none after it (on y's own chain: y's position).  c must be a
 * chain of the focused batch, y an access or section end of the batch or
 * the send a receive of the batch matches.  With resolved 1 only when
 * hb_order_witness(). */
int32_t hb_order_last_reaching(const hb_order *o, int resolved, uint32_t y,
                               uint32_t c);
/* Both at once: *in_u in U and, when hb_order_witness(), *in_r in R (else
 * -1); where R is U, y is looked up once. */
void hb_order_last_reaching_both(const hb_order *o, uint32_t y, uint32_t c,
                                 int32_t *in_u, int32_t *in_r);
/* hb_order_last_reaching_both for each of ys[0..n), into in_u[i] and
 * in_r[i]: the same answers, with the cache misses of the lookups (about
 * five dependent ones each, in arrays as large as the trace) issued
 * ahead and overlapped. */
void hb_order_last_reaching_many(const hb_order *o, const uint32_t *ys,
                                 uint32_t n, uint32_t c, int32_t *in_u,
                                 int32_t *in_r);
/* Whether R is a witness of Φ (acyclic): then events unordered in R can
 * happen at once. */
int hb_order_witness(const hb_order *o);
/* Whether R has U's edges only: then R's answers are U's. */
int hb_order_r_is_u(const hb_order *o);
/* The locks of the sections of access a's thread that hold a by U (what
 * lock exclusion reads), sorted, each once, into out (room for
 * hb_order_max_locks(o, a)); returns how many.  Two accesses of
 * different threads of the focused batch are excluded by locks exactly
 * when their lists meet. */
uint32_t hb_order_max_locks(const hb_order *o, uint32_t a);
uint32_t hb_order_locks(const hb_order *o, uint32_t a, uint32_t *out);
/* The locks of the sections of a's thread that hold both a and k (a
 * later access of the thread) by U, sorted, each once, into out (room
 * for hb_order_max_locks(o, a)); returns how many.  An access b of
 * another thread can fall between a and k exactly when none of its
 * locks (hb_order_locks) is one of them, as far as locks go. */
uint32_t hb_order_locks_both(const hb_order *o, uint32_t a, uint32_t k,
                             uint32_t *out);
void hb_order_free(hb_order *o);

#endif
