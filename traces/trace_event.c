/*
 * trace_event.c — one JSON object into an event (trace_event.h), and the
 * names of event kinds and locations (trace.h).
 */
#include "trace_event.h"
#include "../util/alloc.h"
#include "../util/text.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const kind_names[EV_KIND_MAX + 1] = {
    NULL, "CREATE", "START", "END", "JOIN", "LOG", "R", "W", "SND", "RCV",
    "CLOSE", "CONNECT", "ACCEPT", "SHUTDOWN", "HANDLERBEGIN", "HANDLEREND",
    "LOCK", "UNLOCK", "WAIT", "NOTIFY", "NOTIFYALL"};

static const struct { const char *alias; event_kind kind; } kind_aliases[] = {
    {"FORK", EV_CREATE}, {"READ", EV_READ}, {"WRITE", EV_WRITE},
    {"SEND", EV_SND}, {"RECEIVE", EV_RCV}};

const char *event_kind_name(event_kind kind)
{
    return kind >= 1 && kind <= EV_KIND_MAX ? kind_names[kind] : "?";
}

/* Whether a and b are equal ignoring case, the first letters compared
 * first (this runs once per event). */
static int same_name(const char *a, const char *b)
{
    return tolower((unsigned char)a[0]) == tolower((unsigned char)b[0]) &&
           strcasecmp(a, b) == 0;
}

static int kind_from_name(const char *s)
{
    for (int k = 1; k <= EV_KIND_MAX; k++)
        if (same_name(s, kind_names[k]))
            return k;
    for (size_t i = 0; i < sizeof kind_aliases / sizeof *kind_aliases; i++)
        if (same_name(s, kind_aliases[i].alias))
            return kind_aliases[i].kind;
    return 0;
}

const char *event_location(const trace *t, uint32_t ev, char *buf, size_t len)
{
    const event *e = &t->events[ev];
    if (e->loc != STR_NONE)
        return t->strings[e->loc];
    snprintf(buf, len, "%s#%u", t->strings[t->threads[e->thread].name],
             e->input_index);
    return buf;
}

char *event_location_dup(const trace *t, uint32_t ev)
{
    const event *e = &t->events[ev];
    if (e->loc != STR_NONE)
        return xstrdup(t->strings[e->loc]);
    const char *name = t->strings[t->threads[e->thread].name];
    size_t len = strlen(name) + 16;
    char *s = xmalloc(len);
    snprintf(s, len, "%s#%u", name, e->input_index);
    return s;
}

/* ---- reading one buffer ------------------------------------------------ */

/* The members an event may have, found in one pass over the object
 * (cJSON_GetObjectItemCaseSensitive scans every member for each name:
 * a tenth of the loading time). */
enum { /* by first letter, so that field_of() tries a range */
    F_TYPE, F_THREAD, F_TIMESTAMP, F_SIZE, F_SOCKET_TYPE, F_SRC, F_SRC_PORT,
    F_DST, F_DST_PORT, F_LOC, F_VARIABLE, F_CHILD, F_MESSAGE, F_COUNT
};
static const char *const field_names[F_COUNT] = {
    "type", "thread", "timestamp", "size", "socket_type", "src", "src_port",
    "dst", "dst_port", "loc", "variable", "child", "message"};

/* ---- exact numbers and ids --------------------------------------------- */

/* Where the text of an object's members is: cJSON keeps a number only as a
 * double, which merges 2^53 and 2^53 + 1, or 1e400 and 2e400; ids, names
 * and timestamps are read from the text instead (exact). */

/* The text [*vs, *ve) of member `item` of `obj`, whose text starts at
 * r->obj_text.  The spans of the first MEMBER_SPANS members are found in
 * one pass and kept for the object (an event asks for up to four). */
static void raw_member(reader *r, const cJSON *obj, const cJSON *item,
                       const char **vs, const char **ve)
{
    size_t i = 0;
    for (const cJSON *c = obj->child; c && c != item; c = c->next)
        i++;
    const char *q = r->spans_next, *end = r->end;
    for (size_t k = r->n_spans; k <= i; k++) {
        q = json_skip_blank(reader_string_end(r, json_skip_blank(q, end)), end) + 1;
        q = json_skip_blank(q, end);
        const char *v_end = reader_skip_value(r, q);
        if (k < MEMBER_SPANS) {
            r->spans[k][0] = q;
            r->spans[k][1] = v_end;
            r->n_spans = k + 1;
            r->spans_next = json_skip_blank(v_end, end) + 1; /* past the ',' */
        }
        if (k == i) {
            *vs = q;
            *ve = v_end;
            return;
        }
        q = json_skip_blank(v_end, end) + 1;
    }
    *vs = r->spans[i][0];
    *ve = r->spans[i][1];
}

