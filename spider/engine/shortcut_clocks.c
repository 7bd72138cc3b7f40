/*
 * shortcut_clocks.c — vector clocks of one batch over U or R, swept over
 * the sync events (shortcut_clocks.h).
 */
#include "shortcut_clocks.h"

#include "../../util/alloc.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MERGE_ROW_BODY(LANES)                                                \
    do {                                                                     \
        LANES grew = {0};                                                    \
        for (uint32_t c = 0; c < k; c += sizeof(LANES) / sizeof(int32_t)) { \
            LANES f, r;                                                      \
            memcpy(&f, from + c, sizeof f);                                  \
            memcpy(&r, row + c, sizeof r);                                   \
            LANES later = f > r; /* -1 where f is later */                   \
            r = (f & later) | (r & ~later);                                  \
            grew |= later;                                                   \
            memcpy(row + c, &r, sizeof r);                                   \
        }                                                                    \
        int any = 0;                                                         \
        for (size_t c = 0; c < sizeof(LANES) / sizeof(int32_t); c++)         \
            any |= grew[c] != 0;                                             \
        return any;                                                          \
    } while (0)

#if defined(__x86_64__) && defined(__GNUC__)
typedef int32_t lanes4 __attribute__((vector_size(16)));
typedef int32_t lanes8 __attribute__((vector_size(32)));

static int merge_row_sse2(int32_t *row, const int32_t *from, uint32_t k)
{
    MERGE_ROW_BODY(lanes4);
}

__attribute__((target("avx2")))
static int merge_row_avx2(int32_t *row, const int32_t *from, uint32_t k)
{
    MERGE_ROW_BODY(lanes8);
}

static merge_row_fn pick_merge_row(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? merge_row_avx2 : merge_row_sse2;
}
#else
static int merge_row_plain(int32_t *row, const int32_t *from, uint32_t k)
{
    int grew = 0;
    for (uint32_t c = 0; c < k; c++)
        if (from[c] > row[c]) {
            row[c] = from[c];
            grew = 1;
        }
    return grew;
}

static merge_row_fn pick_merge_row(void)
{
    return merge_row_plain;
}
#endif


void needed_add(needed_set *s, uint32_t d)
{
    if (s->is[d])
        return;
    s->is[d] = 1;
    ALLOC_GROW(s->list, (size_t)s->n + 1, s->cap);
    s->list[s->n++] = d;
}

void needed_clear(needed_set *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        s->is[s->list[i]] = 0;
    s->n = 0;
}

/* A new row, its cells left for the caller to fill, no reference yet. */
static int32_t *new_row(clocks *vc, uint32_t *id)
{
    if (vc->n_free) {
        *id = vc->free_rows[--vc->n_free];
        return vc->rows + (size_t)*id * vc->k;
    }
    size_t need_cells = ((size_t)vc->n_rows + 1) * vc->k;
    if (need_cells > vc->rows_cells) {
        size_t cells = 2 * vc->rows_cells;
        if (cells < (size_t)1024 * vc->k)
            cells = (size_t)1024 * vc->k;
        vc->rows = xrealloc_array(vc->rows, cells, sizeof(int32_t));
        vc->rows_cells = cells;
    }
    if (vc->n_rows >= EMPTY_ROW - 1) /* row ids must stay below the marks */
        alloc_fail(need_cells * sizeof(int32_t), "the stored vector clocks");
    ALLOC_GROW(vc->refs, (size_t)vc->n_rows + 1, vc->refs_cap);
    vc->refs[vc->n_rows] = 0;
    *id = vc->n_rows++;
    return vc->rows + (size_t)*id * vc->k;
}

static void hold_row(clocks *vc, uint32_t id, uint32_t n)
{
    vc->refs[id] += n;
}

static void release_row(clocks *vc, uint32_t id)
{
    assert(vc->refs[id] > 0);
    if (--vc->refs[id] == 0) {
        ALLOC_GROW(vc->free_rows, (size_t)vc->n_free + 1, vc->free_cap);
        vc->free_rows[vc->n_free++] = id;
    }
}

static uint32_t store_row(clocks *vc, const int32_t *row)
{
    uint32_t id;
    memcpy(new_row(vc, &id), row, vc->k * sizeof *row);
    return id;
}

