/*
 * shortcut_clocks.h — vector clocks of one batch of nodes over a graph of
 * shortcut_graph.h (shortcut_clocks.c): reachability between the events
 * a batch's queries ask about, and lock exclusion.  Internal to the
 * shortcuts.
 *
 * Ownership: clocks and needed sets borrow the engine and its graphs;
 * clocks_free() and needed_free() free what they hold.  Allocation
 * failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_SHORTCUT_CLOCKS_H
#define SPIDER_SHORTCUT_CLOCKS_H

#include "shortcut_graph.h"

/* Vector clocks of one batch, restricted to its chains: the clock of d
 * gives, per chain, the last position of an event that reaches d or is d
 * (-1: none; d's own chain's entry may be older than d, readers use d's
 * position there).  Only the current clock of each chain is kept as the
 * sweep goes over the sync events (graph); a clock is stored for the sync
 * events that other chains read and for those whose chain holds an event
 * the batch's queries ask about, once per change of the chain's clock.
 * Work per batch: one step per sync event, plus a clock-sized merge per
 * edge between chains into a chain that has a clock already, and a copy
 * per clock stored.  (The floating model has many short handler chains
 * that each get one clock and pass it on: they share the stored row, and
 * copy nothing.) */
enum { NO_ROW = UINT32_MAX, EMPTY_ROW = UINT32_MAX - 1, NO_FIX = UINT32_MAX };
enum { CLOCK_NONE, CLOCK_SHARED, CLOCK_OWN };
enum { CLOCK_LANES = 8 }; /* rows are padded to a multiple (with -1), so
                             that merges run whole vectors */

/* row = the greater of row and from, cell by cell, over k cells (a
 * multiple of CLOCK_LANES); nonzero when a cell of row grew.  The merge
 * is most of a sweep's work, and GCC at -O2 leaves the plain loop scalar:
 * so whole vectors, 4 cells (SSE2, every x86-64) or 8 (AVX2, picked at
 * run time; GCC splits 8-cell vectors into single cells without it). */
typedef int (*merge_row_fn)(int32_t *row, const int32_t *from, uint32_t k);

/* The events the batch's queries ask about, each listed once. */
typedef struct needed_set {
    uint8_t *is;         /* per dense event */
    uint32_t *list, n, cap;
} needed_set;

typedef struct clocks {
    const graph *g;
    merge_row_fn merge_row;
    uint32_t k;          /* a row's cells: the batch's chains, padded */
    uint32_t batch;      /* the batch swept */
    int32_t *cur;        /* per chain (all chains): its current clock,
                            when CLOCK_OWN */
    uint8_t *cur_set;    /* per chain: CLOCK_NONE, CLOCK_SHARED, CLOCK_OWN */
    /* CLOCK_SHARED: the clock is stored row base[ch], with entry
     * fix_at[ch] raised to fix_pos[ch] (unless fix_at is NO_FIX): most
     * chains get one clock from one other chain's event and pass it on
     * unchanged, so copying it (k cells, each chain, each batch) is
     * deferred until a second clock must be merged in */
    uint32_t *base, *fix_at;
    int32_t *fix_pos;
    int32_t *rows;       /* stored clocks */
    uint32_t n_rows;
    size_t rows_cells, cur_cells; /* allocated, kept from batch to batch:
                                     a fresh allocation per batch cost more
                                     in page faults than the sweep */
    /* A row is freed for reuse once nothing can read it any more: refs
     * counts the sync events' readers still to come, the chains whose
     * clock it is (base, chain_row), and 1 for good when a needed event
     * reads it after the sweep.  So the rows alive are about the messages
     * in flight, not every message of the trace (16 M events: 2 GB of
     * rows in each batch before). */
    uint32_t *refs, refs_cap;
    uint32_t *free_rows, n_free, free_cap;
    uint32_t *sync_row;  /* sync event -> stored clock, NO_ROW, EMPTY_ROW */
    uint8_t *wanted;     /* sync event -> a needed event reads its clock */
    uint32_t empty_row;  /* a row of -1: batch chains before their first
                            sync event */
    uint32_t *chain_row; /* per chain: a stored row equal to its current
                            clock but in its own entry, or NO_ROW */
    const needed_set *needed; /* what the batch's queries ask about */
} clocks;

/* The set of events a batch's queries ask about. */
void needed_init(needed_set *s, const shortcut_engine *e);
void needed_add(needed_set *s, uint32_t d);
/* Empties s (in the time of what it holds). */
void needed_clear(needed_set *s);
void needed_free(needed_set *s);

/* Clocks of graph g (acyclic, or never swept), reading `needed`. */
void clocks_init(clocks *c, const shortcut_engine *e, const graph *g,
                 const needed_set *needed);
void clocks_free(clocks *c);
/* Whether a batch's clocks fit in SHORTCUT_MAX_CELLS (else Z3 decides its
 * queries). */
int clocks_fit(const shortcut_engine *e, uint32_t batch);
/* Sweeps vc's graph for one batch (rows set up: clocks_sweep_batch); a
 * stop leaves it unfinished. */
void clocks_sweep(const shortcut_engine *e, uint32_t batch, clocks *vc,
                  const volatile sig_atomic_t *stop);
/* Sweeps U into u and, when R is a witness other than U, R into r, side
 * by side on two threads when asked. */
void clocks_sweep_batch(const shortcut_engine *e, uint32_t batch, clocks *u,
                        clocks *r, int side_by_side,
                        const volatile sig_atomic_t *stop);
/* The stored clock of needed dense event d (or EMPTY_ROW, NO_ROW). */
uint32_t clocks_row_at(const shortcut_engine *e, const clocks *vc, uint32_t d);
/* Does x reach y (x != y) in the swept graph?  x in the batch, y needed. */
int clocks_reaches(const shortcut_engine *e, const clocks *vc, uint32_t x,
                   uint32_t y);
/* Whether section s holds access a (by u's reachability). */
int clocks_inside(const shortcut_engine *e, const clocks *u,
                  const lock_section *s, uint32_t a);
/* A section of a's thread holding a and k, and one of the same lock of
 * another thread holding b. */
int clocks_excluded(const shortcut_engine *e, const clocks *u, uint32_t a,
                    uint32_t b, uint32_t k);

#endif
