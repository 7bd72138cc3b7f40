/*
 * encode.h — the happens-before model Φ of a trace (docs/model.md).
 *
 * hb_model_build() turns a trace (and which of its events are kept) into
 * plain data: unconditional difference edges O(a) < O(b) and clauses
 * (disjunctions of difference atoms and booleans).  Two back ends read
 * that data: Z3 terms inside an hb_solver (one per worker thread; each owns
 * its own Z3 context), and SMT-LIB2 text for --emit-smt2.
 *
 * Variables are event ids of the trace: O(e) for event e.  Booleans
 * (wait/notify choices) are numbered from 0.
 *
 * Ownership: the model owns its arrays and borrows nothing after
 * hb_model_build() returns; free it with hb_model_free().  An hb_solver
 * borrows the model until it is freed (it reads the lock groups as its
 * models need their clauses).
 *
 * Two parts of Φ are quadratic in a run and kept implicit until a reader
 * needs them: the lock clauses (hb_lock_group) and the wait/notify
 * booleans and clauses (hb_model_add_waits()).  The Z3 back end, the
 * slicer and the SMT-LIB2 writer need the latter made first.
 */
#ifndef SPIDER_ENCODE_H
#define SPIDER_ENCODE_H

#include "../traces/trace.h"
#include "../util/graph.h"

#include <stdint.h>
#include <stdio.h>

typedef enum handler_model { HANDLERS_NESTED, HANDLERS_FLOATING } handler_model;

typedef digraph_edge hb_edge;       /* O(before) < O(after) */

typedef enum hb_lit_kind { LIT_LESS, LIT_BOOL, LIT_NOT_BOOL } hb_lit_kind;

typedef struct hb_lit {
    uint8_t kind;                    /* hb_lit_kind */
    uint32_t a, b;                   /* LESS: O(a) < O(b); BOOL: boolean a */
} hb_lit;

typedef struct hb_clause {
    uint32_t first, n;               /* lits[first .. first+n) */
} hb_clause;

/* Boolean b of the model: "WAIT `wait` was woken by `notify`"; or, with
 * wait == HB_LADDER, an auxiliary of notify's at-most-one ladder: "one of
 * the first k WAITs of notify's list chose it" (encode.c, after the
 * choices of every WAIT). */
typedef struct hb_choice {
    uint32_t notify, wait;
} hb_choice;
#define HB_LADDER UINT32_MAX

/* The event a boolean is about, for code that places constraints among
 * events: its WAIT, or a ladder's NOTIFY. */
static inline uint32_t hb_choice_event(const hb_choice *c)
{
    return c->wait == HB_LADDER ? c->notify : c->wait;
}

/* Where a constraint came from (SPEC §3's items). */
typedef enum hb_origin { ORIGIN_PROGRAM_ORDER, ORIGIN_THREAD_SYNC,
                         ORIGIN_MESSAGES, ORIGIN_LOCKS,
                         ORIGIN_WAIT_NOTIFY,
                         ORIGIN_IMPLIED /* edges the others imply (no new
                                           constraint: docs/model.md) */
} hb_origin;

/* Constraints by origin, for the report. */
typedef struct hb_counts {
    uint64_t program_order, thread_sync, messages, locks, wait_notify, implied;
} hb_counts;
/* Adds n (or, negative, takes -n) constraints of `origin` to c. */
void hb_counts_add(hb_counts *c, hb_origin origin, int64_t n);

/* The sections of one lock whose mutual exclusion Φ says pairwise: for
 * two of them, x and y, in different threads, the clause
 * O(x.release) < O(y.acquire) ∨ O(y.release) < O(x.acquire).  That is
 * quadratic in the sections of a lock (12,000 one-write sections in each
 * of two threads: 144 M clauses), so the model keeps the sections, not
 * the clauses (issue 15): readers enumerate the pairs when they need
 * them (hb_lock_pairs_next()), or reason about the sections directly.
 * The sections of a group are model->lock_sections[first .. first+n),
 * closed, both events kept, by acquire event; a group spans at least two
 * threads (else it says nothing and is left out). */
typedef struct hb_lock_group {
    uint32_t first, n;
    uint64_t n_pairs;                /* clauses: pairs in different threads */
} hb_lock_group;

