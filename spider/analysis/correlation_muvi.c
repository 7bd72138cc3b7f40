/*
 * correlation_muvi.c — MUVI's access rules (correlation_muvi.h).
 */
#include "correlation_muvi.h"

#include "../../util/alloc.h"

#include <stdlib.h>
#include <string.h>
#include <uthash.h>

enum { ACC_R = MUVI_R, ACC_W = MUVI_W, ACC_A = MUVI_A };

/* One access of a function's Acc_Set: dense function and variable ids. */
typedef struct acc_entry {
    uint32_t fn, line, var;
    uint8_t write;
} acc_entry;

typedef struct fn_entry {
    char *name;
    uint32_t id;
    UT_hash_handle hh;
} fn_entry;

/* Per unordered pair of variables (x < y by dense id): the functions
 * supporting each rule, by direction (0: x ⇒ y), A1 and A2. */
typedef struct pair_rules {
    uint64_t key;            /* x << 32 | y */
    uint32_t support[2][3][3];
    uint8_t mask;            /* scratch: the function at hand's (tx, ty) */
    uint32_t seen_in;        /* scratch: the function it was marked in + 1 */
    UT_hash_handle hh;
} pair_rules;

typedef struct miner {
    const trace *t;
    fn_entry *fns;
    uint32_t n_fns;
    uint32_t *fn_of_loc, *line_of_loc; /* by string id; UINT32_MAX: unknown */
    uint32_t *var_of_name, n_vars;     /* by string id of a name */
    str_id *var_name;                  /* dense var -> string id */
    uint32_t (*performs)[3];           /* per var: functions with R, W, A */
    pair_rules *pairs;
    pair_rules **touched;              /* the function at hand's pairs */
    size_t n_touched, cap_touched;
} miner;

/* The function and line of location string s (a string id). */
static void place_of(miner *m, str_id s)
{
    const char *loc = m->t->strings[s];
    size_t n = strlen(loc), k = n;
    while (k > 0 && loc[k - 1] >= '0' && loc[k - 1] <= '9')
        k--;
    uint32_t line = 0;
    size_t fn_len = n;
    if (k < n && k > 1 && loc[k - 1] == '.' && n - k <= 9) {
        line = (uint32_t)strtoul(loc + k, NULL, 10);
        fn_len = k - 1;
    }
    fn_entry *f;
    HASH_FIND(hh, m->fns, loc, fn_len, f);
    if (!f) {
        f = xcalloc(1, sizeof *f);
        f->name = xmalloc(fn_len + 1);
        memcpy(f->name, loc, fn_len);
        f->name[fn_len] = '\0';
        f->id = m->n_fns++;
        HASH_ADD_KEYPTR(hh, m->fns, f->name, fn_len, f);
    }
    m->fn_of_loc[s] = f->id;
    m->line_of_loc[s] = line;
}

static uint32_t var_of(miner *m, str_id name)
{
    if (m->var_of_name[name] == UINT32_MAX) {
        m->var_of_name[name] = m->n_vars;
        m->var_name = xrealloc_array(m->var_name, m->n_vars + 1,
                                     sizeof *m->var_name);
        m->var_name[m->n_vars++] = name;
    }
    return m->var_of_name[name];
}

static int by_fn_line(const void *x, const void *y)
{
    const acc_entry *a = x, *b = y;
    if (a->fn != b->fn)
        return a->fn < b->fn ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->var != b->var)
        return a->var < b->var ? -1 : 1;
    return (a->write > b->write) - (a->write < b->write);
}

