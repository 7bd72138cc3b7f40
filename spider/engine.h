/*
 * engine.h — the decision engine, and how an analysis plugs into it.
 *
 * An analysis (analysis_data.c, analysis_message.c, analysis_atomicity.c)
 * is one `analysis` descriptor in the table of engine.c.  It turns the
 * trace into candidates: each candidate is one dynamic instance (up to
 * GROUP_EVENTS events) that holds when every one of its queries (hb_query:
 * a conjunction or disjunction of difference atoms, encode.h) is
 * satisfiable with Φ.  The engine decides them all the same way:
 *
 *   exact shortcuts (engine_shortcut.c: vector clocks over the
 *   unconditional graph U and an observed-order witness graph R, and lock
 *   exclusion), then Z3 for the rest (engine_pool.c: a pool of worker
 *   threads, each with its own Z3 context)
 *
 * and groups the instances that hold by location (engine.c), keeping a
 * count and one instance per group.  Nothing in the engine knows a kind of
 * bug.
 *
 * Ownership: the engine owns candidates and groups; an analysis only adds
 * to them through engine_add(), engine_record*() and engine_count().
 * Allocation failure
 * ends the run (util/alloc.h).
 */
#ifndef SPIDER_ENGINE_H
#define SPIDER_ENGINE_H

#include "spider.h"

/* One dynamic instance to decide. */
typedef struct candidate {
    uint32_t ev[GROUP_EVENTS];       /* the instance, in its kind's order */
    uint32_t group;                  /* engine.c's group index */
    uint32_t rank;                   /* lower first within a group (gap) */
    uint8_t kind;                    /* race_kind */
    uint8_t dedupable;               /* may go unasked once its group holds */
} candidate;

typedef struct engine_run engine_run;

/* A query whose solution shows an instance, and events to show with it
 * (a handler race's sends and receives). */
typedef struct witness_query {
    hb_query query;
    uint32_t extra[GROUP_EVENTS];
    uint8_t n_extra;
} witness_query;

/* An analysis.  `generate` adds candidates (and may count instances that
 * need no query); `query` gives the k-th query of a candidate; `proven`,
 * when set, is called for every candidate (engine_add) that holds, in
 * candidate order — not for instances an analysis counts itself
 * (engine_record, engine_record_sat): it must note those on its own — and
 * `proven_all`, when set, once after the last of them (message races
 * derive handler races there). */
typedef struct analysis {
    race_kind kind;
    const char *title;               /* "Data races" */
    const char *json_key;            /* "data_races" */
    uint8_t n_queries;               /* per candidate: 1 or 2 */
    uint8_t n_located;               /* leading events that name the group */
    uint8_t n_shown;                 /* events of the instance shown */
    uint8_t ranked;                  /* rank = gap: shown, and sorted by */
    uint8_t symmetric;               /* the group is the unordered pair of
                                        ev[0], ev[1] (with ev[2], ev[3]
                                        swapped along) */
    int (*enabled)(const analysis_options *o);
    void (*generate)(engine_run *run);
    /* when set: what `generate` left for the nodes of one batch of
     * engine_order(), called batch by batch after every `generate`, the
     * batch focused once for all analyses (a sweep reads the whole
     * trace); focused 0 when the batch is too wide for the sweeps (list
     * its candidates).  Candidates may then come in any order of kinds. */
    void (*generate_batch)(engine_run *run, uint32_t batch, int focused);
    hb_query (*query)(const candidate *c, unsigned k);
    void (*proven)(engine_run *run, const candidate *c);
    void (*proven_all)(engine_run *run);
    /* when set: fills what the kind shows beyond locations, node and first
     * variable (pattern, variable_y) from the shown instance */
    void (*describe)(const trace *t, const uint32_t *instance,
                     race_group *g);
    /* when set: the queries (alternatives, at most max, into out) whose
     * solutions show the shown instance (--witness); NULL: its candidate's
     * first query.  Returns how many. */
    size_t (*witness_queries)(const trace *t, const hb_model *m,
                              const uint32_t *instance,
                              witness_query *out, size_t max);
} analysis;

extern const analysis analysis_data, analysis_message, analysis_handler,
    analysis_atomicity, analysis_multivar;

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

/* Whether SIGINT/SIGTERM asked the run to stop: a long loop of an
 * analysis checks it and stops (the report is then partial). */
int engine_stopped(const engine_run *run);

/* Counts an instance that holds without a query (handler races); n of
 * one group at once, ev the least of them (the group shows its least). */
void engine_count(engine_run *run, race_kind kind, const uint32_t *ev,
                  uint64_t n);

/* ---- witnesses (engine_witness.c) -------------------------------------------- */

