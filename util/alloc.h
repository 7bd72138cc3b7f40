/*
 * alloc.h — the one allocation helper of every module (git's xmalloc and
 * ALLOC_GROW).
 *
 * Every function here either returns usable memory or ends the process:
 * on allocation failure it prints one line "spider: out of memory: ..."
 * (how many bytes, and for what when the caller says) to stderr and exits
 * with status 2 (SPEC §6: an allocation failure is an error, never a
 * verdict).  So a caller never checks for NULL, and no partial result can
 * be printed after memory ran out.
 *
 * Ownership: the caller owns what these return and frees it with free().
 */
#ifndef SPIDER_ALLOC_H
#define SPIDER_ALLOC_H

#include <stddef.h>
#include <stdlib.h> /* free() */

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);           /* zeroed; n * size checked */
void *xrealloc(void *p, size_t size);
void *xmalloc_array(size_t n, size_t size);     /* n * size checked */
void *xrealloc_array(void *p, size_t n, size_t size);
char *xstrdup(const char *s);                   /* NULL stays NULL */

/* Ends the run: "spider: out of memory: <bytes> bytes for <what>". */
_Noreturn void alloc_fail(size_t bytes, const char *what);

/* uthash (the hash tables of the loader, the engine and pruning) would
 * end the run with exit(-1) and no word when a table cannot grow: include
 * this header before <uthash.h> to get the message and status of any
 * allocation failure instead. */
#define uthash_fatal(msg) alloc_fail(0, "a hash table (" msg ")")

/* The capacity after growing from cap to hold at least need elements. */
size_t alloc_next_cap(size_t cap, size_t need);

/* Makes arr (with capacity cap, any integer type) hold at least need
 * elements, doubling; cap is updated.  Ends the run if the new capacity
 * does not fit cap's type or memory runs out. */
#define ALLOC_GROW(arr, need, cap)                                           \
    do {                                                                     \
        if ((size_t)(need) > (size_t)(cap)) {                                \
            size_t alloc_c_ = alloc_next_cap((size_t)(cap), (size_t)(need)); \
            if ((size_t)(__typeof__(cap))alloc_c_ != alloc_c_)               \
                alloc_fail(alloc_c_ * sizeof *(arr), "a growing array");     \
            (arr) = xrealloc_array((arr), alloc_c_, sizeof *(arr));          \
            (cap) = (__typeof__(cap))alloc_c_;                               \
        }                                                                    \
    } while (0)

#endif