typedef struct hb_model {
    uint32_t n_events;               /* variables are 0 .. n_events-1 */
    uint8_t *kept;                   /* kept[e]: O(e) is in the model */
    uint32_t n_kept;
    hb_edge *edges;
    uint32_t n_edges;
    hb_clause *clauses;
    uint32_t n_clauses;
    hb_lit *lits;
    uint32_t n_lits;
    uint32_t n_bools;
    hb_choice *choices;              /* choices[b]: what boolean b means */
    lock_section *lock_sections;     /* hb_lock_group's sections */
    uint32_t n_lock_sections;
    hb_lock_group *lock_groups;
    uint32_t n_lock_groups;
    uint64_t n_lock_clauses;         /* the pairs of every group */
    uint32_t lock_clauses_at;        /* where they stand among the clauses
                                        (the order of --emit-smt2): before
                                        clauses[lock_clauses_at] */
    uint64_t lock_eager_max;         /* a solver asserts the clauses of a
                                        group with at most this many up
                                        front; a larger group's only when a
                                        model breaks them (encode_z3.c).
                                        hb_model_build() sets
                                        HB_LOCK_EAGER_MAX; callers may
                                        change it before making solvers */
    hb_counts counts;                /* constraints by origin */
    uint8_t *edge_origin;            /* hb_origin of each edge */
    int edges_dropped;               /* hb_model_drop_edges(): none left */
    uint8_t *clause_origin;          /* ... and of each clause */
    handler_model handlers;          /* the handler model it was built for */
    uint8_t incomplete;              /* hb_model_build_until() stopped: some
                                        constraints are missing; decide
                                        nothing with it */
    uint8_t waits_deferred;          /* the wait/notify booleans and clauses
                                        are not made yet: n_bools is 0
                                        (hb_model_add_waits()) */
    uint64_t n_wait_clauses;         /* how many wait/notify clauses Φ has,
                                        made or not (in counts either way) */
} hb_model;

/* The chain (a totally ordered context) an event's program order runs in:
 * its thread (nested model), or its thread outside handlers / its
 * innermost handler (floating model): thread ids, then n_threads + handler. */
static inline uint32_t hb_chain_of(const trace *t, handler_model hm, uint32_t e)
{
    const event *ev = &t->events[e];
    return hm == HANDLERS_FLOATING && ev->handler != NONE
               ? t->n_threads + (uint32_t)ev->handler : ev->thread;
}

static inline uint32_t hb_chain_count(const trace *t, handler_model hm)
{
    return t->n_threads + (hm == HANDLERS_FLOATING ? t->n_handlers : 0);
}

/* The synchronisation skeleton of U (Φ's edges) over the ranks of a
 * split run (encode_skeleton.c): of every chain of the whole trace, its
 * sync events, the kept events with an edge from or to another chain
 * (and the sends another node's receive may match), in program order, and the edges that come into them from other
 * chains.  Reachability in U between two events of a rank's share is
 * reachability through its own chains and the skeleton: between two
 * sync events a chain adds nothing but program order.  Each rank sends
 * the sync events of its own chains (a chain's events are all of one
 * node, on its owner's rank) and every rank gets all of them.
 *
 * Ownership: hb_skeleton_exchange() fills *out, which the caller frees
 * with hb_skeleton_free(). */
typedef struct hb_skeleton {
    uint32_t n_sync;        /* sync events of the whole trace, by global id */
    uint32_t *global;       /* their ids in the whole trace, ascending */
    uint32_t *chain;        /* each one's chain, 0 .. n_chains */
    uint32_t *pos;          /* and its place in its chain (program order) */
    uint32_t *in_start;     /* edges from other chains into sync event i: */
    uint32_t *in;           /* sources in[in_start[i] .. in_start[i+1]),
                               as indexes of sync events */
    uint32_t n_chains;      /* chains with a sync event */
    char **chain_name;      /* "thread" or "thread/handler N" (floating:
                               the handler whose HANDLERBEGIN is event N) */
    uint32_t *chain_rank;   /* the rank whose share holds the chain */
} hb_skeleton;