/* Copies chain ch's shared clock into its own buffer. */
static void own_clock(clocks *vc, uint32_t ch)
{
    int32_t *row = vc->cur + (size_t)ch * vc->k;
    memcpy(row, vc->rows + (size_t)vc->base[ch] * vc->k, vc->k * sizeof *row);
    if (vc->fix_at[ch] != NO_FIX && vc->fix_pos[ch] > row[vc->fix_at[ch]])
        row[vc->fix_at[ch]] = vc->fix_pos[ch];
    vc->cur_set[ch] = CLOCK_OWN;
    release_row(vc, vc->base[ch]);
}

/* Takes the clock of the source of edge ie (another chain's sync event,
 * its stored row `from`) into chain ch's clock; 1 when it grew.  The row
 * may be older than the source in the source's own entry (rows are
 * shared, clocks_sweep()): that entry is the source's position. */
static int merge_clock(const shortcut_engine *e, clocks *vc, const in_edge *ie,
                       uint32_t from, uint32_t ch)
{
    uint32_t k = vc->k, cp = ie->chain;
    int32_t pos = (int32_t)ie->pos;
    uint32_t at = e->chain_batch[cp] == vc->batch ? e->chain_local[cp] : NO_FIX;
    if (vc->cur_set[ch] == CLOCK_NONE) {
        vc->cur_set[ch] = CLOCK_SHARED;
        vc->base[ch] = from;
        hold_row(vc, vc->base[ch], 1);
        vc->fix_at[ch] = at;
        vc->fix_pos[ch] = pos;
        return 1;
    }
    if (vc->cur_set[ch] == CLOCK_SHARED)
        own_clock(vc, ch);
    int32_t *row = vc->cur + (size_t)ch * vc->k;
    int any = vc->merge_row(row, vc->rows + (size_t)from * vc->k, k);
    if (at != NO_FIX && pos > row[at]) {
        row[at] = pos;
        any = 1;
    }
    return any;
}

/* The stored row of chain ch's current clock (set): shared, kept, or
 * stored now. */
static uint32_t clock_row(clocks *vc, uint32_t ch)
{
    if (vc->cur_set[ch] == CLOCK_SHARED &&
        (vc->fix_at[ch] == NO_FIX ||
         vc->rows[(size_t)vc->base[ch] * vc->k + vc->fix_at[ch]] >=
             vc->fix_pos[ch]))
        return vc->base[ch]; /* the fix adds nothing */
    if (vc->cur_set[ch] == CLOCK_SHARED)
        own_clock(vc, ch);
    if (vc->chain_row[ch] == NO_ROW) {
        vc->chain_row[ch] = store_row(vc, vc->cur + (size_t)ch * vc->k);
        hold_row(vc, vc->chain_row[ch], 1);
    }
    return vc->chain_row[ch];
}

/* Marks (set 1) or unmarks (0) the sync events whose clocks the needed
 * events read. */
static void want_rows(clocks *vc, uint8_t set)
{
    const needed_set *s = vc->needed;
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t at = vc->g->sync_at[s->list[i]];
        if (at != NO_SYNC)
            vc->wanted[at] = set;
    }
}

/* One pass over the sync events in topological order.  Each that other
 * chains read, or whose chain's needed events read, gets a stored row;
 * the events of a chain share one row while the chain's clock changes
 * only in its own entry (the entry of an event's own chain is then older
 * than the event: readers use the position instead, clocks_reaches()).  Edges
 * within a chain bring nothing: the chain's clock already holds the
 * earlier event's.  Once stop is set (it may be NULL) the pass ends
 * early, its clocks unfinished: the caller reads no answer from them. */
