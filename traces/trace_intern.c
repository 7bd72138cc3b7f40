/*
 * trace_intern.c — interning of strings, shared objects, channels and
 * threads, so that every later step compares integers.
 *
 * Each kind has an open-addressing table of (hash, id) pairs, the keys
 * themselves being read from the trace's arrays: a lookup touches one
 * cache line of the table and the one string it compares.  (uthash, which
 * spider uses elsewhere, chains a malloc'd entry per key and expands a
 * table only when a chain reaches ten: a fifth of the loading time went
 * into walking its chains, five strings and three keys per event.)
 */
#include "trace_internal.h"

#include <stdint.h>
#include <string.h>

typedef struct intern_slot {
    uint32_t hash;
    uint32_t id_plus1;      /* 0: empty */
} intern_slot;

typedef struct intern_table {
    intern_slot *slots;
    uint32_t mask;          /* capacity - 1; capacity a power of two */
    uint32_t count;
} intern_table;

typedef struct interner {
    intern_table strings, objects, channels, threads;
    intern_table nodes;     /* ids are the nodes' names (str_id) */
    uint32_t strings_cap, objects_cap, channels_cap, threads_cap;
} interner;

/* The strings of a trace are stored one after another in blocks, each as
 * its length (4 bytes), its bytes and a NUL: one allocation per block,
 * not per string, and a comparison reads the length next to the bytes. */
typedef struct string_block {
    struct string_block *next;
    size_t used, cap;
    char bytes[];
} string_block;

enum { STRING_BLOCK = 64 << 10 };

/* A copy of s[0..len) with its length before it, kept until trace_free. */
static char *store_string(trace *t, const char *s, size_t len)
{
    uint32_t len32 = (uint32_t)len;
    size_t need = (sizeof len32 + len + 1 + 3) & ~(size_t)3;
    string_block *b = t->string_blocks;
    if (!b || b->cap - b->used < need) {
        size_t cap = need > STRING_BLOCK ? need : STRING_BLOCK;
        string_block *nb = xmalloc(sizeof *nb + cap);
        *nb = (string_block){.next = b, .used = 0, .cap = cap};
        t->string_blocks = b = nb;
    }
    char *at = b->bytes + b->used;
    b->used += need;
    memcpy(at, &len32, sizeof len32);
    memcpy(at + sizeof len32, s, len);
    at[sizeof len32 + len] = '\0';
    return at + sizeof len32;
}

