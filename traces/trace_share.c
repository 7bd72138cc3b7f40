/*
 * trace_share.c — trace_load_share(): each rank of a split run holds
 * only its share of the trace, the events of its own nodes and the
 * other nodes' message endpoints that may match them (trace.h).
 *
 * The steps, all collective:
 *  1. the plan of trace_load_ranks() (trace_ranks.c): every rank plans
 *     the load, the ranks agree, the files are dealt out by size; each
 *     rank reads its own files into parts on its loader threads;
 *  2. every rank sends rank 0 what its parts hold (status, warnings,
 *     threads and their event counts); rank 0 walks the plan as
 *     trace_load() would (warnings printed in order, the first error,
 *     too many events), numbers the events, deals the nodes out and
 *     broadcasts the outcome;
 *  3. the message endpoints: each SND and RCV goes, by the hash of its
 *     message id (or TCP channel), to a home rank, which answers, for
 *     every endpoint, the other ranks whose nodes hold an endpoint of
 *     the opposite kind with the same key;
 *  4. each file's events go, in file order, to their node's owner and to
 *     the ranks step 3 named; every rank merges what it receives in file
 *     order, as trace_load() merges parts, and derives the share.
 */
#include "trace_internal.h"
#include "json_arena.h"
#include "trace_event.h"
#include "../util/comm.h"
#include "../util/pack.h"

/* glibc's own heap only: under AddressSanitizer malloc is not glibc's */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#define GIVE_BACK_FREED 1
#include <malloc.h>
#endif

/* A file read here. */
typedef struct own_file {
    uint32_t step;
    int rc;
    char *err, *warnings;
    size_t warnings_len;
    trace *part;
    /* from rank 0 (step 2): */
    uint32_t offset;       /* the whole trace's id of its first event */
    uint32_t *thread_at;   /* per part thread: its events in files before */
    uint32_t *owner;       /* per part thread: its node's rank */
    /* step 3: per event, the other ranks it goes to, [dest_start[i],
     * dest_start[i + 1]) of dests */
    uint32_t *dest_start, *dests;
} own_file;

typedef struct share_load {
    comm *c;
    const trace_options *opts;
    load_plan plan;
    own_file *own;
    uint32_t n_own;
    char *err;
    size_t err_len;
    trace_share *out;
    uint32_t *step_events;  /* per step: its file's events (0: no file) */
    uint64_t incoming;      /* events this rank's share will hold */
    load_state merged;      /* the share, as it is merged */
} share_load;

/* ---- 1. reading the rank's own files ---------------------------------- */

static void read_own(share_load *s)
{
    const load_plan *p = &s->plan;
    char **paths = xmalloc_array(p->n ? p->n : 1, sizeof *paths);
    s->own = xcalloc(p->n ? p->n : 1, sizeof *s->own);
    for (uint32_t i = 0; i < p->n; i++)
        if (p->steps[i].kind == STEP_READ &&
            p->steps[i].owner == comm_rank(s->c)) {
            s->own[s->n_own].step = i;
            paths[s->n_own++] = p->steps[i].text;
        }
    trace_options read_opts = *s->opts;
    read_opts.warnings = stderr; /* kept as printed, for rank 0 to print */
    file_pool *fp = file_pool_start(&read_opts, paths, NULL, s->n_own,
                                    s->err_len, loader_threads(s->opts));
    for (uint32_t k = 0; k < s->n_own; k++) {
        file_job *job = file_pool_wait(fp, k);
        own_file *f = &s->own[k];
        f->rc = job->rc;
        f->err = xstrdup(job->err);
        f->part = job->part; /* taken from the job, which frees the rest */
        interner_free(f->part); /* looked nothing up from now on */
        f->warnings = job->warnings;
        f->warnings_len = job->warnings_len;
        job->part = NULL;
        job->warnings = NULL;
        file_pool_merged(fp, k, 0);
    }
    file_pool_end(fp);
    free(paths);
}

/* ---- 2. rank 0 walks the plan ----------------------------------------- */

static void pack_status(const share_load *s, pack *b)
{
    pack_u32(b, s->n_own);
    for (uint32_t k = 0; k < s->n_own; k++) {
        const own_file *f = &s->own[k];
        const trace *t = f->part;
        pack_u32(b, f->step);
        pack_put(b, &f->rc, sizeof f->rc);
        pack_text(b, f->err, strlen(f->err));
        pack_text(b, f->warnings ? f->warnings : "", f->warnings_len);
        pack_put(b, &t->stats, sizeof t->stats);
        pack_u32(b, t->n_events);
        pack_u32(b, t->n_files);
        pack_u32(b, t->n_threads);
        for (uint32_t i = 0; i < t->n_threads; i++) {
            const char *name = t->strings[t->threads[i].name];
            pack_text(b, name, strlen(name));
        }
        /* events per thread */
        uint32_t *count = xcalloc(t->n_threads + 1, sizeof *count);
        for (uint32_t i = 0; i < t->n_events; i++)
            count[t->events[i].thread]++;
        pack_put(b, count, (size_t)t->n_threads * sizeof *count);
        free(count);
    }
}

/* A file as rank 0 reads its status. */
typedef struct file_status {
    int rc, have;
    const char *err, *warnings;
    size_t warnings_len;
    trace_stats stats;
    uint32_t n_events, n_files, n_threads;
    uint32_t *thread;      /* per part thread: its id in the names table */
    uint32_t *count;
} file_status;

/* The files' statuses by step, from every rank's message; names interns
 * the thread names.  0, or -1 when a message is cut short. */