/* Every function's Acc_Set, sorted by function and line, each entry once. */
static acc_entry *acc_sets(miner *m, size_t *n_out)
{
    const trace *t = m->t;
    acc_entry *v = xmalloc_array((size_t)t->n_events + 1, sizeof *v);
    size_t n = 0;
    for (uint32_t e = 0; e < t->n_events; e++) {
        const event *ev = &t->events[e];
        if (!event_is_access(ev) || ev->loc == STR_NONE)
            continue;
        v[n++] = (acc_entry){m->fn_of_loc[ev->loc], m->line_of_loc[ev->loc],
                             var_of(m, t->objects[ev->object].name),
                             (uint8_t)(ev->kind == EV_WRITE)};
    }
    qsort(v, n, sizeof *v, by_fn_line);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || by_fn_line(&v[i], &v[k - 1]) != 0)
            v[k++] = v[i];
    *n_out = k;
    return v;
}

/* Marks (a, b) together in function fn. */
static void together(miner *m, uint32_t fn, const acc_entry *a,
                     const acc_entry *b)
{
    const acc_entry *x = a->var < b->var ? a : b, *y = x == a ? b : a;
    uint64_t key = (uint64_t)x->var << 32 | y->var;
    pair_rules *p;
    HASH_FIND(hh, m->pairs, &key, sizeof key, p);
    if (!p) {
        p = xcalloc(1, sizeof *p);
        p->key = key;
        HASH_ADD(hh, m->pairs, key, sizeof p->key, p);
    }
    if (p->seen_in != fn + 1) {
        p->seen_in = fn + 1;
        p->mask = 0;
        ALLOC_GROW(m->touched, m->n_touched + 1, m->cap_touched);
        m->touched[m->n_touched++] = p;
    }
    p->mask |= (uint8_t)(1u << (x->write * 2 + y->write));
}

/* Whether mask (bits tx * 2 + ty) has an access of type set a1 on the
 * antecedent and a2 on the consequent; dir 1: the antecedent is y. */
static int rule_in(uint8_t mask, int dir, int a1, int a2)
{
    for (int ta = 0; ta < 2; ta++)
        for (int tc = 0; tc < 2; tc++) {
            if ((a1 != ACC_A && a1 != ta) || (a2 != ACC_A && a2 != tc))
                continue;
            int tx = dir ? tc : ta, ty = dir ? ta : tc;
            if (mask & (1u << (tx * 2 + ty)))
                return 1;
        }
    return 0;
}

/* The function at hand's pairs into the supports. */
static void flush_function(miner *m)
{
    for (size_t i = 0; i < m->n_touched; i++) {
        pair_rules *p = m->touched[i];
        for (int dir = 0; dir < 2; dir++)
            for (int a1 = 0; a1 < 3; a1++)
                for (int a2 = 0; a2 < 3; a2++)
                    p->support[dir][a1][a2] += rule_in(p->mask, dir, a1, a2);
    }
    m->n_touched = 0;
}

/* One function's entries v[from..to): what it performs and what it does
 * together. */
static void mine_function(miner *m, const acc_entry *v, size_t from,
                          size_t to, unsigned max_lines, uint8_t *does)
{
    for (size_t i = from; i < to; i++)
        does[v[i].var] |= (uint8_t)(1u << v[i].write);
    for (size_t i = from; i < to; i++) {
        uint8_t d = does[v[i].var];
        if (d) {
            m->performs[v[i].var][ACC_R] += (d & 1) != 0;
            m->performs[v[i].var][ACC_W] += (d & 2) != 0;
            m->performs[v[i].var][ACC_A]++;
            does[v[i].var] = 0;
        }
        for (size_t j = i + 1; j < to && v[j].line - v[i].line <= max_lines; j++)
            if (v[j].var != v[i].var)
                together(m, v[i].fn, &v[i], &v[j]);
    }
    flush_function(m);
}

static int by_rule(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    const muvi_rule *a = x, *b = y;
    int c = strcmp(t->strings[a->from], t->strings[b->from]);
    if (!c)
        c = strcmp(t->strings[a->to], t->strings[b->to]);
    if (!c)
        c = a->a1 != b->a1 ? (a->a1 < b->a1 ? -1 : 1)
                           : (a->a2 > b->a2) - (a->a2 < b->a2);
    return c;
}

