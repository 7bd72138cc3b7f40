/*
 * json_arena.c — cJSON's nodes from an arena (json_arena.h).
 */
#include "json_arena.h"
#include "../util/alloc.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdint.h>

enum { FIRST_CHUNK = 64 << 10, ALIGN = 16 };

/* A chunk too small for an object is kept (cJSON may still point into
 * it) until leave, which frees all but the current one. */
typedef struct used_chunk {
    struct used_chunk *next;
} used_chunk;

struct json_arena {
    char *chunk;
    size_t used, cap;
    used_chunk *retired;  /* earlier chunks, freed at leave */
};

static __thread json_arena *thread_arena;

/* Gives the arena a chunk of at least size bytes beyond what it had. */
static void grow(json_arena *a, size_t size)
{
    size_t cap = a->cap * 2 > size + sizeof(used_chunk) + ALIGN
                     ? a->cap * 2 : size + sizeof(used_chunk) + ALIGN;
    used_chunk *old = (used_chunk *)(void *)a->chunk;
    old->next = a->retired;
    a->retired = old;
    a->chunk = xmalloc(cap);
    a->cap = cap;
    a->used = ALIGN; /* the first bytes hold the link when it retires */
}

static void *arena_malloc(size_t size)
{
    json_arena *a = thread_arena;
    if (!a)
        return xmalloc(size); /* out of memory ends the run: never read
                               * as "invalid JSON" */
    if (size > SIZE_MAX / 4)
        alloc_fail(size, "a JSON value");
    size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if (size > a->cap - a->used)
        grow(a, size);
    void *p = a->chunk + a->used;
    a->used += size;
    return p;
}

static void arena_free(void *p)
{
    if (!thread_arena)
        free(p);
}

static void install(void)
{
    cJSON_Hooks hooks = {.malloc_fn = arena_malloc, .free_fn = arena_free};
    cJSON_InitHooks(&hooks);
}

void json_arena_install(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install);
}

json_arena *json_arena_new(void)
{
    json_arena *a = xcalloc(1, sizeof *a);
    a->chunk = xmalloc(FIRST_CHUNK);
    a->cap = FIRST_CHUNK;
    a->used = ALIGN;
    return a;
}

void json_arena_free(json_arena *a)
{
    if (!a)
        return;
    assert(thread_arena != a);
    free(a->chunk);
    free(a);
}

void json_arena_enter(json_arena *a)
{
    assert(!thread_arena);
    thread_arena = a;
}

void json_arena_leave(json_arena *a)
{
    assert(thread_arena == a);
    thread_arena = NULL;
    while (a->retired) {
        used_chunk *next = a->retired->next;
        free(a->retired);
        a->retired = next;
    }
    a->used = ALIGN;
}