static int read_statuses(const share_load *s, const comm_parts *parts,
                         file_status *st, trace *names)
{
    for (unsigned r = 0; r < parts->n; r++) {
        unpack u = unpack_of(parts->data[r], parts->len[r]);
        uint32_t n = unpack_u32(&u);
        for (uint32_t k = 0; k < n && !u.bad; k++) {
            uint32_t step = unpack_u32(&u);
            if (step >= s->plan.n)
                return -1;
            file_status *f = &st[step];
            size_t len;
            f->have = 1;
            unpack_get(&u, &f->rc, sizeof f->rc);
            f->err = unpack_text(&u, &len);
            f->warnings = unpack_text(&u, &f->warnings_len);
            unpack_get(&u, &f->stats, sizeof f->stats);
            f->n_events = unpack_u32(&u);
            f->n_files = unpack_u32(&u);
            f->n_threads = unpack_u32(&u);
            f->thread = xmalloc_array(f->n_threads + 1, sizeof *f->thread);
            for (uint32_t i = 0; i < f->n_threads && !u.bad; i++) {
                const char *name = unpack_text(&u, &len);
                f->thread[i] = intern_thread(names,
                                             intern_str(names, name, len));
            }
            f->count = xmalloc_array(f->n_threads + 1, sizeof *f->count);
            unpack_get(&u, f->count, (size_t)f->n_threads * sizeof *f->count);
        }
        if (u.bad)
            return -1;
    }
    return 0;
}

/* The whole load's outcome, as rank 0 broadcasts it. */
typedef struct outcome {
    int rc;
    char *err;
    trace_stats stats;
    uint32_t n_events;
    uint32_t n_files;      /* read, as trace_load() counts them */
    uint32_t n_nodes;
    uint32_t *node_owner;  /* by node in order of first appearance */
    /* per step: its first event's id, and per part thread its events in
     * earlier files and its node's rank */
    uint32_t *offset;
    uint32_t **thread_at, **owner;
} outcome;

/* Rank 0's walk of the plan: trace_load()'s warnings, in order, into
 * opts->warnings, its first error, and the events numbered. */
static void walk_plan(share_load *s, file_status *st, trace *names,
                      outcome *o)
{
    load_state ls = {.t = names, .opts = s->opts, .err = o->err,
                     .err_len = s->err_len};
    uint64_t total = 0;
    const char *first_file = NULL;
    for (uint32_t i = 0; i < s->plan.n && o->rc == TRACE_OK; i++) {
        const load_step *p = &s->plan.steps[i];
        file_status *f = &st[i];
        switch (p->kind) {
        case STEP_READ:
            o->offset[i] = (uint32_t)total;
            if (f->warnings_len && s->opts->warnings)
                fwrite(f->warnings, 1, f->warnings_len, s->opts->warnings);
            names->stats.warnings += f->stats.warnings;
            if (f->rc != TRACE_OK) {
                snprintf(o->err, s->err_len, "%s", f->err);
                o->rc = TRACE_ERR;
            } else if (f->n_files && total + f->n_events > UINT32_MAX - 1) {
                snprintf(o->err, s->err_len, "%s: too many events", p->text);
                o->rc = TRACE_ERR;
            } else if (f->n_files) {
                first_file = first_file ? first_file : p->text;
                total += f->n_events;
                o->n_files += f->n_files;
                add_part_stats(&names->stats, &f->stats);
            }
            break;
        case STEP_READ_ALREADY: /* names' stats count the whole load */
            o->rc = skip_read_already(&ls, p->text);
            break;
        case STEP_SKIPPED:
            names->stats.files_skipped++;
            trace_warn(names, s->opts, "%s", p->text);
            break;
        case STEP_ERROR:
            snprintf(o->err, s->err_len, "%s", p->text);
            o->rc = TRACE_ERR;
            break;
        }
    }
    o->stats = names->stats;
    if (o->rc == TRACE_OK && total == 0 && !o->stats.interrupted) {
        snprintf(o->err, s->err_len, "%s: no events in the trace",
                 first_file ? first_file : "input");
        o->rc = TRACE_ERR;
    }
    o->n_events = (uint32_t)total;
}

/* Nodes to ranks (trace_load_share() says how); fills o->node_owner by
 * names' node ids, in order of first appearance. */
static void deal_nodes(const share_load *s, const file_status *st,
                       const trace *names, outcome *o)
{
    unsigned ranks = comm_size(s->c);
    uint32_t n_str = names->n_strings;
    /* per node (by str id): its number, events, and the one rank that
     * read it alone, or UINT32_MAX when none did */
    uint32_t *number = xmalloc_array(n_str + 1, sizeof *number);
    for (uint32_t i = 0; i < n_str; i++)
        number[i] = UINT32_MAX;
    uint64_t *events = xcalloc(names->n_nodes + 1, sizeof *events);
    uint32_t *alone = xmalloc_array(names->n_nodes + 1, sizeof *alone);
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->plan.n; i++) {
        const file_status *f = &st[i];
        if (s->plan.steps[i].kind != STEP_READ || !f->have)
            continue;
        uint32_t first_node = UINT32_MAX;
        int several = 0;
        for (uint32_t k = 0; k < f->n_threads; k++) {
            str_id node = names->threads[f->thread[k]].node;
            if (number[node] == UINT32_MAX) {
                alone[n] = s->plan.steps[i].owner;
                number[node] = n++;
            }
            events[number[node]] += f->count[k];
            several |= first_node != UINT32_MAX && first_node != node;
            first_node = node;
        }
        for (uint32_t k = 0; k < f->n_threads; k++) {
            uint32_t v = number[names->threads[f->thread[k]].node];
            if (several || alone[v] != s->plan.steps[i].owner)
                alone[v] = UINT32_MAX;
        }
    }
    uint64_t *load = xcalloc(ranks, sizeof *load);
    uint64_t *size = xmalloc_array(n + 1, sizeof *size);
    uint32_t *which = xmalloc_array(n + 1, sizeof *which);
    uint32_t *dealt = xmalloc_array(n + 1, sizeof *dealt);
    uint32_t m = 0;
    o->node_owner = xmalloc_array(n + 1, sizeof *o->node_owner);
    for (uint32_t v = 0; v < n; v++)
        if (alone[v] != UINT32_MAX) {
            o->node_owner[v] = alone[v];
            load[alone[v]] += events[v] + 1;
        } else {
            size[m] = events[v];
            which[m++] = v;
        }
    comm_deal_onto(size, m, ranks, load, dealt);
    for (uint32_t k = 0; k < m; k++)
        o->node_owner[which[k]] = dealt[k];
    o->n_nodes = n;
    /* each file's threads: events in files before, their node's rank */
    uint32_t *seen = xcalloc(names->n_threads + 1, sizeof *seen);
    for (uint32_t i = 0; i < s->plan.n; i++) {
        const file_status *f = &st[i];
        if (s->plan.steps[i].kind != STEP_READ || !f->have)
            continue;
        o->thread_at[i] = xmalloc_array(f->n_threads + 1, sizeof(uint32_t));
        o->owner[i] = xmalloc_array(f->n_threads + 1, sizeof(uint32_t));
        for (uint32_t k = 0; k < f->n_threads; k++) {
            uint32_t th = f->thread[k];
            o->thread_at[i][k] = seen[th];
            seen[th] += f->count[k];
            o->owner[i][k] = o->node_owner[number[names->threads[th].node]];
        }
    }
    free(seen);
    free(dealt);
    free(which);
    free(size);
    free(load);
    free(alone);
    free(events);
    free(number);
}

