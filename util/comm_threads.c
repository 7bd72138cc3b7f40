/*
 * comm_threads.c — the threads back end of comm.h: ranks are threads of
 * one process.  Each operation meets at a barrier, copies through the
 * shared slots, and meets again, so that no rank reuses its buffer
 * before every rank has read it.
 */
#include "comm.h"

#include "alloc.h"

#include <pthread.h>
#include <string.h>

typedef struct meeting {
    pthread_barrier_t barrier;
    const void **slot;               /* by rank: what it offers */
    size_t *len;
    uint64_t *value;
    const void *const **offer;       /* by rank: comm_exchange()'s data */
    const size_t **offer_len;
} meeting;

typedef struct rank_start {
    comm c;
    comm_rank_fn fn;
    void *arg;
} rank_start;

static int threads_gather(comm *c, const void *data, size_t len,
                          comm_parts *out)
{
    meeting *m = c->impl;
    memset(out, 0, sizeof *out);
    m->slot[c->rank] = data;
    m->len[c->rank] = len;
    pthread_barrier_wait(&m->barrier);
    if (c->rank == 0) {
        out->n = c->size;
        out->data = xcalloc(c->size, sizeof *out->data);
        out->len = xcalloc(c->size, sizeof *out->len);
        for (unsigned r = 0; r < c->size; r++) {
            out->len[r] = m->len[r];
            out->data[r] = xmalloc(m->len[r] + 1);
            if (m->len[r])
                memcpy(out->data[r], m->slot[r], m->len[r]);
        }
    }
    pthread_barrier_wait(&m->barrier);
    return 0;
}

static int threads_broadcast(comm *c, unsigned root, void *data, size_t len)
{
    meeting *m = c->impl;
    if (c->rank == root)
        m->slot[root] = data;
    pthread_barrier_wait(&m->barrier);
    if (c->rank != root && len)
        memcpy(data, m->slot[root], len);
    pthread_barrier_wait(&m->barrier);
    return 0;
}

static int threads_reduce_max(comm *c, uint64_t *value)
{
    meeting *m = c->impl;
    m->value[c->rank] = *value;
    pthread_barrier_wait(&m->barrier);
    uint64_t max = 0;
    for (unsigned r = 0; r < c->size; r++)
        if (m->value[r] > max)
            max = m->value[r];
    pthread_barrier_wait(&m->barrier);
    *value = max;
    return 0;
}

static int threads_exchange(comm *c, const void *const *data,
                            const size_t *len, comm_parts *out)
{
    meeting *m = c->impl;
    m->offer[c->rank] = data;
    m->offer_len[c->rank] = len;
    pthread_barrier_wait(&m->barrier);
    out->n = c->size;
    out->data = xcalloc(c->size, sizeof *out->data);
    out->len = xcalloc(c->size, sizeof *out->len);
    for (unsigned s = 0; s < c->size; s++) {
        size_t n = m->offer_len[s][c->rank];
        out->len[s] = n;
        out->data[s] = xmalloc(n + 1);
        if (n)
            memcpy(out->data[s], m->offer[s][c->rank], n);
    }
    pthread_barrier_wait(&m->barrier);
    return 0;
}

static const comm_ops threads_ops = {threads_gather, threads_broadcast,
                                     threads_reduce_max, threads_exchange};

static void *rank_main(void *p)
{
    rank_start *s = p;
    s->fn(&s->c, s->arg);
    return NULL;
}

int comm_threads_run(unsigned n, comm_rank_fn fn, void *arg)
{
    meeting m;
    m.slot = xcalloc(n, sizeof *m.slot);
    m.len = xcalloc(n, sizeof *m.len);
    m.value = xcalloc(n, sizeof *m.value);
    m.offer = xcalloc(n, sizeof *m.offer);
    m.offer_len = xcalloc(n, sizeof *m.offer_len);
    rank_start *start = xcalloc(n, sizeof *start);
    pthread_t *thread = xcalloc(n, sizeof *thread);
    pthread_barrier_init(&m.barrier, NULL, n);
    for (unsigned r = 0; r < n; r++)
        start[r] = (rank_start){{&threads_ops, r, n, &m}, fn, arg};
    /* a thread that cannot start is memory that ran out (EAGAIN): the
     * ones started would wait at the barrier for ever */
    for (unsigned r = 1; r < n; r++)
        if (pthread_create(&thread[r], NULL, rank_main, &start[r]))
            alloc_fail(0, "a thread acting as a rank");
    fn(&start[0].c, arg);
    for (unsigned r = 1; r < n; r++)
        pthread_join(thread[r], NULL);
    pthread_barrier_destroy(&m.barrier);
    free(thread);
    free(start);
    free(m.slot);
    free(m.len);
    free(m.value);
    free(m.offer);
    free(m.offer_len);
    return 0;
}