/* Whether s[0..n) is a JSON number: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)? */
static int is_json_number(const char *s, size_t n)
{
    size_t i = 0, d;
    if (i < n && s[i] == '-')
        i++;
    for (d = i; i < n && isdigit((unsigned char)s[i]);)
        i++;
    if (i == d || (s[d] == '0' && i - d > 1))
        return 0;
    if (i < n && s[i] == '.') {
        for (d = ++i; i < n && isdigit((unsigned char)s[i]);)
            i++;
        if (i == d)
            return 0;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        if (++i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        for (d = i; i < n && isdigit((unsigned char)s[i]);)
            i++;
        if (i == d)
            return 0;
    }
    return i == n;
}

/* Integers of up to this many digits are written out in canonical texts,
 * longer ones with an exponent (1e41). */
enum { CANONICAL_DIGITS_MAX = 40 };

/* The canonical text of the JSON number s[0..n): equal values, and only
 * they, give equal texts (1.50 and 15e-1 both "1.5", 1e2 "100").  An
 * exponent of more than 9 digits is kept as written.  Caller frees. */
static char *number_canonical(const char *s, size_t n)
{
    char *out = xmalloc(n + 64), *digits = xmalloc(n + 1);
    size_t nd = 0, i = 0;
    int neg = s[0] == '-';
    int64_t exp = 0;
    i += (size_t)neg;
    for (; i < n && isdigit((unsigned char)s[i]); i++)
        digits[nd++] = s[i];
    if (i < n && s[i] == '.')
        for (i++; i < n && isdigit((unsigned char)s[i]); i++, exp--)
            digits[nd++] = s[i];
    if (i < n) { /* the exponent */
        int eneg = s[++i] == '-';
        i += s[i] == '-' || s[i] == '+';
        while (i < n - 1 && s[i] == '0')
            i++;
        if (n - i > 9) {
            memcpy(out, s, n);
            out[n] = '\0';
            free(digits);
            return out;
        }
        int64_t e = 0;
        for (; i < n; i++)
            e = e * 10 + (s[i] - '0');
        exp += eneg ? -e : e;
    }
    size_t lead = 0;
    while (lead < nd && digits[lead] == '0')
        lead++;
    while (nd > lead && digits[nd - 1] == '0')
        nd--, exp++;
    const char *d = digits + lead;
    nd -= lead;
    if (nd == 0)
        snprintf(out, n + 64, "0");
    else if (exp >= 0 && (int64_t)nd + exp <= CANONICAL_DIGITS_MAX)
        snprintf(out, n + 64, "%s%.*s%.*s", neg ? "-" : "", (int)nd, d,
                 (int)exp, "0000000000000000000000000000000000000000");
    else if (exp < 0 && -exp < (int64_t)nd)
        snprintf(out, n + 64, "%s%.*s.%s", neg ? "-" : "",
                 (int)(nd - (size_t)-exp), d, d + nd - (size_t)-exp);
    else if (exp < 0 && -exp - (int64_t)nd <= 20)
        snprintf(out, n + 64, "%s0.%.*s%.*s", neg ? "-" : "",
                 (int)(-exp - (int64_t)nd), "00000000000000000000", (int)nd, d);
    else
        snprintf(out, n + 64, "%s%.*se%lld", neg ? "-" : "", (int)nd, d,
                 (long long)exp);
    free(digits);
    return out;
}

/* Whether s[0..n) is its own canonical text: an integer of at most
 * CANONICAL_DIGITS_MAX digits (longer ones take an exponent) without
 * leading zeros, and not "-0" (ports and message ids: most numbers). */
static int canonical_integer(const char *s, size_t n)
{
    size_t i = n && s[0] == '-';
    if (i == n || n - i > CANONICAL_DIGITS_MAX || s[i] < '0' || s[i] > '9' ||
        (s[i] == '0' && n > 1))
        return 0;
    for (i++; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

static str_id intern_number(reader *r, const char *s, size_t n)
{
    if (canonical_integer(s, n))
        return intern_str(r->t, s, n);
    char *c = number_canonical(s, n);
    str_id id = intern_str(r->t, c, strlen(c));
    free(c);
    return id;
}

typedef struct event_fields {
    const cJSON *f[F_COUNT];         /* NULL: absent */
} event_fields;

/* The field named key, or -1: the first letter picks the candidates. */
static int field_of(const char *key)
{
    int from, to;
    switch (key[0]) {
    case 't': from = F_TYPE, to = F_TIMESTAMP; break;
    case 's': from = F_SIZE, to = F_SRC_PORT; break;
    case 'd': from = F_DST, to = F_DST_PORT; break;
    case 'l': from = to = F_LOC; break;
    case 'v': from = to = F_VARIABLE; break;
    case 'c': from = to = F_CHILD; break;
    case 'm': from = to = F_MESSAGE; break;
    default: return -1;
    }
    for (int i = from; i <= to; i++) {
        const char *a = key, *b = field_names[i];
        while (*a && *a == *b) /* no call: keys are short */
            a++, b++;
        if (*a == *b)
            return i;
    }
    return -1;
}

/* Fills out with obj's fields.  Returns whether a key may be written
 * twice (duplicate_key() then names it): a known field met again, two
 * equal keys among the others, or too many others to compare. */
static int find_fields(const cJSON *obj, event_fields *out)
{
    memset(out, 0, sizeof *out);
    enum { OTHERS_MAX = 16 }; /* Falcon writes a few more: host, data... */
    const char *others[OTHERS_MAX];
    size_t n_others = 0;
    int twice = 0;
    for (const cJSON *c = obj->child; c; c = c->next) {
        int i = field_of(c->string);
        if (i >= 0) {
            twice |= out->f[i] != NULL;
            if (!out->f[i]) /* cJSON's choice: the first */
                out->f[i] = c;
            continue;
        }
        if (twice)
            continue;
        for (size_t k = 0; k < n_others && !twice; k++)
            twice = strcmp(others[k], c->string) == 0;
        if (n_others < OTHERS_MAX)
            others[n_others++] = c->string;
        else
            twice = 1;
    }
    return twice;
}

/* A string-or-number field as an interned string; STR_NONE if absent.
 * Numbers are read exactly from the text; with numeric_canonical, a string
 * written as a JSON number is that number ("16" is 16; "0x10", "016" and
 * "NaN" are strings).  Returns -1 when present with another type. */
static int text_field(reader *r, const cJSON *obj, const cJSON *f,
                      int numeric_canonical, str_id *out)
{
    *out = STR_NONE;
    if (!f || cJSON_IsNull(f))
        return 0;
    if (cJSON_IsNumber(f)) {
        const char *vs, *ve;
        raw_member(r, obj, f, &vs, &ve);
        *out = intern_number(r, vs, (size_t)(ve - vs));
        return 0;
    }
    if (!cJSON_IsString(f))
        return -1;
    const char *s = f->valuestring;
    size_t n = strlen(s);
    *out = numeric_canonical && is_json_number(s, n) ? intern_number(r, s, n)
                                                     : intern_str(r->t, s, n);
    return 0;
}

/* s[0..n) as an int64, exactly, as strtoll() reads a whole decimal text
 * (a sign, then digits); -1 when it is not an integer in range.  By hand:
 * strtoll() needs a NUL-terminated copy, and this runs for every event. */
static int parse_int64(const char *s, size_t n, int64_t *out)
{
    if (n >= 32) /* as before: zeros in front count against it */
        return -1;
    size_t i = n && (s[0] == '-' || s[0] == '+');
    int neg = n && s[0] == '-';
    if (i == n)
        return -1;
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        unsigned d = (unsigned char)s[i] - '0';
        if (d > 9 || v > (limit - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = !neg ? (int64_t)v : v > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)v;
    return 0;
}

/* An integer field given as a number or a numeric string; a number with
 * a fraction or an exponent (1e3) must be an integer in int64's range. */
static int int_field(reader *r, const cJSON *obj, const cJSON *f,
                     int64_t *out, int *present)
{
    *present = 0;
    if (!f || cJSON_IsNull(f))
        return 0;
    if (cJSON_IsNumber(f)) {
        double v = f->valuedouble;
        /* below 2^53 an integer text is exactly v (any other text was
         * read by its value before too) */
        if (fabs(v) < 9007199254740992.0) {
            if (v != floor(v))
                return -1;
            *out = (int64_t)v;
            *present = 1;
            return 0;
        }
        const char *vs, *ve;
        raw_member(r, obj, f, &vs, &ve);
        if (parse_int64(vs, (size_t)(ve - vs), out) != 0) {
            if (v != floor(v) || !(v >= -9223372036854775808.0 &&
                                   v < 9223372036854775808.0))
                return -1;
            *out = (int64_t)v;
        }
        *present = 1;
        return 0;
    }
    if (cJSON_IsString(f)) {
        if (parse_int64(f->valuestring, strlen(f->valuestring), out))
            return -1;
        *present = 1;
        return 0;
    }
    return -1;
}

int event_needs_variable(event_kind k)
{
    return k == EV_READ || k == EV_WRITE || k == EV_LOCK || k == EV_UNLOCK ||
           k == EV_WAIT || k == EV_NOTIFY || k == EV_NOTIFYALL;
}

/* Fills e from obj.  Returns NULL on success, else what is wrong. */
static const char *convert_event(reader *r, const cJSON *obj,
                                 const event_fields *ef, event *e,
                                 char *why, size_t why_len)
{
    trace *t = r->t;
    const cJSON *const *f = ef->f;
    const cJSON *type = f[F_TYPE];
    int kind = 0;
    if (!type)
        return "missing field \"type\"";
    if (cJSON_IsString(type)) {
        kind = kind_from_name(type->valuestring);
        if (!kind) {
            snprintf(why, why_len, "unknown event type \"%.60s\"",
                     type->valuestring);
            return why;
        }
    } else if (cJSON_IsNumber(type)) {
        double v = type->valuedouble;
        if (v != floor(v) || v < 1 || v > EV_KIND_MAX) {
            snprintf(why, why_len, "unknown event type code %g", v);
            return why;
        }
        kind = (int)v;
    } else {
        return "field \"type\" must be a name or an integer code";
    }
    e->kind = (uint8_t)kind;

    const cJSON *th = f[F_THREAD];
    if (!th)
        return "missing field \"thread\"";
    if (!cJSON_IsString(th) || !*th->valuestring)
        return "field \"thread\" must be a non-empty string \"tid@node\"";
    str_id thread_name = intern_str(t, th->valuestring, strlen(th->valuestring));

    int present;
    e->timestamp = 0;
    if (int_field(r, obj, f[F_TIMESTAMP], &e->timestamp, &present))
        return "field \"timestamp\" must be an integer";
    e->size = -1;
    if (int_field(r, obj, f[F_SIZE], &e->size, &present))
        return "field \"size\" must be an integer";
    if (present && e->size < 0)
        return "field \"size\" must not be negative";
    if (text_field(r, obj, f[F_LOC], 0, &e->loc))
        return "field \"loc\" must be a string or a number";

    str_id var = STR_NONE, child = STR_NONE, msg = STR_NONE;
    if (text_field(r, obj, f[F_VARIABLE], 0, &var))
        return "field \"variable\" must be a string or a number";
    if (event_needs_variable(kind) && var == STR_NONE) {
        snprintf(why, why_len, "missing field \"variable\" (needed by %s)",
                 kind_names[kind]);
        return why;
    }
    const cJSON *ch = f[F_CHILD];
    if (kind == EV_CREATE || kind == EV_JOIN) {
        if (!ch) {
            snprintf(why, why_len, "missing field \"child\" (needed by %s)",
                     kind_names[kind]);
            return why;
        }
        if (!cJSON_IsString(ch) || !*ch->valuestring)
            return "field \"child\" must be a non-empty string";
        child = intern_str(t, ch->valuestring, strlen(ch->valuestring));
    }
    if (text_field(r, obj, f[F_MESSAGE], 1, &msg))
        return "field \"message\" must be a string or a number";

    e->thread = intern_thread(t, thread_name);
    e->object = NONE;
    e->message = STR_NONE;
    e->tcp = 0;
    if (event_needs_variable(kind))
        e->object = (int32_t)intern_object(t, t->threads[e->thread].node, var);
    else if (kind == EV_CREATE || kind == EV_JOIN)
        e->object = (int32_t)intern_thread(t, child);
    else if (kind == EV_SND || kind == EV_RCV) {
        str_id parts[4];
        int have = 0;
        for (int i = 0; i < 4; i++) {
            if (text_field(r, obj, f[F_SRC + i], 0, &parts[i])) {
                snprintf(why, why_len, "field \"%s\" must be a string or a "
                         "number", field_names[F_SRC + i]);
                return why;
            }
            have += parts[i] != STR_NONE;
        }
        const cJSON *st = f[F_SOCKET_TYPE];
        if (st && !cJSON_IsString(st) && !cJSON_IsNull(st))
            return "field \"socket_type\" must be a string";
        e->tcp = st && cJSON_IsString(st) && strcmp(st->valuestring, "TCP") == 0;
        e->message = msg;
        if (have == 4) {
            channel c = {parts[0], parts[1], parts[2], parts[3]};
            e->object = (int32_t)intern_channel(t, &c);
        }
        if (e->tcp && msg == STR_NONE) {
            for (int i = 0; i < 4; i++)
                if (parts[i] == STR_NONE) {
                    snprintf(why, why_len, "missing field \"%s\" (needed by "
                             "TCP %s without \"message\")", field_names[F_SRC + i],
                             kind_names[kind]);
                    return why;
                }
            if (e->size < 0) {
                snprintf(why, why_len, "missing field \"size\" (needed by "
                         "TCP %s without \"message\")", kind_names[kind]);
                return why;
            }
        }
        if (!e->tcp && msg == STR_NONE) {
            snprintf(why, why_len, "missing field \"message\" (needed by "
                     "non-TCP %s)", kind_names[kind]);
            return why;
        }
    }
    return NULL;
}

/* A "\u0000" inside a string of the object text [q, end), or NULL: cJSON
 * would cut the string there ("x\u0000a" read as "x"), so such a string
 * is refused rather than merged with another. */
static const char *nul_escape(const char *q, const char *end)
{
    /* q is the object's first backslash; cJSON has parsed the object, so
     * every backslash is an escape inside a string */
    while (q) {
        if (end - q >= 6 && memcmp(q + 1, "u0000", 5) == 0)
            return q;
        q += 2; /* the escaped character, a backslash maybe */
        q = q < end ? memchr(q, '\\', (size_t)(end - q)) : NULL;
    }
    return NULL;
}

static int cmp_str_ptrs(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The alphabetically first key written twice in obj (NULL if none):
 * cJSON would use the first silently, whatever the second says. */
static const char *duplicate_key(const cJSON *obj)
{
    size_t n = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        n++;
    if (n < 2)
        return NULL;
    const char **keys = xmalloc_array(n, sizeof *keys);
    n = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        keys[n++] = c->string;
    qsort(keys, n, sizeof *keys, cmp_str_ptrs);
    const char *dup = NULL;
    for (size_t i = 1; i < n && !dup; i++)
        if (strcmp(keys[i - 1], keys[i]) == 0)
            dup = keys[i];
    free(keys);
    return dup;
}

/* What is wrong with the event object obj whose text is [at, end), or
 * NULL; fills e when nothing is. */
static const char *check_event(reader *r, const cJSON *obj, const char *at,
                               const char *end, event *e, char *why,
                               size_t why_len)
{
    if (!cJSON_IsObject(obj))
        return "expected an event object";
    const char *backslash = memchr(at, '\\', (size_t)(end - at));
    r->obj_plain = !backslash;
    const char *nul = nul_escape(backslash, end);
    if (nul) {
        uint32_t line, col;
        reader_position_of(r, nul, &line, &col);
        snprintf(why, why_len, "a string holds \\u0000 (column %u), which "
                 "would cut it short", col);
        return why;
    }
    event_fields ef;
    const char *dup = find_fields(obj, &ef) ? duplicate_key(obj) : NULL;
    if (dup) {
        text_pool pool = {0};
        snprintf(why, why_len, "key \"%.60s\" is written twice",
                 text_safe(&pool, dup));
        text_pool_free(&pool);
        return why;
    }
    r->obj_text = at;
    r->n_spans = 0; /* a new object: no member's span known yet */
    r->spans_next = json_skip_blank(at, r->end) + 1;
    return convert_event(r, obj, &ef, e, why, why_len);
}

int trace_event_add(reader *r, const cJSON *obj, const char *at, const char *end)
{
    trace *t = r->t;
    char why[200];
    event e;
    memset(&e, 0, sizeof e);
    const char *problem = check_event(r, obj, at, end, &e, why, sizeof why);
    uint32_t line, col;
    reader_position_of(r, at, &line, &col);
    if (problem) {
        if (!r->opts->lenient)
            return reader_fail_at(r, at, "%s", problem);
        t->stats.events_skipped++;
        trace_warn(t, r->opts, "%s:%u:%u: %s; event skipped", r->name, line,
                   col, problem);
        return TRACE_OK;
    }
    e.file = r->file;
    e.line = line;
    e.handler = NONE;
    e.match = NONE;
    if (t->n_events == UINT32_MAX - 1)
        return reader_fail_at(r, at, "too many events");
    ALLOC_GROW(t->events, t->n_events + 1, r->events_cap);
    t->events[t->n_events++] = e;
    t->stats.by_kind[e.kind]++;
    return TRACE_OK;
}