void interned_strings_free(trace *t)
{
    for (string_block *b = t->string_blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    t->string_blocks = NULL;
}

/* 8 bytes a step, multiply and shift (murmur's finaliser). */
static uint32_t intern_hash(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t h = (uint64_t)len * 0x9E3779B97F4A7C15u, w;
    for (; len >= 8; p += 8, len -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, p, len);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
    return (uint32_t)(h ^ (h >> 32));
}

static interner *get_interner(trace *t)
{
    if (!t->interner)
        t->interner = xcalloc(1, sizeof(interner));
    return t->interner;
}

/* The slot of tb where hash's search starts. */
static uint32_t first_slot(const intern_table *tb, uint32_t hash)
{
    return (hash ^ (hash >> 16)) & tb->mask;
}

/* Adds id under hash (not present yet), doubling the table at half full. */
static void table_add(intern_table *tb, uint32_t hash, uint32_t id)
{
    if (!tb->slots || tb->count + 1 > (tb->mask + 1) / 2) {
        uint32_t cap = tb->slots ? (tb->mask + 1) * 2 : 64;
        if (!cap)
            alloc_fail(SIZE_MAX, "an intern table");
        intern_table grown = {xcalloc(cap, sizeof(intern_slot)), cap - 1,
                              tb->count};
        for (uint32_t i = 0; tb->slots && i <= tb->mask; i++)
            if (tb->slots[i].id_plus1) {
                uint32_t j = first_slot(&grown, tb->slots[i].hash);
                while (grown.slots[j].id_plus1)
                    j = (j + 1) & grown.mask;
                grown.slots[j] = tb->slots[i];
            }
        free(tb->slots);
        *tb = grown;
    }
    uint32_t j = first_slot(tb, hash);
    while (tb->slots[j].id_plus1)
        j = (j + 1) & tb->mask;
    tb->slots[j] = (intern_slot){hash, id + 1};
    tb->count++;
}

enum { NO_ID = UINT32_MAX };

/* Whether the entry id of a table holds key. */
typedef int same_key_fn(const trace *t, uint32_t id, const void *key);

/* The first id stored under hash in tb whose entry holds key, or NO_ID. */
static inline uint32_t table_find(const intern_table *tb, uint32_t hash,
                                  same_key_fn *same, const trace *t,
                                  const void *key)
{
    if (!tb->slots)
        return NO_ID;
    for (uint32_t j = first_slot(tb, hash); tb->slots[j].id_plus1;
         j = (j + 1) & tb->mask)
        if (tb->slots[j].hash == hash &&
            same(t, tb->slots[j].id_plus1 - 1, key))
            return tb->slots[j].id_plus1 - 1;
    return NO_ID;
}

typedef struct text_key {
    const char *s;
    size_t len;
} text_key;

static int same_string(const trace *t, uint32_t id, const void *key)
{
    const text_key *k = key;
    return interned_len(t, id) == k->len &&
           memcmp(t->strings[id], k->s, k->len) == 0;
}

/* intern_str() with s's hash known. */
static str_id intern_hashed(trace *t, const char *s, size_t len,
                            uint32_t hash)
{
    interner *in = get_interner(t);
    text_key key = {s, len};
    uint32_t found = table_find(&in->strings, hash, same_string, t, &key);
    if (found != NO_ID)
        return found;
    if (len > UINT32_MAX - 8)
        alloc_fail(len, "a string");
    ENSURE(t->strings, in->strings_cap, t->n_strings + 1);
    t->strings[t->n_strings] = store_string(t, s, len);
    table_add(&in->strings, hash, t->n_strings);
    return t->n_strings++;
}

str_id intern_str(trace *t, const char *s, size_t len)
{
    return intern_hashed(t, s, len, intern_hash(s, len));
}

void intern_strings_of(trace *t, const trace *from, str_id *ids)
{
    enum { AHEAD = 8, RING = 4 * AHEAD }; /* RING > 2 * AHEAD, a power of 2 */
    uint32_t hashes[RING];
    const intern_table *tb = &get_interner(t)->strings;
    uint32_t n = from->n_strings;
    for (uint32_t i = 0; i < n + 2 * AHEAD; i++) {
        if (i < n) { /* stage 1: the slot where its search starts */
            hashes[i % RING] = intern_hash(from->strings[i],
                                           interned_len(from, i));
            if (tb->slots)
                __builtin_prefetch(&tb->slots[first_slot(tb, hashes[i % RING])]);
        }
        uint32_t j = i - AHEAD; /* stage 2: the string that slot names */
        if (i >= AHEAD && j < n && tb->slots) {
            const intern_slot *sl = &tb->slots[first_slot(tb, hashes[j % RING])];
            if (sl->id_plus1)
                __builtin_prefetch(t->strings[sl->id_plus1 - 1] - sizeof(uint32_t));
        }
        uint32_t k = i - 2 * AHEAD; /* stage 3: found or added */
        if (i >= 2 * AHEAD && k < n)
            ids[k] = intern_hashed(t, from->strings[k], interned_len(from, k),
                                   hashes[k % RING]);
    }
}

static int same_object(const trace *t, uint32_t id, const void *key)
{
    const shared_object *o = key;
    return t->objects[id].node == o->node && t->objects[id].name == o->name;
}

uint32_t intern_object(trace *t, str_id node, str_id name)
{
    interner *in = get_interner(t);
    shared_object key = {node, name};
    uint32_t hash = intern_hash(&key, sizeof key);
    uint32_t found = table_find(&in->objects, hash, same_object, t, &key);
    if (found != NO_ID)
        return found;
    ENSURE(t->objects, in->objects_cap, t->n_objects + 1);
    t->objects[t->n_objects] = key;
    table_add(&in->objects, hash, t->n_objects);
    return t->n_objects++;
}

static int same_channel(const trace *t, uint32_t id, const void *key)
{
    const channel *o = &t->channels[id], *c = key;
    return o->src == c->src && o->src_port == c->src_port &&
           o->dst == c->dst && o->dst_port == c->dst_port;
}

uint32_t intern_channel(trace *t, const channel *c)
{
    interner *in = get_interner(t);
    uint32_t hash = intern_hash(c, sizeof *c);
    uint32_t found = table_find(&in->channels, hash, same_channel, t, c);
    if (found != NO_ID)
        return found;
    ENSURE(t->channels, in->channels_cap, t->n_channels + 1);
    t->channels[t->n_channels] = *c;
    table_add(&in->channels, hash, t->n_channels);
    return t->n_channels++;
}

static uint32_t hash_id(str_id name)
{
    return intern_hash(&name, sizeof name);
}

static int same_thread(const trace *t, uint32_t id, const void *key)
{
    return t->threads[id].name == *(const str_id *)key;
}

int32_t find_thread(const trace *t, str_id name)
{
    if (!t->interner)
        return NONE;
    const interner *in = t->interner;
    uint32_t id = table_find(&in->threads, hash_id(name),
                             same_thread, t, &name);
    return id == NO_ID ? NONE : (int32_t)id;
}

static int same_node(const trace *t, uint32_t id, const void *key)
{
    (void)t;
    return id == *(const str_id *)key;
}

static void count_node(trace *t, str_id node)
{
    interner *in = get_interner(t);
    uint32_t hash = hash_id(node);
    if (table_find(&in->nodes, hash, same_node, t, &node) != NO_ID)
        return;
    table_add(&in->nodes, hash, node);
    t->n_nodes++;
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
    table_add(&in->threads, hash_id(name), t->n_threads);
    return t->n_threads++;
}

void interner_free(trace *t)
{
    interner *in = t->interner;
    if (!in)
        return;
    free(in->strings.slots);
    free(in->objects.slots);
    free(in->channels.slots);
    free(in->threads.slots);
    free(in->nodes.slots);
    free(in);
    t->interner = NULL;
}