/* The rules that hold, into *out; how many. */
static size_t keep_rules(miner *m, const muvi_options *o, muvi_rule **out)
{
    size_t n = 0, cap = 0;
    pair_rules *p, *tmp;
    HASH_ITER(hh, m->pairs, p, tmp) {
        uint32_t x = (uint32_t)(p->key >> 32), y = (uint32_t)p->key;
        if (m->performs[x][ACC_A] > o->popular ||
            m->performs[y][ACC_A] > o->popular)
            continue;
        for (int dir = 0; dir < 2; dir++)
            for (int a1 = 0; a1 < 3; a1++)
                for (int a2 = 0; a2 < 3; a2++) {
                    uint32_t from = dir ? y : x, to = dir ? x : y;
                    uint32_t sup = p->support[dir][a1][a2];
                    uint32_t base = m->performs[from][a1];
                    double conf = base ? (double)sup / base : 0;
                    if (sup < o->min_support || conf < o->min_confidence)
                        continue;
                    ALLOC_GROW(*out, n + 1, cap);
                    (*out)[n++] = (muvi_rule){
                        m->var_name[from], m->var_name[to], (uint8_t)a1,
                        (uint8_t)a2, sup, conf};
                }
    }
    if (n)
        qsort_r(*out, n, sizeof **out, by_rule, (void *)m->t);
    return n;
}

/* A miner of t's locations: every access's function and line placed. */
static void miner_init(miner *m, const trace *t)
{
    size_t n = (size_t)t->n_strings + 1;
    memset(m, 0, sizeof *m);
    m->t = t;
    m->fn_of_loc = xmalloc_array(n, sizeof(uint32_t));
    m->line_of_loc = xmalloc_array(n, sizeof(uint32_t));
    m->var_of_name = xmalloc_array(n, sizeof(uint32_t));
    memset(m->fn_of_loc, 0xff, n * sizeof(uint32_t));
    memset(m->var_of_name, 0xff, n * sizeof(uint32_t));
    for (uint32_t e = 0; e < t->n_events; e++) {
        const event *ev = &t->events[e];
        if (event_is_access(ev) && ev->loc != STR_NONE &&
            m->fn_of_loc[ev->loc] == UINT32_MAX)
            place_of(m, ev->loc);
    }
}

/* Frees what m owns (fn_of_loc too, unless taken: set to NULL). */
static void miner_free(miner *m)
{
    pair_rules *p, *ptmp;
    HASH_ITER(hh, m->pairs, p, ptmp) {
        HASH_DEL(m->pairs, p);
        free(p);
    }
    fn_entry *f, *ftmp;
    HASH_ITER(hh, m->fns, f, ftmp) {
        HASH_DEL(m->fns, f);
        free(f->name);
        free(f);
    }
    free(m->touched);
    free(m->performs);
    free(m->var_name);
    free(m->fn_of_loc);
    free(m->line_of_loc);
    free(m->var_of_name);
}

size_t muvi_mine(const trace *t, const muvi_options *o, muvi_rule **out)
{
    miner m;
    miner_init(&m, t);
    *out = NULL;
    size_t n;
    acc_entry *v = acc_sets(&m, &n);
    m.performs = xcalloc((size_t)m.n_vars + 1, sizeof *m.performs);
    uint8_t *does = xcalloc((size_t)m.n_vars + 1, 1);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && v[j].fn == v[i].fn;)
            j++;
        mine_function(&m, v, i, j, o->max_lines, does);
    }
    size_t n_rules = keep_rules(&m, o, out);
    free(does);
    free(v);
    miner_free(&m);
    return n_rules;
}

uint32_t *muvi_functions(const trace *t)
{
    miner m;
    miner_init(&m, t);
    uint32_t *fn_of_loc = m.fn_of_loc;
    m.fn_of_loc = NULL; /* the caller's */
    miner_free(&m);
    return fn_of_loc;
}

const char *muvi_access_name(uint8_t a)
{
    static const char *const names[] = {"R", "W", "A"};
    return a <= ACC_A ? names[a] : "?";
}