struct trace_share;
struct comm;
/* Every rank of c with its share s and m, Φ of s->t (pruned and
 * projected as the rank's analysis has it), alike.  0; -1 with a message
 * in err when the ranks lost each other or an edge names an event no
 * rank calls a sync event (the shares do not fit together). */
int hb_skeleton_exchange(const struct trace_share *s, const hb_model *m,
                         struct comm *c, hb_skeleton *out, char *err,
                         size_t err_len);
/* The sync event of global id g, or UINT32_MAX. */
uint32_t hb_skeleton_find(const hb_skeleton *k, uint32_t g);
void hb_skeleton_free(hb_skeleton *k);

/* U as rank `rank` sees it through the skeleton: the vertices of its
 * share s (s->t's events) and, past them, the other ranks' sync events,
 * with the edges that join those (along their chains, and into them).
 * An event of s from another node stands for its sync event: map[e] is
 * e's vertex (e itself, or past the share's events; UINT32_MAX for one
 * that is no sync event, which orders nothing of this rank's).
 * Reachability between the rank's own events over s's Φ (renumbered by
 * map, leaving out its edges between two other nodes' events: the
 * share's program order among those is their threads', while the
 * skeleton's is their chains') and these edges is reachability in the
 * whole trace's Φ. */
typedef struct hb_outside {
    uint32_t n;             /* vertices past s->t's events */
    uint32_t n_chains;      /* their chains, numbered past s->t's chains */
    uint32_t *chain;        /* per vertex past s->t's: its chain */
    uint32_t *map;          /* per event of s->t: its vertex */
    digraph_edge *edges;    /* the vertices' edges (chain order, in-edges) */
    size_t n_edges;
} hb_outside;
void hb_skeleton_outside(const hb_skeleton *k, const struct trace_share *s,
                         handler_model hm, unsigned rank, hb_outside *out);
void hb_outside_free(hb_outside *o);

/* hb_model_build_until(t = s->t, every event kept) on every rank of a
 * split run alike: the implied edges (encode_build.c) are found with the
 * other ranks, a skeleton exchanged each round, so that Φ's edges among
 * the share's own events are the whole trace's Φ's.  NULL with a
 * message when the ranks lost each other, or when the lock closure's
 * bound on edges (over the whole trace) ran out: one process would have
 * left out edges a split run cannot name. */
hb_model *hb_model_build_share(const struct trace_share *s,
                               handler_model handlers,
                               const volatile sig_atomic_t *stop,
                               struct comm *c, char *err, size_t err_len);

/* A growable list of edges, for code that builds graphs out of Φ. */
typedef struct hb_edge_list {
    hb_edge *v;
    uint32_t n, cap;
} hb_edge_list;

void hb_edge_list_add(hb_edge_list *l, uint32_t before, uint32_t after);

/* Builds Φ for the events e with keep[e] != 0 (keep NULL = all), its
 * wait/notify booleans and clauses deferred (counted, not made:
 * hb_model_add_waits()).  A constraint is added when every event it
 * names is kept.  Never fails (allocation failure ends the run,
 * util/alloc.h). */
hb_model *hb_model_build(const trace *t, const uint8_t *keep,
                         handler_model handlers);
/* Same, but the long loops (lock sections, wait/notify pairs: quadratic)
 * stop adding constraints once *stop is set (SIGINT/SIGTERM); the model is
 * then m->incomplete.  stop may be NULL. */
hb_model *hb_model_build_until(const trace *t, const uint8_t *keep,
                               handler_model handlers,
                               const volatile sig_atomic_t *stop);

/* Projects m, in place, onto the events with keep[e] != 0: program order
 * runs through the kept events, and every other constraint stays.  The
 * result equals hb_model_build(t, keep, m->handlers) with the constraints
 * in another order; Φ is built only once.  Returns 0; or -1, leaving m as
 * it was, when keep drops an event that a constraint names (other than
 * the fork/join edges of a thread dropped whole, and edges along one
 * chain, which program order implies): a keep mask from prune_trace()
 * never does (prune.h), and checking it costs one pass. */
int hb_model_project(hb_model *m, const trace *t, const uint8_t *keep);
void hb_model_free(hb_model *m);
/* Frees Φ's edges, for a split run's share once its order holds them and
 * they are counted (engine_share.h): nothing asks Φ of them after that.
 * The events, clauses, sections and counts stay; edges_dropped says so. */