void clocks_sweep(const shortcut_engine *e, uint32_t batch, clocks *vc,
                  const volatile sig_atomic_t *stop)
{
    const graph *g = vc->g;
    uint32_t k = vc->k;
    memset(vc->cur_set, CLOCK_NONE, e->n_chains);
    for (uint32_t c = 0; c < e->n_chains; c++)
        vc->chain_row[c] = NO_ROW;
    vc->n_rows = 0;
    vc->n_free = 0;
    int32_t *empty = new_row(vc, &vc->empty_row);
    for (uint32_t c = 0; c < k; c++)
        empty[c] = -1;
    hold_row(vc, vc->empty_row, 1);
    want_rows(vc, 1);
    for (uint32_t i = 0; i < g->n_sync; i++) {
        if (!(i & 4095) && stop && *stop)
            break; /* the clocks are left unfinished: no answer is read */
        uint32_t ch = g->sync_chain[i];
        int grew = 0;
        for (uint32_t s = g->in_start[i]; s < g->in_start[i + 1]; s++) {
            const in_edge *ie = &g->in[s];
            uint32_t r = vc->sync_row[ie->src];
            if (r != EMPTY_ROW && r != NO_ROW) {
                grew |= merge_clock(e, vc, ie, r, ch);
                release_row(vc, r); /* read */
            }
        }
        if (e->chain_batch[ch] == batch && vc->cur_set[ch] == CLOCK_NONE) {
            int32_t *row = vc->cur + (size_t)ch * k;
            for (uint32_t c = 0; c < k; c++)
                row[c] = -1; /* its own entry: the position, by readers */
            vc->cur_set[ch] = CLOCK_OWN;
            grew = 1;
        }
        if (grew && vc->chain_row[ch] != NO_ROW) {
            release_row(vc, vc->chain_row[ch]);
            vc->chain_row[ch] = NO_ROW;
        }
        if (!g->feeds[i] && !vc->wanted[i]) {
            vc->sync_row[i] = NO_ROW;
        } else if (vc->cur_set[ch] == CLOCK_NONE) {
            vc->sync_row[i] = EMPTY_ROW;
        } else {
            vc->sync_row[i] = clock_row(vc, ch);
            hold_row(vc, vc->sync_row[i], g->readers[i] + vc->wanted[i]);
        }
    }
    want_rows(vc, 0);
}

/* The stored clock of dense event d, which the batch's queries ask about
 * (or EMPTY_ROW). */
uint32_t clocks_row_at(const shortcut_engine *e, const clocks *vc, uint32_t d)
{
    uint32_t at = vc->g->sync_at[d];
    assert(vc->needed->is[d]);
    if (at != NO_SYNC)
        return vc->sync_row[at];
    return e->chain_batch[e->chain[d]] == vc->batch ? vc->empty_row : EMPTY_ROW;
}

/* Does x reach y (x ≠ y) in the swept graph?  x must be in the batch and
 * y an event the batch's queries ask about.  On one chain, by position
 * (y's row is shared and its own entry may be older than y). */
int clocks_reaches(const shortcut_engine *e, const clocks *vc, uint32_t x, uint32_t y)
{
    uint32_t dx = e->dense[x], dy = e->dense[y], r = clocks_row_at(e, vc, dy);
    if (r == EMPTY_ROW || r == NO_ROW)
        return 0;
    if (e->chain[dx] == e->chain[dy])
        return e->pos[dx] <= e->pos[dy];
    return vc->rows[(size_t)r * vc->k + e->chain_local[e->chain[dx]]] >=
           (int32_t)e->pos[dx];
}

int clocks_inside(const shortcut_engine *e, const clocks *u, const lock_section *s,
                  uint32_t a)
{
    return clocks_reaches(e, u, s->acquire, a) &&
           (s->release == NONE || clocks_reaches(e, u, a, (uint32_t)s->release));
}

/* A section of a's thread holding a and k, and one of the same lock of
 * another thread holding b. */
int clocks_excluded(const shortcut_engine *e, const clocks *u, uint32_t a, uint32_t b,
                    uint32_t k)
{
    const trace *t = e->t;
    uint32_t batch = u->batch;
    if (e->chain_batch[e->chain[e->dense[a]]] != batch ||
        e->chain_batch[e->chain[e->dense[b]]] != batch ||
        e->chain_batch[e->chain[e->dense[k]]] != batch)
        return 0; /* reachability is known from the swept batch's events only */
    int32_t fa = e->held_first[e->dense[a]], fb = e->held_first[e->dense[b]];
    int32_t fk = e->held_first[e->dense[k]];
    if (fa < 0 || fb < 0 || fk < 0)
        return 0;
    for (const uint32_t *x = e->held + fa; *x != UINT32_MAX; x++) {
        const lock_section *sx = &t->sections[*x];
        if (!clocks_inside(e, u, sx, a) || (k != a && !clocks_inside(e, u, sx, k)))
            continue;
        for (const uint32_t *y = e->held + fb; *y != UINT32_MAX; y++) {
            const lock_section *sy = &t->sections[*y];
            if (sx->lock == sy->lock && sx->thread != sy->thread &&
                clocks_inside(e, u, sy, b))
                return 1;
        }
    }
    return 0;
}

