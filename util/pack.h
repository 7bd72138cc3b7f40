/*
 * pack.h — bytes as the ranks of a split run send them (util/comm.h):
 * a growable buffer to put values into, and a reader that takes them out
 * in the same order.  Values are in the host's layout: the ranks of one
 * job run one build on one architecture.
 *
 * Ownership: a pack's bytes are its owner's (free(p->data)); an unpack
 * borrows the bytes it reads.  Failure: allocation failure ends the run
 * (alloc.h); reading past the end sets `bad` and yields zeros.
 */
#ifndef SPIDER_PACK_H
#define SPIDER_PACK_H

#include "alloc.h"

#include <stdint.h>
#include <string.h>

typedef struct pack {
    char *data;
    size_t n, cap;
} pack;

static inline void pack_put(pack *p, const void *data, size_t len)
{
    ALLOC_GROW(p->data, p->n + len, p->cap);
    if (len)
        memcpy(p->data + p->n, data, len);
    p->n += len;
}

static inline void pack_u32(pack *p, uint32_t v) { pack_put(p, &v, sizeof v); }

/* A text: its length, its bytes and a NUL, so that the reader can leave
 * it where it is (unpack_text()). */
static inline void pack_text(pack *p, const char *s, size_t len)
{
    pack_u32(p, (uint32_t)len);
    pack_put(p, s, len);
    pack_put(p, "", 1);
}

typedef struct unpack {
    const char *p, *end;
    int bad;                         /* read past the end */
} unpack;

static inline unpack unpack_of(const void *data, size_t len)
{
    return (unpack){data, (const char *)data + len, 0};
}

/* The next len bytes, or NULL (and bad) when fewer are left. */
static inline const void *unpack_take(unpack *u, size_t len)
{
    if ((size_t)(u->end - u->p) < len) {
        u->bad = 1;
        return NULL;
    }
    const void *at = u->p;
    u->p += len;
    return at;
}

/* Copies the next len bytes into out (zeros when they are missing). */
static inline void unpack_get(unpack *u, void *out, size_t len)
{
    const void *at = unpack_take(u, len);
    if (at)
        memcpy(out, at, len);
    else
        memset(out, 0, len);
}

static inline uint32_t unpack_u32(unpack *u)
{
    uint32_t v;
    unpack_get(u, &v, sizeof v);
    return v;
}

/* A text pack_text() put, left in the bytes (NUL-terminated, its length
 * in the four bytes before it); "" when missing. */
static inline const char *unpack_text(unpack *u, size_t *len)
{
    uint32_t n = unpack_u32(u);
    const char *s = u->bad ? NULL : unpack_take(u, (size_t)n + 1);
    *len = s ? n : 0;
    return s ? s : "";
}

#endif