void hb_model_drop_edges(hb_model *m);

/* Number of constraints (edges + clauses, the lock groups' and the
 * deferred wait/notify clauses included). */
static inline uint64_t hb_model_size(const hb_model *m)
{
    return (uint64_t)m->n_edges + m->n_clauses + m->n_lock_clauses +
           (m->waits_deferred ? m->n_wait_clauses : 0);
}

/* Whether WAIT w is constrained by Φ (SPEC rule 5): kept, with a
 * candidate NOTIFY.  Such a WAIT must follow one of w->notifies, and a
 * NOTIFY wakes at most one of them. */
static inline int hb_wait_constrained(const hb_model *m, const wait_info *w)
{
    return m->kept[w->wait] && w->n_notifies > 0;
}

/* Makes the wait/notify part of Φ that hb_model_build() defers: one
 * boolean per (NOTIFY, WAIT) candidate pair of each constrained WAIT
 * with its clauses, and each NOTIFY's at-most-one.  Their number is the
 * product of a condition's WAITs and NOTIFYs (133 M booleans, about
 * 20 GB, on a run of a million events), and only Z3 and --emit-smt2
 * read them: the shortcuts read the candidates (hb_wait_matching()).
 * Call it on one thread, before making a solver, hb_model_slices() or
 * hb_model_write_smt2(); the clauses come after every other, as if
 * built at once.  Does nothing when made already.  Once *stop is set
 * (stop may be NULL) it stops, leaving m incomplete.  Allocation
 * failure ends the run (util/alloc.h). */
void hb_model_add_waits(hb_model *m, const trace *t,
                        const volatile sig_atomic_t *stop);

/* The default of hb_model.lock_eager_max: a lock with 32 sections in
 * each of two threads has its clauses given to Z3 at once.  Past some
 * thousand clauses Z3's search among them takes longer than the rounds
 * that ask for the few a model breaks (benchmarks/RESULTS.md, the
 * eager threshold); below, the rounds cost more than the clauses. */
#define HB_LOCK_EAGER_MAX 1024

/* Walks the clauses of the lock groups, in the order the pairwise
 * encoding listed them (group, then x, then y after x).  Start with
 * hb_lock_pairs it = {0}. */
typedef struct hb_lock_pairs {
    uint32_t group, x, y;
} hb_lock_pairs;

/* The next clause as two literals, O(lits[0].a) < O(lits[0].b) or
 * O(lits[1].a) < O(lits[1].b); 0 when there is none left. */
int hb_lock_pairs_next(const hb_model *m, hb_lock_pairs *it, hb_lit lits[2]);

/* The clause of closed sections x and y: x is released before y is
 * acquired, or y before x. */
void hb_lock_clause(const lock_section *x, const lock_section *y,
                    hb_lit lits[2]);


/* One question about Φ: Φ ∧ (a conjunction, or a disjunction, of up to
 * HB_QUERY_ATOMS difference atoms over up to HB_QUERY_EVENTS events).
 * Atom k compares ev[i] and ev[j]: O(ev[i]) < O(ev[j]), <=, or =.  The
 * last event, ev[n_events-1], names the query's node (its "home"): every
 * analysis asks about events of one node, except a message race's remote
 * send, which is never last.  Build queries with the constructors below. */
enum { HB_QUERY_EVENTS = 4, HB_QUERY_ATOMS = 4 };

typedef enum hb_atom_kind { ATOM_LESS, ATOM_LESS_EQ, ATOM_EQUAL } hb_atom_kind;

typedef struct hb_atom {
    uint8_t kind;                    /* hb_atom_kind */
    uint8_t i, j;                    /* indexes into hb_query.ev */
} hb_atom;

typedef struct hb_query {
    uint32_t ev[HB_QUERY_EVENTS];
    uint8_t n_events, n_atoms;
    uint8_t any;                     /* 0: every atom holds; 1: some atom */
    hb_atom atoms[HB_QUERY_ATOMS];
} hb_query;

