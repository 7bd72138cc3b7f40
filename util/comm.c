/*
 * comm.c — what comm.h's back ends share.
 */
#include "comm.h"

#include "alloc.h"

#include <stdlib.h>
#include <string.h>

void comm_parts_free(comm_parts *p)
{
    for (unsigned r = 0; r < p->n; r++)
        free(p->data[r]);
    free(p->data);
    free(p->len);
    memset(p, 0, sizeof *p);
}

int comm_allgather(comm *c, const void *data, size_t len, comm_parts *out)
{
    unsigned n = comm_size(c);
    const void **each = xcalloc(n, sizeof *each);
    size_t *lens = xcalloc(n, sizeof *lens);
    for (unsigned r = 0; r < n; r++) {
        each[r] = data;
        lens[r] = len;
    }
    int rc = comm_exchange(c, each, lens, out);
    free(each);
    free(lens);
    return rc;
}

int comm_reduce_sum(comm *c, uint64_t *value)
{
    comm_parts got;
    int rc = comm_allgather(c, value, sizeof *value, &got);
    uint64_t sum = 0;
    for (unsigned r = 0; rc == 0 && r < got.n; r++) {
        uint64_t v = 0;
        if (got.len[r] == sizeof v)
            memcpy(&v, got.data[r], sizeof v);
        sum += v;
    }
    comm_parts_free(&got);
    if (rc == 0)
        *value = sum;
    return rc;
}

/* Sorts piece indices by size, largest first, the first of equal ones
 * first (a merge sort: stable, and n may be millions of batches). */
static void sort_by_size(const uint64_t *size, uint32_t *idx, uint32_t *tmp,
                         uint32_t n)
{
    if (n < 2)
        return;
    uint32_t h = n / 2;
    sort_by_size(size, idx, tmp, h);
    sort_by_size(size, idx + h, tmp, n - h);
    uint32_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = size[idx[j]] > size[idx[i]] ? idx[j++] : idx[i++];
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, (size_t)n * sizeof *idx);
}

void comm_deal(const uint64_t *size, uint32_t n, unsigned ranks,
               uint32_t *owner)
{
    uint64_t *load = xcalloc(ranks ? ranks : 1, sizeof *load);
    comm_deal_onto(size, n, ranks, load, owner);
    free(load);
}

void comm_deal_onto(const uint64_t *size, uint32_t n, unsigned ranks,
                    uint64_t *load, uint32_t *owner)
{
    uint32_t *idx = xmalloc_array((size_t)n + 1, sizeof *idx);
    uint32_t *tmp = xmalloc_array((size_t)n + 1, sizeof *tmp);
    for (uint32_t i = 0; i < n; i++)
        idx[i] = i;
    sort_by_size(size, idx, tmp, n);
    for (uint32_t i = 0; i < n; i++) {
        unsigned least = 0;
        for (unsigned r = 1; r < ranks; r++)
            if (load[r] < load[least])
                least = r;
        owner[idx[i]] = least;
        load[least] += size[idx[i]] + 1;
    }
    free(tmp);
    free(idx);
}
