/*
 * engine_group.h — instances grouped by location while they are counted
 * (engine_group.c): each group's counts and the one instance it shows,
 * chosen so that the report never depends on the order of files or of
 * events in them.
 *
 * Ownership: a grouper borrows the trace and the analyses until
 * grouper_free().  Allocation failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_ENGINE_GROUP_H
#define SPIDER_ENGINE_GROUP_H

#include "analysis.h"

#include "../../util/alloc.h" /* before uthash.h: its uthash_fatal */

#include <uthash.h>

/* A group while instances are counted: location ids, not yet strings. */
typedef struct group_key {
    uint32_t kind, loc[GROUP_EVENTS]; /* symmetric kinds: loc[0] <= loc[1] */
} group_key;

typedef struct group_entry {
    group_key key;
    uint32_t index;
    UT_hash_handle hh;
} group_entry;

typedef struct group_state {
    group_key key;
    uint8_t lo_first;        /* symmetric: location loc[0] sorts first */
    uint8_t has_instance, instance_holds;
    uint64_t count;
    uint64_t unchecked;      /* candidates not asked: the group holds */
    uint64_t undecided;      /* candidates the solver left open */
    uint64_t candidates;     /* of the run (engine_add) */
    uint32_t first;          /* its first candidate */
    uint32_t inst[GROUP_EVENTS];
    uint32_t inst_rank;
} group_state;

enum { GROUP_CACHE = 4096 };

typedef struct grouper {
    const trace *t;
    const analysis *const *analyses; /* by race_kind */
    group_entry *table;
    group_state *g;
    uint32_t n, cap;
    uint32_t *thread_rank;   /* threads ordered by name */
    struct { group_key key; uint32_t index; } cache[GROUP_CACHE];
} grouper;

/* A grouper for the analyses given (by race_kind). */
grouper *grouper_new(const trace *t, const analysis *const *analyses);
void grouper_free(grouper *g);
/* Orders events by (thread name, position in the thread's input): the same
 * whatever the file layout or the order of files on the command line. */
int grouper_cmp_events(const grouper *g, uint32_t a, uint32_t b);
/* The group of an instance of analysis a, made when new. */
uint32_t grouper_group_of(grouper *g, const analysis *a, const uint32_t *ev);
/* The group of key, or UINT32_MAX when there is none (none is made). */
uint32_t grouper_find(const grouper *g, const group_key *key);
/* The instance ev in the group's order, into out: a symmetric pair with
 * the first location first (by event order when both are the same). */
void grouper_orient(const grouper *g, const group_state *gs,
                    const analysis *a, const uint32_t *ev, uint32_t *out);
/* Offers an instance of group gi to show: one that holds before one left
 * undecided, then the lowest rank, then the least by event order. */
void grouper_offer(grouper *g, uint32_t gi, const uint32_t *ev,
                   uint32_t rank, int holds);

#endif