/* Φ ∧ O(a) = O(b): a and b can happen at the same time (a data race). */
hb_query hb_query_simultaneous(uint32_t a, uint32_t b);
/* Φ ∧ O(a) < O(b). */
hb_query hb_query_before(uint32_t a, uint32_t b);
/* Φ ∧ O(p) < O(r) < O(c): r can fall between p and c. */
hb_query hb_query_between(uint32_t p, uint32_t r, uint32_t c);
/* Φ ∧ (O(r) < O(p) ∨ O(c) < O(r)): r need not fall between p and c. */
hb_query hb_query_outside(uint32_t p, uint32_t r, uint32_t c);

/* Φ ∧ O(a1) < O(bx) < O(a2) ∧ O(a1) < O(by) < O(a2): both can fall
 * between a1 and a2 (a multi-variable atomicity violation). */
hb_query hb_query_both_between(uint32_t a1, uint32_t a2, uint32_t bx,
                               uint32_t by);
/* Φ ∧ ¬(the above): O(bx) <= O(a1) ∨ O(a2) <= O(bx) ∨ O(by) <= O(a1) ∨
 * O(a2) <= O(by). */
hb_query hb_query_not_both_between(uint32_t a1, uint32_t a2, uint32_t bx,
                                   uint32_t by);

/* Writes the query as "(assert ...)" in SMT-LIB2 over constants eN. */
void hb_query_write_smt2(const hb_query *q, FILE *out);

typedef enum hb_answer {
    ANSWER_UNSAT = 0,
    ANSWER_SAT = 1,
    ANSWER_UNKNOWN = 2,              /* undecided (e.g. a solver timeout) */
    ANSWER_NOT_ASKED = 3,            /* callers' mark: deliberately skipped */
    ANSWER_ERROR = 4                 /* the solver failed: never a verdict;
                                        hb_solver_error() says why */
} hb_answer;

/* Writes Φ as SMT-LIB2 (QF_IDL), followed by `query` and (check-sat) when
 * query is not NULL, or by (check-sat) alone.  Returns 0; -1 on a write
 * error; 1 when *stop was set before the end (stop may be NULL: a lock
 * group writes all its pairs, which may be billions). */
int hb_model_write_smt2(const hb_model *m, const trace *t,
                        const hb_query *query, FILE *out,
                        const volatile sig_atomic_t *stop);

/* ---- Z3 back end ---------------------------------------------------------- */

typedef enum solver_tuning {
    TUNING_FAST,                     /* simple solver, difference-logic engine */
    TUNING_DEFAULT                   /* Z3's default solver and settings */
} solver_tuning;

typedef struct hb_solver hb_solver;

/* How a solver works.  Once *stop is set (SIGINT/SIGTERM), the solver
 * stops: a watcher thread interrupts the Z3 check under way within
 * ~20 ms (Z3_interrupt), and from then on every check answers
 * ANSWER_UNKNOWN — never ANSWER_ERROR, whatever the interrupted Z3
 * calls report. */
typedef struct hb_solver_options {
    solver_tuning tuning;
    unsigned timeout_ms;             /* per query: each Z3 check, and its
                                        lemma rounds together (checked
                                        between rounds, so a query may
                                        take up to about twice this);
                                        0 = none */
    const volatile sig_atomic_t *stop; /* or NULL */
} hb_solver_options;

/* Sets the process-wide Z3 parameters spider's solvers want: no
 * compaction of models (a lazy lock group reads a model after every
 * SAT check, and compacting it cost most of such a check).  Call once,
 * from one thread, before any solver is made; without it the answers
 * are the same, only slower.  Cannot fail. */
void hb_solver_process_setup(void);

/* A solver with Φ asserted once; owns its own Z3 context, so each thread
 * must have its own.  Returns NULL if Z3 fails (a stop is no failure:
 * the solver is returned, stopped). */
hb_solver *hb_solver_new(const hb_model *m, const hb_solver_options *o);
/* Units of a prefix order of Φ (encode_slice.c): unit[e] per event.  A
 * query about events a, b needs only the constraints whose events all have
 * units <= max(unit[a], unit[b]).  The caller frees the array. */
uint32_t *hb_model_slices(const hb_model *m);