void needed_init(needed_set *s, const shortcut_engine *e)
{
    memset(s, 0, sizeof *s);
    s->is = xcalloc((size_t)e->n + 1, 1);
}

void needed_free(needed_set *s)
{
    free(s->is);
    free(s->list);
}

/* Clocks of graph g (acyclic, or never swept). */
void clocks_init(clocks *c, const shortcut_engine *e, const graph *g,
                 const needed_set *needed)
{
    memset(c, 0, sizeof *c);
    c->g = g;
    c->merge_row = pick_merge_row();
    c->needed = needed;
    c->sync_row = xmalloc_array((size_t)g->n_sync + 1, sizeof(uint32_t));
    c->wanted = xcalloc((size_t)g->n_sync + 1, 1);
    c->cur_set = xmalloc(e->n_chains + 1);
    c->chain_row = xmalloc_array(e->n_chains + 1, sizeof(uint32_t));
    c->base = xmalloc_array(e->n_chains + 1, sizeof(uint32_t));
    c->fix_at = xmalloc_array(e->n_chains + 1, sizeof(uint32_t));
    c->fix_pos = xmalloc_array(e->n_chains + 1, sizeof(int32_t));
}

void clocks_free(clocks *c)
{
    free(c->sync_row);
    free(c->wanted);
    free(c->cur_set);
    free(c->chain_row);
    free(c->base);
    free(c->fix_at);
    free(c->fix_pos);
    free(c->cur);
    free(c->rows);
    free(c->refs);
    free(c->free_rows);
}

/* Whether a batch's clocks fit in SHORTCUT_MAX_CELLS (else Z3 decides its
 * queries). */
int clocks_fit(const shortcut_engine *e, uint32_t batch)
{
    return (size_t)e->n_chains * e->batch_chains[batch] <= SHORTCUT_MAX_CELLS;
}

/* One sweep on a thread of its own: the two read the engine, the graphs
 * and the needed set, and each writes only its own clocks. */
typedef struct sweep_job {
    const shortcut_engine *e;
    uint32_t batch;
    clocks *vc;
    const volatile sig_atomic_t *stop;
} sweep_job;

static void *sweep_worker(void *arg)
{
    const sweep_job *job = arg;
    clocks_sweep(job->e, job->batch, job->vc, job->stop);
    return NULL;
}

/* Sweeps U into u and, when it is a witness other than U, R into r for
 * one batch (its needed events marked), the two side by side on two
 * threads when asked; the batch's clocks are n_chains x k cells.  A
 * stop leaves them unfinished (clocks_sweep()). */
void clocks_sweep_batch(const shortcut_engine *e, uint32_t batch, clocks *u, clocks *r,
                        int side_by_side, const volatile sig_atomic_t *stop)
{
    uint32_t k = (e->batch_chains[batch] + CLOCK_LANES - 1) & ~(uint32_t)(CLOCK_LANES - 1);
    size_t cells = (size_t)e->n_chains * k;
    clocks *both[2] = {u, r};
    int with_r = e->r.acyclic && !e->r_is_u; /* R is a witness, not U */
    for (int i = 0; i < 1 + with_r; i++) {
        clocks *c = both[i];
        c->k = k;
        c->batch = batch;
        if (cells + 1 > c->cur_cells) {
            c->cur = xrealloc_array(c->cur, cells + 1, sizeof(int32_t));
            c->cur_cells = cells + 1;
        }
        c->n_rows = 0; /* rows are k wide: the cells are reused */
    }
    if (!with_r) {
        clocks_sweep(e, batch, u, stop);
        return;
    }
    sweep_job job = {e, batch, r, stop};
    pthread_t other;
    if (side_by_side && pthread_create(&other, NULL, sweep_worker, &job) == 0) {
        clocks_sweep(e, batch, u, stop);
        pthread_join(other, NULL);
        return;
    }
    clocks_sweep(e, batch, u, stop); /* one thread, or none could be made: in turn */
    clocks_sweep(e, batch, r, stop);
}