static void pack_outcome(const share_load *s, const outcome *o,
                         const file_status *st, pack *b)
{
    pack_put(b, &o->rc, sizeof o->rc);
    pack_text(b, o->err, strlen(o->err));
    if (o->rc != TRACE_OK)
        return;
    pack_put(b, &o->stats, sizeof o->stats);
    pack_u32(b, o->n_events);
    pack_u32(b, o->n_files);
    pack_u32(b, o->n_nodes);
    pack_put(b, o->node_owner, (size_t)o->n_nodes * sizeof *o->node_owner);
    for (uint32_t i = 0; i < s->plan.n; i++) {
        if (s->plan.steps[i].kind != STEP_READ)
            continue;
        uint32_t n = st[i].n_threads;
        pack_u32(b, o->offset[i]);
        pack_u32(b, n);
        pack_put(b, o->thread_at[i], (size_t)n * sizeof(uint32_t));
        pack_put(b, o->owner[i], (size_t)n * sizeof(uint32_t));
    }
}

/* Every rank's copy of the outcome: the share's totals and its own
 * files' numbering.  0, or -1 when the bytes are cut short. */
static int take_outcome(share_load *s, const char *buf, size_t len)
{
    unpack u = unpack_of(buf, len);
    int rc;
    size_t n;
    unpack_get(&u, &rc, sizeof rc);
    snprintf(s->err, s->err_len, "%s", unpack_text(&u, &n));
    if (u.bad)
        return -1;
    if (rc != TRACE_OK)
        return 1;
    trace_share *out = s->out;
    unpack_get(&u, &out->whole, sizeof out->whole);
    out->n_events = unpack_u32(&u);
    out->n_files = unpack_u32(&u);
    out->n_nodes = unpack_u32(&u);
    out->node_owner = xmalloc_array(out->n_nodes + 1, sizeof *out->node_owner);
    unpack_get(&u, out->node_owner, (size_t)out->n_nodes * sizeof(uint32_t));
    s->step_events = xcalloc(s->plan.n + 1, sizeof *s->step_events);
    uint32_t last = UINT32_MAX, last_first = 0; /* the file before */
    for (uint32_t i = 0, k = 0; i < s->plan.n && !u.bad; i++) {
        if (s->plan.steps[i].kind != STEP_READ)
            continue;
        uint32_t offset = unpack_u32(&u), threads = unpack_u32(&u);
        if (last != UINT32_MAX)
            s->step_events[last] = offset - last_first;
        last_first = offset;
        last = i;
        size_t bytes = (size_t)threads * sizeof(uint32_t);
        if (k < s->n_own && s->own[k].step == i) {
            own_file *f = &s->own[k++];
            if (threads != f->part->n_threads)
                return -1;
            f->offset = offset;
            f->thread_at = xmalloc_array(threads + 1, sizeof(uint32_t));
            f->owner = xmalloc_array(threads + 1, sizeof(uint32_t));
            unpack_get(&u, f->thread_at, bytes);
            unpack_get(&u, f->owner, bytes);
        } else {
            unpack_take(&u, 2 * bytes);
        }
    }
    if (last != UINT32_MAX)
        s->step_events[last] = out->n_events - last_first;
    return u.bad ? -1 : 0;
}

static void outcome_free(outcome *o, file_status *st, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        free(st[i].thread);
        free(st[i].count);
        if (o->thread_at)
            free(o->thread_at[i]);
        if (o->owner)
            free(o->owner[i]);
    }
    free(o->thread_at);
    free(o->owner);
    free(o->offset);
    free(o->node_owner);
    free(o->err);
}

/* Step 2.  0, 1 when the load failed (s->err says why), -1 when the
 * ranks lost each other. */