/* A solver that gives Φ to Z3 a prefix at a time: each query asserts the
 * constraints its slice needs first.  Borrows m and unit until freed. */
hb_solver *hb_solver_new_sliced(const hb_model *m, const uint32_t *unit,
                                const hb_solver_options *o);

/* Why Φ (of trace t) is unsatisfiable: up to max events taking part in a
 * contradiction — a cycle of unconditional edges, in order, when there is
 * one; else WAITs that cannot all be matched (hb_wait_matching()); else
 * the events of an unsatisfiable core found by Z3 (lazy lock groups'
 * clauses included as the core needs them), not looked for while m's
 * waits are deferred (hb_model_add_waits()).  Returns how many: 0 when
 * Z3 fails, *stop is set (stop may be NULL) or no core was looked for. */
size_t hb_model_explain(const trace *t, const hb_model *m, uint32_t *events,
                        size_t max, const volatile sig_atomic_t *stop);

/* The events of an unsatisfiable core of Φ, from Z3 (encode_z3_core.c; lazy
 * lock groups' clauses included as the core needs them): up to max, and
 * how many.  0 when Z3 fails, *stop is set (stop may be NULL) or Φ is
 * satisfiable after all. */
size_t hb_model_core_events(const hb_model *m, uint32_t *events, size_t max,
                            const volatile sig_atomic_t *stop);

/* Whether the WAITs of Φ can each follow a NOTIFY of their own
 * (encode_waits.c, docs/model.md "Wait/notify matching"): a kept WAIT
 * with candidates must follow one that U (m's edges) does not place
 * after it, and a NOTIFY wakes at most one WAIT (a NOTIFYALL any
 * number): a bipartite matching.  It prefers, for each WAIT, the NOTIFYs
 * before it in the input (by event id), the nearest first: first the
 * most WAITs are matched along such pairs (for a trace whose observed
 * order is a run, all of them), then the rest along any.
 * Returns 1 when one covers every such WAIT, and then, if chosen is not
 * NULL, chosen[wait event] = its NOTIFY for each of them (other entries
 * are left alone; chosen has m->n_events entries).  Returns 0 when none
 * does: Φ is unsatisfiable, and proof[0 .. *n_proof) (at most max)
 * holds a WAIT left over, the other WAITs that compete with it and the
 * NOTIFYs they share (fewer than the WAITs).  Returns -1 when not known:
 * U has a cycle, the check is too large (its clocks would take more than
 * 128 MB), or *stop was set (stop may be NULL).  Allocation failure
 * exits (alloc.h). */
int hb_wait_matching(const trace *t, const hb_model *m, uint32_t *chosen,
                     uint32_t *proof, size_t max, size_t *n_proof,
                     const volatile sig_atomic_t *stop);

/* Φ alone: ANSWER_UNSAT means the trace is inconsistent. */
hb_answer hb_solver_check_model(hb_solver *s);

/* Gives each later query of s at most timeout_ms (0: leaves it as it
 * is), as hb_solver_options.timeout_ms does at set-up.  -1 if Z3
 * failed. */
int hb_solver_set_timeout(hb_solver *s, unsigned timeout_ms);
/* One incremental check (push / assert / check / pop).  Both checks answer
 * ANSWER_ERROR when any Z3 call fails, and then on every later call. */
hb_answer hb_solver_check(hb_solver *s, const hb_query *q);
/* The same check, and when SAT the values of O(events[i]) in Z3's model
 * into values[i] (a solution of Φ ∧ q).  A solver made with
 * hb_solver_new() only (a sliced one answers ANSWER_ERROR). */
hb_answer hb_solver_check_values(hb_solver *s, const hb_query *q,
                                 const uint32_t *events, size_t n,
                                 int64_t *values);
/* Z3's message for the first error of this solver ("" if none). */
const char *hb_solver_error(const hb_solver *s);
void hb_solver_free(hb_solver *s);

/* Sets a Z3 global parameter, "NAME=VALUE" (Z3_global_param_set), for
 * every solver made afterwards: call it before any.  Returns 0, or -1 with
 * a message in err when NAME is not a Z3 parameter or Z3 rejects VALUE. */
int hb_z3_global_param(const char *name_value, char *err, size_t err_len);

#endif
