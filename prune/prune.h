/*
 * prune.h — redundancy pruning that provably changes no race group.
 *
 * prune_trace() decides which events of a trace the model needs; it never
 * mutates the trace or the model.  The contract (SPEC §5, docs/pruning.md): the data,
 * message and handler race groups are the same with and without pruning;
 * only instance counts may drop.
 *
 * The invariant every rule keeps: the pruned Φ has every constraint of
 * the unpruned Φ but program order (and edges along one chain, which it
 * implies), and the fork/join edges of a thread dropped whole (rule 2);
 * hb_model_project() asserts it.  An event that a constraint of Φ names is never
 * "an event that orders nothing".  hb_model_build() adds a constraint
 * exactly when every event it names is kept — for lock sections that is
 * what the constraint names, not the whole section: of a section never
 * released (L2 holds to the end) and a released one (L1, U1), Φ says
 * U1 < L2 and names neither L1 nor anything after L2, so L1 may go while
 * the constraint stays (tests/prune/open-lock-*.log were the
 * counterexamples when the model asked for whole sections).  Three rules,
 * each with its argument:
 *
 * 1. Events that order nothing.  A non-access event that no constraint of
 *    Φ names but its own chain's program order (an UNLOCK/LOCK of a lock
 *    no other thread takes, a SND nobody receives, an unmatched RCV, a
 *    HANDLERBEGIN/END in the nested model, LOG, CONNECT, ...) is dropped.
 *    Its variable occurs only in a < x < b of its chain, so Φ without it
 *    (a < b) is exactly Φ with O(x) projected away (∃x. a < x < b ≡ a < b
 *    over the integers up to a shift), and every query about the remaining
 *    events has the same answer.  A thread's first and last events stay
 *    (fork and join edges start there), and so do matched RCVs and their
 *    first send (queries name them).
 *
 * 2. Threads that order nothing.  A thread none of whose remaining events
 *    is named by a constraint but its own program order and its fork/join
 *    edges, with no access left, and whose CREATE and JOINs lie in one
 *    chain with the CREATE first (so that CREATE < JOIN holds without it),
 *    is dropped whole: again a projection, of a chain whose only links to
 *    the rest are implied.  Rules 1 and 2 repeat until nothing changes.
 *
 * 3. Repeated accesses (after ReX, Huang & Rajagopalan, ECOOP'17, made
 *    exact).  An access e is dropped when an earlier access e' of the same
 *    chain and handler has the same location, type and variable, and no
 *    event from e' up to e (e' included, e excluded) is a "release" — the
 *    earlier side of any constraint but program order (an UNLOCK before
 *    another thread's LOCK, a SND, a CREATE, a NOTIFY ...; an open LOCK is
 *    only ever the later side, so it is not one).  Argument: in any
 *    model of Φ with O(e) = O(b), move e' and the events between them to
 *    just after O(e) (they only have constraints that want them later,
 *    and e to just after them): a model with O(e') = O(b).  So every race
 *    of e is a race of e', with the same locations; handler races too,
 *    since e' lies in the same handler.  e itself must be named by no
 *    constraint but program order, so that dropping it is a projection.
 *
 *    With --atomicity (and --multi-variable) rule 3 is off.  Dropping an access changes which
 *    accesses are consecutive, which atomicity violations are made of.
 *    Keeping the first two of every run of such accesses would keep every
 *    group (an earlier version did, argued case by case), but not each
 *    group's smallest gap: the dropped pair e2..e3 may be the closest, and
 *    SPEC §5 lets pruning lower counts only.  Rules 1 and 2 drop no access,
 *    so with --atomicity the instances are exactly those of --no-prune.
 *    (Rule 3 drops few accesses anyway: about 3% of them on the random
 *    traces, none on Cyclon, where every access is followed by a send.)
 *
 * The published algorithms are not used as they stand: the original
 * SPIDER keys ReX on location and a set of sockets/locks only (ignoring
 * the variable, the access type and the order of releases), which drops
 * accesses whose races no other access stands for; its redundant-handler
 * rule is covered by rules 1 and 3.
 *
 * Ownership: prune_trace() returns a keep mask (one byte per event) that
 * the caller frees with free().
 */
#ifndef SPIDER_PRUNE_H
#define SPIDER_PRUNE_H

#include "../encode/encode.h"
#include "../traces/trace.h"

#include <signal.h>

typedef struct prune_stats {
    uint32_t accesses;        /* R/W dropped by rule 3 */
    uint32_t handler_events;  /* HANDLERBEGIN/END dropped */
    uint32_t thread_events;   /* events of dropped threads, their CREATE/JOIN */
    uint32_t other_events;    /* other events that ordered nothing */
    uint32_t rounds;          /* rounds of rules 1 and 2 */
} prune_stats;

typedef struct prune_options {
    int atomicity;            /* atomicity or multi-variable groups must
                                 stay too (rule 3 off) */
    const volatile sig_atomic_t *stop; /* or NULL: once set (SIGTERM),
                                 pruning stops between rounds; what it
                                 dropped so far is still a pruning */
    const uint8_t *uncounted; /* or NULL: events whose dropping the stats
                                 leave out (a rank's share of a split run
                                 counts its own nodes' events only; the
                                 other nodes' are their owners') */
} prune_options;

/* Which events to keep (1) or drop (0), read off m, Φ of the whole trace
 * (hb_model_build(t, NULL, ...): its handler model is the one pruned
 * for).  Project m with hb_model_project(m, t, keep) afterwards: Φ is
 * built once.  Never fails (allocation failure ends the run,
 * util/alloc.h). */
uint8_t *prune_trace(const trace *t, const hb_model *m, const prune_options *o,
                     prune_stats *st);

#endif