static int agree_outcome(share_load *s)
{
    pack mine = {0}, result = {0};
    pack_status(s, &mine);
    comm_parts parts;
    int rc = comm_gather(s->c, mine.data, mine.n, &parts);
    free(mine.data);
    if (rc == 0 && comm_rank(s->c) == 0) {
        uint32_t n = s->plan.n;
        file_status *st = xcalloc(n + 1, sizeof *st);
        trace *names = xcalloc(1, sizeof *names);
        outcome o = {.err = xcalloc(1, s->err_len),
                     .offset = xcalloc(n + 1, sizeof(uint32_t)),
                     .thread_at = xcalloc(n + 1, sizeof(uint32_t *)),
                     .owner = xcalloc(n + 1, sizeof(uint32_t *))};
        if (read_statuses(s, &parts, st, names) != 0) {
            snprintf(o.err, s->err_len, "the ranks of the job sent rank 0 "
                     "bytes cut short");
            o.rc = TRACE_ERR;
        } else {
            walk_plan(s, st, names, &o);
        }
        if (o.rc == TRACE_OK)
            deal_nodes(s, st, names, &o);
        pack_outcome(s, &o, st, &result);
        outcome_free(&o, st, n);
        free(st);
        trace_free(names);
    }
    comm_parts_free(&parts);
    uint64_t len = result.n;
    if (rc == 0)
        rc = comm_broadcast(s->c, &len, sizeof len);
    if (rc == 0 && comm_rank(s->c) != 0)
        result.data = xmalloc(len ? len : 1);
    if (rc == 0)
        rc = comm_broadcast(s->c, result.data, len);
    if (rc == 0)
        rc = take_outcome(s, result.data, len);
    free(result.data);
    return rc;
}

/* ---- 3. the message endpoints ----------------------------------------- */

/* to[] to their ranks, into *got; frees to[]'s bytes.  0, or -1. */
static int exchange_packs(comm *c, pack *to, comm_parts *got)
{
    unsigned ranks = comm_size(c);
    const void **data = xcalloc(ranks, sizeof *data);
    size_t *len = xcalloc(ranks, sizeof *len);
    for (unsigned r = 0; r < ranks; r++) {
        data[r] = to[r].data;
        len[r] = to[r].n;
    }
    int rc = comm_exchange(c, data, len, got);
    for (unsigned r = 0; r < ranks; r++) {
        free(to[r].data);
        to[r] = (pack){0};
    }
    free(data);
    free(len);
    return rc;
}


/* An endpoint's key: 'm' and its message id, or 'c' and its TCP
 * channel's four strings; 0 when it has none (it matches nothing). */
static int endpoint_key(const trace *t, const event *e, pack *key)
{
    key->n = 0;
    if (e->kind != EV_SND && e->kind != EV_RCV)
        return 0;
    if (e->message != STR_NONE) {
        pack_put(key, "m", 1);
        pack_text(key, t->strings[e->message], interned_len(t, e->message));
        return 1;
    }
    if (!e->tcp || e->object == NONE)
        return 0;
    const channel *ch = &t->channels[e->object];
    str_id parts[4] = {ch->src, ch->src_port, ch->dst, ch->dst_port};
    pack_put(key, "c", 1);
    for (int i = 0; i < 4; i++)
        pack_text(key, t->strings[parts[i]], interned_len(t, parts[i]));
    return 1;
}

static uint32_t key_home(const pack *key, unsigned ranks)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < key->n; i++)
        h = (h ^ (unsigned char)key->data[i]) * 1099511628211ull;
    return (uint32_t)(h % ranks);
}

/* An endpoint as its home rank sees it. */
typedef struct endpoint {
    const char *key;
    uint32_t key_len;
    uint8_t kind;
    uint32_t global, owner, from;
} endpoint;

