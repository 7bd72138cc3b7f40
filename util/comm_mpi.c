/*
 * comm_mpi.c — the MPI back end of comm.h (bin/spider-mpi, make MPI=1):
 * the ranks of MPI_COMM_WORLD.  Data goes in pieces of at most 1 GiB,
 * since MPI counts are ints.
 */
#include "comm.h"
#include "comm_mpi.h"

#include "alloc.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

enum { PIECE = 1 << 30 };

static int send_bytes(const void *data, size_t len, int to)
{
    const char *p = data;
    for (size_t at = 0; at < len; at += PIECE) {
        int n = (int)(len - at < PIECE ? len - at : PIECE);
        if (MPI_Send(p + at, n, MPI_BYTE, to, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
            return -1;
    }
    return 0;
}

static int recv_bytes(void *data, size_t len, int from)
{
    char *p = data;
    for (size_t at = 0; at < len; at += PIECE) {
        int n = (int)(len - at < PIECE ? len - at : PIECE);
        if (MPI_Recv(p + at, n, MPI_BYTE, from, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
    }
    return 0;
}

/* Rank by rank, so that rank 0 holds one message at a time beside what
 * it keeps. */
static int mpi_gather(comm *c, const void *data, size_t len, comm_parts *out)
{
    memset(out, 0, sizeof *out);
    uint64_t n = len;
    if (c->rank != 0) {
        if (MPI_Send(&n, 1, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
            return -1;
        return send_bytes(data, len, 0);
    }
    out->n = c->size;
    out->data = xcalloc(c->size, sizeof *out->data);
    out->len = xcalloc(c->size, sizeof *out->len);
    out->data[0] = xmalloc(len + 1);
    memcpy(out->data[0], data, len);
    out->len[0] = len;
    for (unsigned r = 1; r < c->size; r++) {
        if (MPI_Recv(&n, 1, MPI_UINT64_T, (int)r, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        out->len[r] = (size_t)n;
        out->data[r] = xmalloc((size_t)n + 1);
        if (recv_bytes(out->data[r], (size_t)n, (int)r) != 0)
            return -1;
    }
    return 0;
}

static int mpi_broadcast(comm *c, unsigned root, void *data, size_t len)
{
    (void)c;
    char *p = data;
    for (size_t at = 0; at < len; at += PIECE) {
        int n = (int)(len - at < PIECE ? len - at : PIECE);
        if (MPI_Bcast(p + at, n, MPI_BYTE, (int)root, MPI_COMM_WORLD) != MPI_SUCCESS)
            return -1;
    }
    return 0;
}

static int mpi_reduce_max(comm *c, uint64_t *value)
{
    (void)c;
    uint64_t in = *value;
    return MPI_Allreduce(&in, value, 1, MPI_UINT64_T, MPI_MAX,
                         MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

/* len bytes at `out` to rank `to` while recv_len bytes come from rank
 * `from` into in, each in pieces: as many messages as pieces, none for
 * no bytes (a receive of nothing would still wait for a message). */
static int swap_bytes(const char *out, size_t len, int to, char *in,
                      size_t recv_len, int from)
{
    size_t n_out = (len + PIECE - 1) / PIECE, n_in = (recv_len + PIECE - 1) / PIECE;
    MPI_Request *req = xcalloc(n_out + n_in + 1, sizeof *req);
    int rc = 0;
    size_t k = 0;
    for (size_t at = 0; at < recv_len && rc == 0; at += PIECE, k++)
        rc = MPI_Irecv(in + at, (int)(recv_len - at < PIECE ? recv_len - at : PIECE),
                       MPI_BYTE, from, 1, MPI_COMM_WORLD, &req[k]) != MPI_SUCCESS;
    for (size_t at = 0; at < len && rc == 0; at += PIECE, k++)
        rc = MPI_Isend(out + at, (int)(len - at < PIECE ? len - at : PIECE),
                       MPI_BYTE, to, 1, MPI_COMM_WORLD, &req[k]) != MPI_SUCCESS;
    if (rc == 0 && k)
        rc = MPI_Waitall((int)k, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS;
    free(req);
    return rc ? -1 : 0;
}

/* The lengths all to all, then the bytes with one pair of ranks at a
 * time (rank r sends to r + k while it receives from r - k): no copy of
 * what is sent, and no count above an int. */
static int mpi_exchange(comm *c, const void *const *data, const size_t *len,
                        comm_parts *out)
{
    unsigned n = c->size, r = c->rank;
    uint64_t *send_len = xcalloc(n, sizeof *send_len);
    uint64_t *recv_len = xcalloc(n, sizeof *recv_len);
    for (unsigned d = 0; d < n; d++)
        send_len[d] = len[d];
    int rc = MPI_Alltoall(send_len, 1, MPI_UINT64_T, recv_len, 1,
                          MPI_UINT64_T, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
    out->n = n;
    out->data = xcalloc(n, sizeof *out->data);
    out->len = xcalloc(n, sizeof *out->len);
    for (unsigned s = 0; s < n; s++) {
        out->len[s] = rc == 0 ? (size_t)recv_len[s] : 0;
        out->data[s] = xmalloc(out->len[s] + 1);
    }
    if (rc == 0 && len[r])
        memcpy(out->data[r], data[r], len[r]);
    for (unsigned k = 1; k < n && rc == 0; k++) {
        unsigned to = (r + k) % n, from = (r + n - k) % n;
        rc = swap_bytes(data[to], len[to], (int)to, out->data[from],
                        out->len[from], (int)from);
    }
    free(send_len);
    free(recv_len);
    return rc;
}

static const comm_ops mpi_ops = {mpi_gather, mpi_broadcast, mpi_reduce_max,
                                 mpi_exchange};

comm *comm_mpi_world(int *argc, char ***argv)
{
    int provided, rank, size;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return NULL;
    /* errors come back as codes, said as one line, not an abort */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    comm *c = xcalloc(1, sizeof *c);
    *c = (comm){&mpi_ops, (unsigned)rank, (unsigned)size, NULL};
    return c;
}

void comm_mpi_end(comm *c)
{
    free(c);
    MPI_Finalize();
}
