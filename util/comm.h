/*
 * comm.h — the few collective operations a run split over ranks needs,
 * behind one interface with two back ends (redis's ae.c over
 * epoll/kqueue/select):
 *
 *   comm_threads.c   ranks as threads of one process, sharing nothing
 *                    but what the operations pass (make check tests the
 *                    split run with it where MPI is absent)
 *   comm_mpi.c       ranks as MPI processes (bin/spider-mpi, make MPI=1)
 *
 * Every rank calls the same operations in the same order (they are
 * collective); rank 0 is the root.  Data is bytes in the host's order:
 * the ranks of one job run one build on one architecture.
 *
 * Ownership: a comm belongs to the back end that made it
 * (comm_threads_run(), comm_mpi_world()); what comm_gather() returns is
 * the caller's (comm_parts_free()), as is what comm_exchange() returns.  Failure: an operation returns -1
 * only when the back end reports an error (MPI's); allocation failure
 * ends the run (util/alloc.h).
 */
#ifndef SPIDER_COMM_H
#define SPIDER_COMM_H

#include <stddef.h>
#include <stdint.h>

typedef struct comm comm;

/* What rank 0 receives from comm_gather(): rank r's bytes are
 * data[r][0 .. len[r]). */
typedef struct comm_parts {
    unsigned n;
    void **data;
    size_t *len;
} comm_parts;

typedef struct comm_ops {
    int (*gather)(comm *c, const void *data, size_t len, comm_parts *out);
    int (*broadcast)(comm *c, unsigned root, void *data, size_t len);
    int (*reduce_max)(comm *c, uint64_t *value);
    int (*exchange)(comm *c, const void *const *data, const size_t *len,
                    comm_parts *out);
} comm_ops;

struct comm {
    const comm_ops *ops;
    unsigned rank, size;
    void *impl;                      /* the back end's own */
};

static inline unsigned comm_rank(const comm *c) { return c ? c->rank : 0; }
static inline unsigned comm_size(const comm *c) { return c ? c->size : 1; }

/* Every rank's len bytes at data to rank 0, into *out there (on the
 * other ranks *out is left empty).  Returns 0, or -1. */
static inline int comm_gather(comm *c, const void *data, size_t len,
                              comm_parts *out)
{
    return c->ops->gather(c, data, len, out);
}

/* Rank 0's len bytes at data into every rank's data.  Returns 0, or -1. */
static inline int comm_broadcast(comm *c, void *data, size_t len)
{
    return c->ops->broadcast(c, 0, data, len);
}

/* The same from rank `root` (every rank names the same root). */
static inline int comm_broadcast_from(comm *c, unsigned root, void *data,
                                      size_t len)
{
    return c->ops->broadcast(c, root, data, len);
}

/* *value becomes the largest of every rank's *value, on every rank (an
 * error on any rank is an error for all).  Returns 0, or -1. */
static inline int comm_reduce_max(comm *c, uint64_t *value)
{
    return c->ops->reduce_max(c, value);
}

/* All to all: rank r's data[d] (len[d] bytes) goes to rank d, for every
 * d, and *out on every rank holds what each rank sent it: out->data[s]
 * from rank s (its own data[r] among them).  Returns 0, or -1. */
static inline int comm_exchange(comm *c, const void *const *data,
                                const size_t *len, comm_parts *out)
{
    return c->ops->exchange(c, data, len, out);
}

void comm_parts_free(comm_parts *p);

/* Every rank's len bytes at data to every rank: out->data[s] is rank
 * s's (comm_exchange() of the same bytes to all).  Returns 0, or -1. */
int comm_allgather(comm *c, const void *data, size_t len, comm_parts *out);

/* *value becomes the sum of every rank's *value, on every rank (by
 * comm_exchange()).  Returns 0, or -1. */
int comm_reduce_sum(comm *c, uint64_t *value);

/* Deals n pieces of work out to `ranks` ranks by size: the largest first
 * (of equal ones the first), each to the rank with the least work so far
 * (the lowest of those; a piece counts size + 1), so that every rank
 * deals the same.  owner[i] is piece i's rank. */
void comm_deal(const uint64_t *size, uint32_t n, unsigned ranks,
               uint32_t *owner);
/* The same onto ranks that have load[r] already (updated as pieces are
 * dealt). */
void comm_deal_onto(const uint64_t *size, uint32_t n, unsigned ranks,
                    uint64_t *load, uint32_t *owner);

/* The threads back end: runs fn(comm, arg) on n ranks, rank 0 in the
 * calling thread and ranks 1 .. n-1 in threads of their own, and returns
 * when all have returned.  Returns 0; a thread that cannot be started
 * ends the run as an allocation failure does. */
typedef void (*comm_rank_fn)(comm *c, void *arg);
int comm_threads_run(unsigned n, comm_rank_fn fn, void *arg);

#endif