static int cmp_endpoints(const void *x, const void *y)
{
    const endpoint *a = x, *b = y;
    uint32_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
    int c = memcmp(a->key, b->key, n);
    if (c || a->key_len != b->key_len)
        return c ? c : a->key_len < b->key_len ? -1 : 1;
    return a->global < b->global ? -1 : a->global > b->global;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* The endpoints of every own file to their home ranks. */
static int send_endpoints(share_load *s, comm_parts *got)
{
    unsigned ranks = comm_size(s->c);
    pack *to = xcalloc(ranks, sizeof *to), key = {0};
    for (uint32_t k = 0; k < s->n_own; k++) {
        const own_file *f = &s->own[k];
        const trace *t = f->part;
        for (uint32_t i = 0; i < t->n_events; i++) {
            const event *e = &t->events[i];
            if (!endpoint_key(t, e, &key))
                continue;
            pack *b = &to[key_home(&key, ranks)];
            pack_u32(b, (uint32_t)key.n);
            pack_put(b, key.data, key.n);
            pack_put(b, &e->kind, 1);
            pack_u32(b, f->offset + i);
            pack_u32(b, f->owner[e->thread]);
        }
    }
    free(key.data);
    int rc = exchange_packs(s->c, to, got);
    free(to);
    return rc;
}

/* The home rank's answers: to each endpoint's sender, pairs (global id,
 * another rank it goes to). */
static void answer_endpoints(const comm_parts *got, unsigned ranks,
                             pack *answer)
{
    endpoint *ep = NULL;
    size_t n = 0, cap = 0;
    for (unsigned r = 0; r < got->n; r++) {
        unpack u = unpack_of(got->data[r], got->len[r]);
        while (u.p < u.end && !u.bad) {
            endpoint e = {.from = r};
            e.key_len = unpack_u32(&u);
            e.key = unpack_take(&u, e.key_len);
            unpack_get(&u, &e.kind, 1);
            e.global = unpack_u32(&u);
            e.owner = unpack_u32(&u);
            if (u.bad)
                break;
            ALLOC_GROW(ep, n + 1, cap);
            ep[n++] = e;
        }
    }
    if (n)
        qsort(ep, n, sizeof *ep, cmp_endpoints);
    uint32_t *snd = xmalloc_array(ranks + 1, sizeof *snd);
    uint32_t *rcv = xmalloc_array(ranks + 1, sizeof *rcv);
    for (size_t b = 0, e; b < n; b = e) {
        uint32_t ns = 0, nr = 0;
        for (e = b; e < n && ep[e].key_len == ep[b].key_len &&
                    memcmp(ep[e].key, ep[b].key, ep[b].key_len) == 0; e++) {
            uint32_t *set = ep[e].kind == EV_SND ? snd : rcv;
            uint32_t *count = ep[e].kind == EV_SND ? &ns : &nr;
            uint32_t j = 0;
            while (j < *count && set[j] != ep[e].owner)
                j++;
            if (j == *count)
                set[(*count)++] = ep[e].owner;
        }
        qsort(snd, ns, sizeof *snd, cmp_u32);
        qsort(rcv, nr, sizeof *rcv, cmp_u32);
        for (size_t k = b; k < e; k++) {
            const uint32_t *other = ep[k].kind == EV_SND ? rcv : snd;
            uint32_t no = ep[k].kind == EV_SND ? nr : ns;
            for (uint32_t j = 0; j < no; j++)
                if (other[j] != ep[k].owner) {
                    pack_u32(&answer[ep[k].from], ep[k].global);
                    pack_u32(&answer[ep[k].from], other[j]);
                }
        }
    }
    free(snd);
    free(rcv);
    free(ep);
}

typedef struct dest_pair {
    uint32_t global, rank;
} dest_pair;

static int cmp_pairs(const void *x, const void *y)
{
    const dest_pair *a = x, *b = y;
    if (a->global != b->global)
        return a->global < b->global ? -1 : 1;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* The answers into each own file's dests, by event. */
static void take_answers(share_load *s, const comm_parts *got)
{
    dest_pair *pair = NULL;
    size_t n = 0, cap = 0;
    for (unsigned r = 0; r < got->n; r++) {
        unpack u = unpack_of(got->data[r], got->len[r]);
        while (u.p + 2 * sizeof(uint32_t) <= u.end) {
            ALLOC_GROW(pair, n + 1, cap);
            pair[n].global = unpack_u32(&u);
            pair[n++].rank = unpack_u32(&u);
        }
    }
    if (n)
        qsort(pair, n, sizeof *pair, cmp_pairs);
    size_t at = 0;
    for (uint32_t k = 0; k < s->n_own; k++) { /* own files in global order */
        own_file *f = &s->own[k];
        uint32_t events = f->part->n_events;
        f->dest_start = xcalloc(events + 1, sizeof *f->dest_start);
        size_t first = at;
        while (at < n && pair[at].global < f->offset)
            first = ++at;
        while (at < n && pair[at].global < (uint64_t)f->offset + events)
            f->dest_start[pair[at++].global - f->offset + 1]++;
        for (uint32_t i = 0; i < events; i++)
            f->dest_start[i + 1] += f->dest_start[i];
        size_t m = at - first;
        f->dests = xmalloc_array(m + 1, sizeof *f->dests);
        for (size_t j = 0; j < m; j++)
            f->dests[j] = pair[first + j].rank;
    }
    free(pair);
}

/* Step 3.  0, or -1 when the ranks lost each other. */
static int find_endpoints(share_load *s)
{
    unsigned ranks = comm_size(s->c);
    comm_parts got, answers;
    if (send_endpoints(s, &got) != 0) {
        comm_parts_free(&got);
        return -1;
    }
    pack *answer = xcalloc(ranks, sizeof *answer);
    answer_endpoints(&got, ranks, answer);
    comm_parts_free(&got);
    int rc = exchange_packs(s->c, answer, &answers);
    free(answer);
    if (rc == 0)
        take_answers(s, &answers);
    comm_parts_free(&answers);
    return rc;
}

/* ---- 4. each file's events to their ranks ----------------------------- */

/* Ids of a part renumbered for one sub-part: those used, in order of
 * first use (mark[id] == stamp once used). */
typedef struct renumber {
    uint32_t *mark, *id, *used;
    uint32_t n;
} renumber;

static void renumber_init(renumber *r, uint32_t n)
{
    r->mark = xcalloc(n + 1, sizeof *r->mark);
    r->id = xmalloc_array(n + 1, sizeof *r->id);
    r->used = xmalloc_array(n + 1, sizeof *r->used);
    r->n = 0;
}

static uint32_t renumber_of(renumber *r, uint32_t stamp, uint32_t old)
{
    if (r->mark[old] != stamp) {
        r->mark[old] = stamp;
        r->id[old] = r->n;
        r->used[r->n++] = old;
    }
    return r->id[old];
}

static void renumber_free(renumber *r)
{
    free(r->mark);
    free(r->id);
    free(r->used);
}

typedef struct sub_part {
    renumber str, thr, obj, chn;
    uint32_t *in_thread;   /* per event of the part: its index in its
                              thread in the file */
    event *events;
    uint32_t *global;
    uint8_t *foreign;
    uint32_t n;
} sub_part;

static int goes_to(const own_file *f, uint32_t i, uint32_t rank, int *foreign)
{
    const event *e = &f->part->events[i];
    *foreign = 0;
    if (f->owner[e->thread] == rank)
        return 1;
    for (uint32_t k = f->dest_start[i]; k < f->dest_start[i + 1]; k++)
        if (f->dests[k] == rank)
            return *foreign = 1;
    return 0;
}

/* The events of file f that go to `rank`, renumbered, packed into b. */
static void pack_sub_part(const own_file *f, uint32_t rank, sub_part *p,
                          uint32_t stamp, pack *b)
{
    const trace *t = f->part;
    p->str.n = p->thr.n = p->obj.n = p->chn.n = p->n = 0;
    for (uint32_t i = 0; i < t->n_events; i++) {
        int foreign;
        if (!goes_to(f, i, rank, &foreign))
            continue;
        event e = t->events[i];
        uint32_t th = e.thread;
        e.thread = renumber_of(&p->thr, stamp, th);
        if (e.loc != STR_NONE)
            e.loc = renumber_of(&p->str, stamp, e.loc);
        if (e.message != STR_NONE)
            e.message = renumber_of(&p->str, stamp, e.message);
        if (e.object != NONE)
            e.object = (int32_t)(event_needs_variable(e.kind)
                ? renumber_of(&p->obj, stamp, (uint32_t)e.object)
                : e.kind == EV_CREATE || e.kind == EV_JOIN
                    ? renumber_of(&p->thr, stamp, (uint32_t)e.object)
                    : renumber_of(&p->chn, stamp, (uint32_t)e.object));
        if (foreign) /* its place in its thread over the whole trace */
            e.input_index = f->thread_at[th] + p->in_thread[i];
        p->events[p->n] = e;
        p->global[p->n] = f->offset + i;
        p->foreign[p->n++] = (uint8_t)foreign;
    }
    if (!p->n)
        return;
    /* the strings the threads, objects and channels name come next */
    for (uint32_t k = 0; k < p->thr.n; k++)
        renumber_of(&p->str, stamp, t->threads[p->thr.used[k]].name);
    for (uint32_t k = 0; k < p->obj.n; k++) {
        renumber_of(&p->str, stamp, t->objects[p->obj.used[k]].node);
        renumber_of(&p->str, stamp, t->objects[p->obj.used[k]].name);
    }
    for (uint32_t k = 0; k < p->chn.n; k++) {
        const channel *c = &t->channels[p->chn.used[k]];
        renumber_of(&p->str, stamp, c->src);
        renumber_of(&p->str, stamp, c->src_port);
        renumber_of(&p->str, stamp, c->dst);
        renumber_of(&p->str, stamp, c->dst_port);
    }
    /* its step and length first: the receiver orders sub-parts by step
     * without reading them */
    pack_u32(b, f->step);
    size_t length_at = b->n;
    uint64_t length = 0;
    pack_put(b, &length, sizeof length);
    pack_text(b, t->files[0], strlen(t->files[0]));
    pack_u32(b, p->str.n);
    for (uint32_t k = 0; k < p->str.n; k++)
        pack_text(b, t->strings[p->str.used[k]],
                  interned_len(t, p->str.used[k]));
    pack_u32(b, p->thr.n);
    for (uint32_t k = 0; k < p->thr.n; k++)
        pack_u32(b, p->str.id[t->threads[p->thr.used[k]].name]);
    pack_u32(b, p->obj.n);
    for (uint32_t k = 0; k < p->obj.n; k++) {
        const shared_object *o = &t->objects[p->obj.used[k]];
        pack_u32(b, p->str.id[o->node]);
        pack_u32(b, p->str.id[o->name]);
    }
    pack_u32(b, p->chn.n);
    for (uint32_t k = 0; k < p->chn.n; k++) {
        const channel *c = &t->channels[p->chn.used[k]];
        uint32_t ids[4] = {p->str.id[c->src], p->str.id[c->src_port],
                           p->str.id[c->dst], p->str.id[c->dst_port]};
        pack_put(b, ids, sizeof ids);
    }
    pack_u32(b, p->n);
    pack_put(b, p->events, (size_t)p->n * sizeof *p->events);
    pack_put(b, p->global, (size_t)p->n * sizeof *p->global);
    pack_put(b, p->foreign, p->n);
    length = b->n - length_at - sizeof length;
    memcpy(b->data + length_at, &length, sizeof length);
}

/* File f's events packed for every rank, into to[]; frees its part. */
static void pack_file(own_file *f, unsigned ranks, uint32_t *stamp, pack *to)
{
    const trace *t = f->part;
    if (t->n_files && t->n_events) {
        sub_part p = {0};
        renumber_init(&p.str, t->n_strings);
        renumber_init(&p.thr, t->n_threads);
        renumber_init(&p.obj, t->n_objects);
        renumber_init(&p.chn, t->n_channels);
        p.events = xmalloc_array(t->n_events, sizeof *p.events);
        p.global = xmalloc_array(t->n_events, sizeof *p.global);
        p.foreign = xmalloc(t->n_events);
        p.in_thread = xmalloc_array(t->n_events, sizeof *p.in_thread);
        uint32_t *count = xcalloc(t->n_threads + 1, sizeof *count);
        for (uint32_t i = 0; i < t->n_events; i++)
            p.in_thread[i] = count[t->events[i].thread]++;
        free(count);
        for (unsigned r = 0; r < ranks; r++)
            pack_sub_part(f, r, &p, ++*stamp, &to[r]);
        renumber_free(&p.str);
        renumber_free(&p.thr);
        renumber_free(&p.obj);
        renumber_free(&p.chn);
        free(p.events);
        free(p.global);
        free(p.foreign);
        free(p.in_thread);
    }
    trace_free(f->part); /* packed: no longer needed here */
    f->part = NULL;
}

/* How many events this rank will hold: each rank counts what it sends
 * each other one.  0, or -1 when the ranks lost each other. */
static int count_incoming(share_load *s, uint64_t *total)
{
    unsigned ranks = comm_size(s->c);
    pack *to = xcalloc(ranks, sizeof *to);
    uint64_t *count = xcalloc(ranks, sizeof *count);
    for (uint32_t k = 0; k < s->n_own; k++) {
        const own_file *f = &s->own[k];
        for (uint32_t i = 0; i < f->part->n_events; i++) {
            count[f->owner[f->part->events[i].thread]]++;
            for (uint32_t d = f->dest_start[i]; d < f->dest_start[i + 1]; d++)
                count[f->dests[d]]++;
        }
    }
    for (unsigned r = 0; r < ranks; r++)
        pack_put(&to[r], &count[r], sizeof count[r]);
    comm_parts got;
    int rc = exchange_packs(s->c, to, &got);
    *total = 0;
    for (unsigned r = 0; rc == 0 && r < got.n; r++) {
        uint64_t n = 0;
        if (got.len[r] == sizeof n)
            memcpy(&n, got.data[r], sizeof n);
        *total += n;
    }
    comm_parts_free(&got);
    free(count);
    free(to);
    return rc;
}

/* One sub-part as a part (its strings pointing into the buffer, where
 * pack_text() left each length before it), its global ids and flags
 * (pointing into the buffer too, unaligned: read with memcpy).
 * 0, or -1 when the bytes are cut short. */
static int unpack_sub_part(unpack *u, trace *t, const uint32_t **global,
                           const uint8_t **foreign)
{
    size_t n;
    t->n_files = 1;
    t->files = xmalloc(sizeof *t->files);
    t->files[0] = xstrdup(unpack_text(u, &n));
    t->n_strings = unpack_u32(u);
    t->strings = xmalloc_array(t->n_strings + 1, sizeof *t->strings);
    for (uint32_t i = 0; i < t->n_strings && !u->bad; i++)
        t->strings[i] = (char *)unpack_text(u, &n);
    t->n_threads = unpack_u32(u);
    t->threads = xcalloc(t->n_threads + 1, sizeof *t->threads);
    for (uint32_t i = 0; i < t->n_threads && !u->bad; i++)
        t->threads[i].name = unpack_u32(u);
    t->n_objects = unpack_u32(u);
    t->objects = xmalloc_array(t->n_objects + 1, sizeof *t->objects);
    unpack_get(u, t->objects, (size_t)t->n_objects * sizeof *t->objects);
    t->n_channels = unpack_u32(u);
    t->channels = xmalloc_array(t->n_channels + 1, sizeof *t->channels);
    unpack_get(u, t->channels, (size_t)t->n_channels * sizeof *t->channels);
    t->n_events = unpack_u32(u);
    /* copied: in the buffer they would be out of alignment */
    t->events = xmalloc_array(t->n_events + 1, sizeof *t->events);
    unpack_get(u, t->events, (size_t)t->n_events * sizeof *t->events);
    *global = unpack_take(u, (size_t)t->n_events * sizeof(uint32_t));
    *foreign = unpack_take(u, t->n_events);
    return u->bad ? -1 : 0;
}

typedef struct received {
    uint32_t step;
    const char *at;         /* its bytes after step and length, in a
                               buffer of `got` */
    const char *end;
} received;

static int cmp_received(const void *x, const void *y)
{
    uint32_t a = ((const received *)x)->step, b = ((const received *)y)->step;
    return a < b ? -1 : a > b;
}

/* What came in one round, merged in file order into s->merged.  0, or
 * -1 when the bytes are cut short. */
static int merge_received(share_load *s, const comm_parts *got)
{
    received *in = NULL;
    size_t n = 0, cap = 0;
    for (unsigned r = 0; r < got->n; r++) { /* each sub-part's step */
        unpack u = unpack_of(got->data[r], got->len[r]);
        while (u.p < u.end) {
            uint32_t step = unpack_u32(&u);
            uint64_t length = 0;
            unpack_get(&u, &length, sizeof length);
            const char *at = unpack_take(&u, (size_t)length);
            if (u.bad) {
                free(in);
                return -1;
            }
            ALLOC_GROW(in, n + 1, cap);
            in[n++] = (received){step, at, at + length};
        }
    }
    if (n)
        qsort(in, n, sizeof *in, cmp_received);
    trace_share *out = s->out;
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        unpack u = unpack_of(in[k].at, (size_t)(in[k].end - in[k].at));
        trace *part = xcalloc(1, sizeof *part);
        const uint32_t *global;
        const uint8_t *foreign;
        uint32_t at = s->merged.t->n_events;
        rc = unpack_sub_part(&u, part, &global, &foreign);
        if (rc == 0 && (at + (uint64_t)part->n_events > s->incoming ||
                        !merge_part(&s->merged, part)))
            rc = -1; /* more than the senders counted */
        if (rc == 0) {
            memcpy(out->global + at, global, part->n_events * sizeof *global);
            memcpy(out->foreign + at, foreign, part->n_events);
        }
        free(part->strings); /* they point into the buffer */
        part->strings = NULL;
        trace_free(part);
    }
    free(in);
    return rc;
}

/* Files of the whole trace per round of step 4: each round's parts are
 * packed, exchanged and merged before the next, so that a rank holds
 * one round's bytes beside the parts left and the share so far. */
enum { ROUND_EVENTS = 1 << 20 };

/* Step 4: rounds of files in order, each ending once it holds
 * ROUND_EVENTS events of the whole trace (or at the last file), then
 * the share derived.  0, or -1 when the ranks lost each other or sent
 * bytes cut short. */
static int route_events(share_load *s)
{
    unsigned ranks = comm_size(s->c);
    trace_share *out = s->out;
    int rc = count_incoming(s, &s->incoming);
    if (rc != 0 || s->incoming > UINT32_MAX - 1)
        return -1;
    s->merged = (load_state){.t = xcalloc(1, sizeof(trace)), .opts = s->opts,
                             .err = s->err, .err_len = s->err_len};
    /* sized once: growing by doubling would hold two copies at once */
    s->merged.t->events = xmalloc_array(s->incoming + 1, sizeof(event));
    s->merged.events_cap = (uint32_t)s->incoming + 1;
    out->global = xmalloc_array(s->incoming + 1, sizeof *out->global);
    out->foreign = xmalloc(s->incoming + 1);
    pack *to = xcalloc(ranks, sizeof *to);
    uint32_t stamp = 0, k = 0;
    for (uint32_t first = 0; first < s->plan.n && rc == 0;) {
        uint32_t last = first;
        uint64_t events = 0;
        while (last < s->plan.n && (last == first || events < ROUND_EVENTS)) {
            events += s->step_events[last];
            last++;
        }
        for (; k < s->n_own && s->own[k].step < last; k++)
            pack_file(&s->own[k], ranks, &stamp, to);
        comm_parts got;
        rc = exchange_packs(s->c, to, &got);
        if (rc == 0)
            rc = merge_received(s, &got);
        comm_parts_free(&got);
#ifdef GIVE_BACK_FREED
        /* the round's parts and bytes are freed, in the middle of the
         * heap: given back, so that the share's pages take their place
         * rather than come on top of them */
        malloc_trim(0);
#endif
        first = last;
    }
    free(to);
    if (rc == 0 && s->merged.t->n_events != s->incoming)
        rc = -1;
    return rc;
}

/* ---- the load --------------------------------------------------------- */

static void share_load_free(share_load *s)
{
    for (uint32_t k = 0; k < s->n_own; k++) {
        own_file *f = &s->own[k];
        free(f->err);
        free(f->warnings);
        trace_free(f->part);
        free(f->thread_at);
        free(f->owner);
        free(f->dest_start);
        free(f->dests);
    }
    free(s->own);
    free(s->step_events);
    plan_free(&s->plan);
}

int trace_load_share(const char *const *paths, size_t n_paths,
                     const trace_options *opts, comm *c, trace_share *out,
                     char *err, size_t err_len)
{
    json_arena_install();
    memset(out, 0, sizeof *out);
    share_load s = {.c = c, .opts = opts, .err = err, .err_len = err_len,
                    .out = out};
    plan_make(&s.plan, paths, n_paths);
    int elsewhere = 0, rc;
    if (!plans_agree(c, &s.plan, err, err_len, &elsewhere)) {
        plan_free(&s.plan);
        return elsewhere ? TRACE_ERR_ELSEWHERE : TRACE_ERR;
    }
    if (plan_deal(&s.plan, c) != 0) {
        plan_free(&s.plan);
        return ranks_lost(err, err_len);
    }
    read_own(&s);
    rc = agree_outcome(&s);
    if (rc == 0)
        rc = find_endpoints(&s);
    if (rc == 0)
        rc = route_events(&s);
    out->t = s.merged.t;
    free(s.merged.seen);
    share_load_free(&s);
    if (rc == 0) {
        trace_options quiet = *opts;
        quiet.warnings = NULL; /* the share's own: counted only */
        trace_derive_keeping(out->t, &quiet, out->foreign);
        interner_free(out->t);
        return TRACE_OK;
    }
    if (rc < 0)
        ranks_lost(err, err_len);
    trace_share_free(out);
    return TRACE_ERR;
}

void trace_share_free(trace_share *s)
{
    trace_free(s->t);
    free(s->global);
    free(s->foreign);
    free(s->node_owner);
    memset(s, 0, sizeof *s);
}

/* ---- the messages of a share's own nodes -------------------------------- */

void trace_share_count_messages(const trace_share *s,
                                trace_share_messages *out)
{
    const trace *t = s->t;
    memset(out, 0, sizeof *out);
    out->first_unmatched = out->first_unreceived = UINT32_MAX;
    /* trace_derive()'s "received": named by some receive's match; every
     * receive that may match an own send is in the share */
    uint8_t *received = xcalloc((size_t)t->n_events + 1, 1);
    for (uint32_t i = 0; i < t->n_matches; i++)
        for (uint32_t k = 0; k < t->matches[i].n_sends; k++)
            received[t->matches[i].sends[k]] = 1;
    for (uint32_t e = 0; e < t->n_events; e++) {
        const event *ev = &t->events[e];
        if (s->foreign[e])
            continue;
        if (ev->kind == EV_RCV && ev->match != NONE) {
            out->rcvs_matched++;
        } else if (ev->kind == EV_RCV) {
            out->rcvs_unmatched++;
            if (out->first_unmatched == UINT32_MAX)
                out->first_unmatched = e;
        } else if (ev->kind == EV_SND && !received[e]) {
            out->sends_unreceived++;
            if (out->first_unreceived == UINT32_MAX)
                out->first_unreceived = e;
        }
    }
    free(received);
}

/* One rank's count of a kind, and its first (whole-trace id, file, line). */
static void pack_first(pack *b, const trace_share *s, uint32_t n, uint32_t e)
{
    pack_u32(b, n);
    if (!n)
        return;
    const event *ev = &s->t->events[e];
    const char *file = s->t->files[ev->file];
    pack_u32(b, s->global[e]);
    pack_u32(b, ev->line);
    pack_text(b, file, strlen(file));
}

/* Adds a rank's count to *n, taking its first when it comes earlier. */
static void take_first(unpack *u, uint32_t *n, uint32_t *first,
                       const char **file, uint32_t *line)
{
    uint32_t k = unpack_u32(u);
    if (!k)
        return;
    uint32_t g = unpack_u32(u), l = unpack_u32(u);
    size_t len;
    const char *f = unpack_text(u, &len);
    *n += k;
    if (g < *first)
        *first = g, *file = f, *line = l;
}

int trace_share_warn_unmatched(const trace_share *s, struct comm *c,
                               const trace_options *opts)
{
    trace_share_messages m;
    trace_share_count_messages(s, &m);
    pack b = {0};
    pack_first(&b, s, m.sends_unreceived, m.first_unreceived);
    pack_first(&b, s, m.rcvs_unmatched, m.first_unmatched);
    comm_parts parts = {0};
    int rc = comm_gather(c, b.data, b.n, &parts);
    free(b.data);
    trace_unmatched u = {0};
    uint32_t first_snd = UINT32_MAX, first_rcv = UINT32_MAX;
    for (unsigned r = 0; rc == 0 && r < parts.n; r++) {
        unpack in = unpack_of(parts.data[r], parts.len[r]);
        take_first(&in, &u.sends, &first_snd, &u.send_file, &u.send_line);
        take_first(&in, &u.rcvs, &first_rcv, &u.rcv_file, &u.rcv_line);
        rc = in.bad ? -1 : 0;
    }
    unsigned given = rc == 0 && comm_rank(c) == 0
                         ? trace_warn_unmatched(s->t, opts, &u) : 0;
    comm_parts_free(&parts);
    return rc == 0 ? (int)given : -1;
}
