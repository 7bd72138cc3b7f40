/*
 * json_arena.h — cJSON's nodes from an arena, one object at a time.
 *
 * The loader parses an event object with cJSON, converts it and drops the
 * tree; with malloc that costs a malloc and a free per node and string
 * (a fifth of the loading time).  Between json_arena_enter() and
 * json_arena_leave() every cJSON allocation of the calling thread comes
 * from the arena by bumping a pointer, cJSON's frees do nothing, and
 * leaving releases it all at once.  Other threads, and this one outside
 * an arena, get malloc and free as before.
 *
 * cJSON's hooks are process-wide and carry no context: the arena in use is
 * a thread-local pointer, the only mutable state of this module, set only
 * between enter and leave.
 *
 * Ownership: the caller owns an arena (json_arena_new, json_arena_free).
 * A tree parsed inside an arena must not be used or deleted after leaving
 * it (cJSON_Delete inside is harmless).  Allocation failure ends the run
 * (alloc.h), so a parse never fails for want of memory.
 */
#ifndef SPIDER_JSON_ARENA_H
#define SPIDER_JSON_ARENA_H

typedef struct json_arena json_arena;

/* Installs the hooks into cJSON, once per process (later calls do
 * nothing): before any thread uses cJSON, whose hooks are not guarded. */
void json_arena_install(void);

json_arena *json_arena_new(void);
void json_arena_free(json_arena *a);

/* The calling thread's cJSON allocations come from a until leave, which
 * releases them; enter/leave pairs do not nest.  A tree made outside
 * must not be deleted inside: its memory would not be freed. */
void json_arena_enter(json_arena *a);
void json_arena_leave(json_arena *a);

#endif