/* Finds witnesses (SPEC §4): for a shown instance, a run in an order that
 * some solution of Φ ∧ (the instance's query) respects, cut to the
 * instance's events and what each waits on in other threads.  From the
 * observed-order graph R when R and the query have no cycle; from a Z3
 * model otherwise (one solver, made when first needed). */
typedef struct witness_finder witness_finder;

/* Borrows t and m until freed, and makes m's deferred waits
 * (hb_model_add_waits()) when it first needs Z3.  z3_only: every witness
 * from Z3 (as with --solver=z3, so that tests check both ways).
 * Allocation failure ends the run. */
witness_finder *witness_finder_new(const trace *t, hb_model *m,
                                   int z3_only, hb_solver_options solver,
                                   const volatile sig_atomic_t *leave_on);
/* Whether a Z3 call was left running after a stop (engine_z3_call with
 * leave_on): the finder is then never freed (witness_finder_free does
 * nothing). */
int witness_finder_abandoned(const witness_finder *w);
/* Fills g->witness and g->n_witness for the shown instance inst (n_inst
 * events, g->events in the same order) from the first of the n_alts
 * queries that Φ satisfies.  Returns 0; 1 when none was found (unsat, or
 * the solver timed out: g->witness stays NULL); -1 with Z3's message in
 * err when the solver failed. */
int witness_find(witness_finder *w, const uint32_t *inst, uint32_t n_inst,
                 const witness_query *alts, size_t n_alts, race_group *g,
                 char *err, size_t err_len);
void witness_finder_free(witness_finder *w);

/* ---- shortcuts (engine_shortcut.c) ------------------------------------------ */

/* Queries as a source: get(ctx, i) for i < n. */
typedef struct query_list {
    hb_query (*get)(const void *ctx, size_t i);
    const void *ctx;
    size_t n;
    const volatile sig_atomic_t *stop; /* or NULL: once set (SIGTERM), the
                                          batches not swept yet are left
                                          undecided */
    run_progress *progress;            /* or NULL: steps posted to it */
} query_list;

/* Posts step `what` (a string constant; NULL: none) at done of total to
 * progress, if not NULL. */
void engine_post_step(run_progress *progress, const char *what,
                      uint64_t done, uint64_t total);

typedef struct shortcut_stats {
    uint64_t unsat_ordered, unsat_locks, sat_witness, undecided;
    uint32_t nodes_skipped;          /* too many chains: left to Z3 */
} shortcut_stats;

/* A batch's sweep keeps a clock of the batch's width for every chain, for
 * U and R (an hb_order has three batches' worth, engine_shortcut.c); above
 * this many cells per clock set its queries go to Z3. */
#define SHORTCUT_MAX_CELLS ((size_t)64 << 20)

/* Exact answers without a solver, in m's handler model: answers[i]
 * becomes SAT, UNSAT, or
 * UNKNOWN where Z3 must decide.  Returns 1 if Φ is satisfiable (a witness
 * run was found), 0 if it is not (the unconditional edges form a cycle),
 * -1 if that is not known. */
int shortcut_decide(const trace *t, const hb_model *m, const query_list *q,
                    hb_answer *answers,
                    shortcut_stats *st);

/* The edges of R, the observed-order witness graph (U, and from each
 * clause the literal the observed run chose), appended to out.  Returns 1
 * when R is a witness: every clause has such a literal and R has no cycle
 * (then every topological order of R satisfies Φ); 0 when not.
 * Allocation failure ends the run. */
int shortcut_resolved_edges(const trace *t, const hb_model *m,
                            hb_edge_list *out);

/* ---- deciding while generating (engine_shortcut.c) ------------------------ */

/* The shortcuts for one batch of nodes at a time, for an analysis whose
 * candidates are too many to store (a product): it decides each as it
 * makes it and stores only what Z3 must decide.  Also U's reachability
 * between kept accesses, to leave out what U alone makes UNSAT (exact;
 * --solver=z3 leaves nothing out, so that `make check` compares). */
typedef struct hb_order hb_order;

/* NULL when U has a cycle or the WAITs cannot all be matched
 * (hb_wait_matching(), tried where the observed order is no run): Φ is
 * then unsatisfiable and the engine says so.  With threads >= 2, U and R are built side by side and the next
 * batches are swept ahead on a second thread while the analyses read the
 * focused one (a thread that cannot be made: all on the caller's).
 * Allocation failure ends the run. */
hb_order *hb_order_new(const trace *t, const hb_model *m, unsigned threads);
/* The trace it was made for. */
const trace *hb_order_trace(const hb_order *o);
/* The batch holding the node of a thread; how many batches there are. */
uint32_t hb_order_batch(const hb_order *o, uint32_t thread);
uint32_t hb_order_n_batches(const hb_order *o);
/* The run's hb_order, made when first asked for (the analyses share its
 * sweeps); NULL with --solver=z3 (nothing is decided while generating) or
 * when U has a cycle.  The engine frees it. */
