/*
 * trace_intern.c — interning of strings, shared objects, channels and
 * threads, so that every later step compares integers.
 */
#include "trace_internal.h"

#include <string.h>
#include <uthash.h>

typedef struct str_entry {
    const char *s;      /* points to trace.strings[id] */
    str_id id;
    UT_hash_handle hh;
} str_entry;

/* Key of up to four u32 words: objects use two, channels four, threads one. */
typedef struct key_entry {
    uint32_t key[5];    /* key[0] = kind tag, so one table serves all */
    uint32_t id;
    UT_hash_handle hh;
} key_entry;

typedef struct interner {
    str_entry *strings;
    key_entry *keys;
    uint32_t strings_cap, objects_cap, channels_cap, threads_cap;
} interner;

static interner *get_interner(trace *t)
{
    if (!t->interner)
        t->interner = xcalloc(1, sizeof(interner));
    return t->interner;
}

str_id intern_str(trace *t, const char *s, size_t len)
{
    interner *in = get_interner(t);
    str_entry *e;
    HASH_FIND(hh, in->strings, s, len, e);
    if (e)
        return e->id;
    ENSURE(t->strings, in->strings_cap, t->n_strings + 1);
    char *copy = xmalloc(len + 1);
    memcpy(copy, s, len);
    copy[len] = '\0';
    e = xmalloc(sizeof *e);
    e->s = copy;
    e->id = t->n_strings;
    t->strings[t->n_strings++] = copy;
    HASH_ADD_KEYPTR(hh, in->strings, e->s, len, e);
    return e->id;
}

enum { KEY_OBJECT = 1, KEY_CHANNEL, KEY_THREAD, KEY_NODE };

static key_entry *find_key(interner *in, const uint32_t key[5])
{
    key_entry *e;
    HASH_FIND(hh, in->keys, key, 5 * sizeof(uint32_t), e);
    return e;
}

static void add_key(interner *in, const uint32_t key[5], uint32_t id)
{
    key_entry *e = xcalloc(1, sizeof *e);
    memcpy(e->key, key, sizeof e->key);
    e->id = id;
    HASH_ADD(hh, in->keys, key, sizeof e->key, e);
}

uint32_t intern_object(trace *t, str_id node, str_id name)
{
    interner *in = get_interner(t);
    uint32_t key[5] = {KEY_OBJECT, node, name, 0, 0};
    key_entry *e = find_key(in, key);
    if (e)
        return e->id;
    ENSURE(t->objects, in->objects_cap, t->n_objects + 1);
    t->objects[t->n_objects] = (shared_object){node, name};
    add_key(in, key, t->n_objects);
    return t->n_objects++;
}

uint32_t intern_channel(trace *t, const channel *c)
{
    interner *in = get_interner(t);
    uint32_t key[5] = {KEY_CHANNEL, c->src, c->src_port, c->dst, c->dst_port};
    key_entry *e = find_key(in, key);
    if (e)
        return e->id;
    ENSURE(t->channels, in->channels_cap, t->n_channels + 1);
    t->channels[t->n_channels] = *c;
    add_key(in, key, t->n_channels);
    return t->n_channels++;
}

int32_t find_thread(const trace *t, str_id name)
{
    if (!t->interner)
        return NONE;
    uint32_t key[5] = {KEY_THREAD, name, 0, 0, 0};
    key_entry *e = find_key(t->interner, key);
    return e ? (int32_t)e->id : NONE;
}

static void count_node(trace *t, str_id node)
{
    interner *in = get_interner(t);
    uint32_t key[5] = {KEY_NODE, node, 0, 0, 0};
    if (!find_key(in, key))
        add_key(in, key, t->n_nodes++);
}

uint32_t intern_thread(trace *t, str_id name)
{
    int32_t found = find_thread(t, name);
    if (found != NONE)
        return (uint32_t)found;
    interner *in = get_interner(t);
    const char *s = t->strings[name];
    const char *at = strchr(s, '@');
    str_id node = at ? intern_str(t, at + 1, strlen(at + 1)) : name;
    count_node(t, node);
    ENSURE(t->threads, in->threads_cap, t->n_threads + 1);
    t->threads[t->n_threads] = (thread_info){
        .name = name, .node = node, .events = NULL, .n_events = 0,
        .create = NONE};
    uint32_t key[5] = {KEY_THREAD, name, 0, 0, 0};
    add_key(in, key, t->n_threads);
    return t->n_threads++;
}

void interner_free(trace *t)
{
    interner *in = t->interner;
    if (!in)
        return;
    str_entry *s, *stmp;
    HASH_ITER(hh, in->strings, s, stmp) {
        HASH_DEL(in->strings, s);
        free(s);
    }
    key_entry *k, *ktmp;
    HASH_ITER(hh, in->keys, k, ktmp) {
        HASH_DEL(in->keys, k);
        free(k);
    }
    free(in);
    t->interner = NULL;
}
