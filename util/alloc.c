/*
 * alloc.c — allocation that never returns NULL (alloc.h).
 */
#include "alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Noreturn void alloc_fail(size_t bytes, const char *what)
{
    /* one message and one exit when threads (the loader's, the pool's)
     * run out at once: exit() twice at the same time crashed */
    static atomic_flag failing = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&failing))
        for (;;)
            pause();
    if (bytes)
        fprintf(stderr, "spider: out of memory: %zu bytes for %s could not "
                "be allocated\n", bytes, what ? what : "the analysis");
    else /* the size is not known (a hash table growing) */
        fprintf(stderr, "spider: out of memory: %s could not be allocated\n",
                what ? what : "the analysis");
    fflush(stderr);
    _exit(2); /* other threads may run on: no destructors under them */
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        alloc_fail(size, NULL);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        alloc_fail(n * size, NULL);
    return p;
}

void *xmalloc_array(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        alloc_fail(SIZE_MAX, "an array too large to address");
    return xmalloc(n * size);
}

void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        alloc_fail(size, NULL);
    return q;
}

void *xrealloc_array(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        alloc_fail(SIZE_MAX, "an array too large to address");
    return xrealloc(p, n * size);
}

char *xstrdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}

size_t alloc_next_cap(size_t cap, size_t need)
{
    size_t c = cap ? cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return need;
        c *= 2;
    }
    return c;
}