hb_order *engine_order(engine_run *run);
/* Makes `batch` the one the calls below answer for (sweeps of U and R).
 * Returns 0 when the batch has too many chains (SHORTCUT_MAX_CELLS): ask
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
 * event e lies, its chain (engine_shortcut.c's numbering) and position in
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
void hb_order_free(hb_order *o);

/* ---- runs found by scheduling (engine_schedule.c) ------------------------- */

/* Plays the trace's kept events again in an order of its own choosing:
 * Kahn's order over U's edges, the observed order first (within a node), keeping every clause
 * itself (lock groups' mutual exclusion, a receive's possible sends, a
 * WAIT's NOTIFYs).  A complete schedule is a solution of Φ; a greedy dead
 * end proves nothing.  Borrows t and m until freed.  Allocation failure
 * ends the run. */
typedef struct scheduler scheduler;
scheduler *scheduler_new(const trace *t, const hb_model *m);
/* Looks for a solution of Φ ∧ q (q a conjunction, or a disjunction of one
 * atom; NULL: Φ alone).  Returns 1 when found, with value[e] the step of
 * each kept event (when value is not NULL; `=` pairs share a step); 0 when
 * every order it tries dead-ends (greedy, then observed orders of the
 * lock sections) or q is of a shape it does not take — which says
 * nothing about q. */
int scheduler_run(scheduler *s, const hb_query *q, uint32_t *value);
/* After a run that found a solution: the literal it took of each clause
 * that is not a lock's (a receive's send, a WAIT's NOTIFY), as edges
 * appended to out.  With U and the lock sections in the run's order, they
 * make a graph every topological order of which satisfies Φ. */
void scheduler_choices(const scheduler *s, hb_edge_list *out);
/* Events played so far over every run, and a quarter of the trace for
 * each run's setting up: the cost, for callers that keep to a budget. */
uint64_t scheduler_steps(const scheduler *s);
void scheduler_free(scheduler *s);

/* ---- the solver pool (engine_pool.c) ---------------------------------------- */

/* Work for the pool: candidates cand[order[i]], in units order[unit_start[u]
 * .. unit_start[u+1]).  A candidate holds when each of its queries is SAT;
 * query_answers (by engine_query_id) holds what the shortcuts proved, and
 * only the others are asked.  With stop_at_sat[u], a unit stops at its
 * first candidate that holds and the rest are ANSWER_NOT_ASKED.  Each unit
 * is answered in order by one worker, so answers never depend on
 * scheduling. */
typedef struct solve_work {
    const engine_run *run;
    const uint32_t *order;
    const uint32_t *unit_start;
    uint32_t n_units;
    const uint8_t *stop_at_sat;      /* per unit */
    const uint32_t *slices;          /* hb_model_slices(), or NULL */
    int may_leave;                   /* after a stop, workers may be left
                                        running (solve_all returns 1) */
    hb_solver *premade;              /* a solver of m (Φ asserted whole) the
                                        first worker takes, or NULL; solve_all
                                        owns it */
} solve_work;

/* Decides the work with `jobs` worker threads, each with a solver made
 * with so, writing the verdict of each candidate into verdicts; once
 * *so.stop is set, the rest are ANSWER_UNKNOWN.  Returns 0; 1 when stopped and some worker did
 * not heed Z3's interrupt within half a second: it is left running (the
 * candidates not decided stay as they were) and writes or reads nothing of
 * the caller's from then on but m and w->slices, which must never be
 * freed; or -1 with Z3's message in err if a solver could not be set up
 * or failed (never a verdict then). */
int solve_all(const hb_model *m, const solve_work *w, hb_answer *query_answers,
              hb_answer *verdicts, unsigned jobs, hb_solver_options so,
              char *err, size_t err_len);

/* Runs fn(arg) on a thread of its own and waits for it: 0.  Once *stop
 * is set, waits at most half a second more, then leaves it running: 1, and arg
 * and all fn reads must never be freed (analysis_options.abandoned).
 * Without stop (NULL) or a thread, fn runs on the caller's: 0. */
int engine_z3_call(void (*fn)(void *), void *arg,
                   const volatile sig_atomic_t *stop);

/* For the pool: a candidate's queries. */
const candidate *engine_candidate(const engine_run *run, uint32_t c);
unsigned engine_n_queries(const engine_run *run, uint32_t c);
hb_query engine_query(const engine_run *run, uint32_t c, unsigned k);
size_t engine_query_id(const engine_run *run, uint32_t c, unsigned k);

#endif
