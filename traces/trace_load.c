/*
 * trace_load.c — reading Falcon JSON into compact events.
 *
 * A file is a JSON array of objects or a stream of objects; each object is
 * parsed alone with cJSON and turned into an `event` at once, so no cJSON
 * tree outlives its event.  Positions are tracked as we go so that every
 * error names file, line and column.
 */
#include "trace_internal.h"
#include "../util/alloc.h"
#include "json_arena.h"
#include "../util/text.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

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

enum { MEMBER_SPANS = 32 };

typedef struct reader {
    trace *t;
    const trace_options *opts;
    const char *name;
    uint32_t file;
    /* The window of the file in memory: [start, end), read from `in` as
     * it is used up (more()); the whole text when `in` is NULL or at_eof. */
    const char *start, *end, *p;
    FILE *in;               /* the file still being read, or NULL */
    char *buf;              /* the window's storage when `in` is set */
    size_t cap;             /* its size */
    int at_eof;             /* nothing more to read: end is the file's end */
    int read_error;         /* reading failed (not on a stop signal) */
    const char *nul;        /* the first NUL byte read, or NULL */
    uint64_t start_at;      /* file offset of start */
    const char *obj_text;   /* the object being converted */
    int obj_plain;          /* it holds no backslash: a '"' ends a string */
    uint32_t line;          /* line of p */
    uint64_t line_start;    /* file offset of the first byte of p's line */
    uint32_t events_cap;
    char *err;
    size_t err_len;
    /* After an error: where reading resumes under --lenient (NULL: at the
     * next object start after r->p, r->p being stray text). */
    const char *resume;
    /* raw_member(): the members' text spans of the object at obj_text
     * (check_event() starts them afresh for each object) */
    const char *spans_next;
    const char *spans[MEMBER_SPANS][2];
    size_t n_spans;
    int has_cr;             /* the buffer holds a CR: advance_to looks */
    json_arena *arena;      /* holds the tree of the object being read */
} reader;

/* Whether s ends a line: LF, CR LF (at its LF), or a CR alone (old Mac
 * line ends: counted too, so that errors name the right line). */
static int ends_line(const char *s, const char *end)
{
    return *s == '\n' || (*s == '\r' && (s + 1 >= end || s[1] != '\n'));
}

/* The file offset of q, a byte of the window. */
static uint64_t offset_of(const reader *r, const char *q)
{
    return r->start_at + (uint64_t)(q - r->start);
}

/* Moves r->p to q, keeping line and line_start in step. */
static void advance_to(reader *r, const char *q)
{
    if (!r->has_cr) { /* LF only: memchr finds them */
        for (const char *s = r->p; s < q;) {
            const char *nl = memchr(s, '\n', (size_t)(q - s));
            if (!nl)
                break;
            r->line++;
            s = nl + 1;
            r->line_start = offset_of(r, s);
        }
        r->p = q;
        return;
    }
    for (const char *s = r->p; s < q; s++)
        if (ends_line(s, r->end)) {
            r->line++;
            r->line_start = offset_of(r, s + 1);
        }
    r->p = q;
}

static int more(reader *r);

/* The end of what may be passed over in the window: a CR at its end may
 * be the first half of a CR LF, counted as one line end once the LF is
 * read. */
static const char *passable_end(const reader *r)
{
    const char *end = r->end;
    return !r->at_eof && end > r->p && end[-1] == '\r' ? end - 1 : end;
}

static int unreadable(const reader *r);

/* Skips blanks, reading on while they run to the end of the window (so
 * r->p reaches r->end only at the end of the file).  Returns nonzero when
 * the file cannot be read further (a NUL byte, a read error: r->p then
 * stays at or before the NUL). */
static int skip_ws(reader *r)
{
    for (;;) {
        const char *end = passable_end(r), *q = r->p;
        while (q < end && isspace((unsigned char)*q))
            q++;
        advance_to(r, q);
        if (q < end || r->at_eof)
            return unreadable(r);
        more(r); /* read on from r->p, and look again */
    }
}

/* Line and column of q, which is at or after r->p's line start. */
static void position_of(const reader *r, const char *q, uint32_t *line,
                        uint32_t *col)
{
    uint32_t l = r->line;
    uint64_t ls = r->line_start;
    for (const char *s = r->p; s < q && s < r->end; s++)
        if (ends_line(s, r->end)) {
            l++;
            ls = offset_of(r, s + 1);
        }
    *line = l;
    *col = (uint32_t)(offset_of(r, q) - ls) + 1;
}

static int fail_at(reader *r, const char *q, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(reader *r, const char *q, const char *fmt, ...)
{
    uint32_t line, col;
    position_of(r, q, &line, &col);
    char *why = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&why, fmt, ap) < 0)
        alloc_fail(strlen(fmt), "an error message");
    va_end(ap);
    /* a name too long for err loses its beginning, never line, column or
     * reason */
    size_t tail = (size_t)snprintf(NULL, 0, ":%u:%u: %s", line, col, why);
    size_t name_len = strlen(r->name), room = r->err_len > tail + 4
                                                  ? r->err_len - tail - 4 : 0;
    const char *name = r->name;
    const char *cut = "";
    if (name_len > room) {
        name += name_len - room;
        cut = "...";
    }
    snprintf(r->err, r->err_len, "%s%s:%u:%u: %s", cut, name, line, col, why);
    free(why);
    return TRACE_ERR;
}

/* True when the object starting at q never closes before the end of the
 * buffer: the file was cut off while it was being written. */
static int object_unterminated(const char *q, const char *end)
{
    int depth = 0, in_string = 0;
    for (; q < end; q++) {
        char c = *q;
        if (in_string) {
            if (c == '\\')
                q++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth <= 0)
                return 0;
        }
    }
    return 1;
}

/* ---- exact numbers and ids --------------------------------------------- */

/* Where the text of an object's members is: cJSON keeps a number only as a
 * double, which merges 2^53 and 2^53 + 1, or 1e400 and 2e400; ids, names
 * and timestamps are read from the text instead (exact). */
static const char *scan_string(const char *q, const char *end, int *st);

static const char *string_end(const reader *r, const char *q);

/* One past the JSON value at q, in the object being converted (valid
 * JSON: cJSON has parsed it). */
static const char *skip_value(const reader *r, const char *q)
{
    const char *end = r->end;
    int depth = 0;
    if (*q != '{' && *q != '[') {
        if (*q == '"')
            return string_end(r, q);
        for (; q < end; q++)
            switch (*q) {
            case ',': case '}': case ']': case ' ': case '\t': case '\r':
            case '\n':
                return q;
            }
        return q;
    }
    for (; q < end; q++) {
        if (*q == '"')
            q = string_end(r, q) - 1;
        else if (*q == '{' || *q == '[')
            depth++;
        else if ((*q == '}' || *q == ']') && --depth == 0)
            return q + 1;
    }
    return end;
}

/* One past the string at q (a '"'; valid JSON: cJSON has parsed it). */
static const char *string_end(const reader *r, const char *q)
{
    int st;
    if (!r->obj_plain)
        return scan_string(q, r->end, &st);
    const char *close = memchr(q + 1, '"', (size_t)(r->end - q - 1));
    return close ? close + 1 : r->end;
}

static const char *skip_blank(const char *q, const char *end)
{
    while (q < end && (unsigned char)*q <= ' ')
        q++;
    return q;
}

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
        q = skip_blank(string_end(r, skip_blank(q, end)), end) + 1;
        q = skip_blank(q, end);
        const char *v_end = skip_value(r, q);
        if (k < MEMBER_SPANS) {
            r->spans[k][0] = q;
            r->spans[k][1] = v_end;
            r->n_spans = k + 1;
            r->spans_next = skip_blank(v_end, end) + 1; /* past the ',' */
        }
        if (k == i) {
            *vs = q;
            *ve = v_end;
            return;
        }
        q = skip_blank(v_end, end) + 1;
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

static int needs_variable(event_kind k)
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
    if (needs_variable(kind) && var == STR_NONE) {
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
    if (needs_variable(kind))
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
        position_of(r, nul, &line, &col);
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
    r->spans_next = skip_blank(at, r->end) + 1;
    return convert_event(r, obj, &ef, e, why, why_len);
}

static int add_event(reader *r, const cJSON *obj, const char *at,
                     const char *end)
{
    trace *t = r->t;
    char why[200];
    event e;
    memset(&e, 0, sizeof e);
    const char *problem = check_event(r, obj, at, end, &e, why, sizeof why);
    uint32_t line, col;
    position_of(r, at, &line, &col);
    if (problem) {
        if (!r->opts->lenient)
            return fail_at(r, at, "%s", problem);
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
        return fail_at(r, at, "too many events");
    ALLOC_GROW(t->events, t->n_events + 1, r->events_cap);
    t->events[t->n_events++] = e;
    t->stats.by_kind[e.kind]++;
    return TRACE_OK;
}

/* ---- a bad object, and where the next object starts ---------------------- */

#define JSON_DEPTH_MAX 1000 /* cJSON's CJSON_NESTING_LIMIT */
/* Bytes that looking for an event glued onto a bad object may read, per
 * bad object (keeps hostile input linear). */
#define GLUED_SCAN_BUDGET ((size_t)8 << 20)

/* The string at q (a '"'): returns one past its closing quote (*st = 1),
 * end if the text ends inside it (*st = 0), or its bad escape (*st = -1).
 * Like cJSON, raw control bytes are accepted. */
static const char *scan_string(const char *q, const char *end, int *st)
{
    for (q++; q < end; q++) {
        if (*q == '"') {
            *st = 1;
            return q + 1;
        }
        if (*q != '\\')
            continue;
        if (++q >= end)
            break;
        if (*q == 'u') {
            for (int i = 0; i < 4; i++)
                if (++q >= end) {
                    *st = 0;
                    return end;
                } else if (!isxdigit((unsigned char)*q)) {
                    *st = -1;
                    return q;
                }
        } else if (!strchr("\"\\/bfnrt", *q) || !*q) {
            *st = -1;
            return q;
        }
    }
    *st = 0;
    return end;
}

/* How far the JSON object at q (a '{') is valid.  If it closes, sets
 * *closed and returns one past its '}'.  Otherwise returns the first byte
 * that cannot continue it: end when all of q..end is the valid beginning
 * of an object (a cut-off object).  Accepts at least what cJSON accepts
 * (any byte up to ' ' is blank; numbers are checked loosely). */
static const char *json_scan(const char *q, const char *end, int *closed)
{
    enum { VALUE, VALUE_OR_CLOSE, KEY, KEY_OR_CLOSE, COLON, NEXT } want = VALUE;
    char stack[JSON_DEPTH_MAX];
    int depth = 0, st;
    *closed = 0;
    while (q < end) {
        unsigned char c = (unsigned char)*q;
        if (c <= ' ') {
            q++;
            continue;
        }
        switch (want) {
        case VALUE:
        case VALUE_OR_CLOSE:
            if (c == ']' && want == VALUE_OR_CLOSE)
                goto close;
            if (depth == 0 && c != '{')
                return q; /* only an object is an event */
            if (c == '{' || c == '[') {
                if (depth == JSON_DEPTH_MAX)
                    return q;
                stack[depth++] = (char)c;
                want = c == '{' ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
                q++;
            } else if (c == '"') {
                q = scan_string(q, end, &st);
                if (st <= 0)
                    return q;
                want = NEXT;
            } else if (c == '-' || isdigit(c)) {
                while (q < end && strchr("0123456789+-.eE", *q) && *q)
                    q++;
                want = NEXT;
            } else {
                const char *word = c == 't' ? "true" : c == 'f' ? "false"
                                 : c == 'n' ? "null" : NULL;
                if (!word)
                    return q;
                for (; *word; word++, q++)
                    if (q >= end)
                        return end;
                    else if (*q != *word)
                        return q;
                want = NEXT;
            }
            break;
        case KEY:
        case KEY_OR_CLOSE:
            if (c == '}' && want == KEY_OR_CLOSE)
                goto close;
            if (c != '"')
                return q;
            q = scan_string(q, end, &st);
            if (st <= 0)
                return q;
            want = COLON;
            break;
        case COLON:
            if (c != ':')
                return q;
            q++;
            want = VALUE;
            break;
        case NEXT:
            if (c == ',') {
                want = stack[depth - 1] == '{' ? KEY : VALUE;
                q++;
                break;
            }
            if (c != (stack[depth - 1] == '{' ? '}' : ']'))
                return q;
        close:
            q++;
            if (--depth == 0) {
                *closed = 1;
                return q;
            }
            want = NEXT;
            break;
        }
    }
    return end;
}

/* True when a complete object with a "thread" or a "type" member (an
 * event, not a nested value) starts at q.  Spends *budget. */
static int event_glued_at(const char *q, const char *end, size_t *budget)
{
    int closed;
    const char *lim = (size_t)(end - q) > *budget ? q + *budget : end;
    const char *e = json_scan(q, lim, &closed);
    size_t used = (size_t)(e - q) + 1;
    *budget = used < *budget ? *budget - used : 0;
    if (!closed)
        return 0;
    cJSON *obj = cJSON_ParseWithLength(q, (size_t)(e - q));
    int yes = cJSON_IsObject(obj) &&
              (cJSON_GetObjectItemCaseSensitive(obj, "thread") ||
               cJSON_GetObjectItemCaseSensitive(obj, "type"));
    cJSON_Delete(obj);
    return yes;
}

/* Where the next object starts after bad text at s (docs/trace-format.md,
 * "Malformed and cut-off objects"): the first '{' after s that
 *   (a) begins a line (only blanks before it) at a column <= max_col, or
 *   (b) only when `glued`: lies at or before f, where the bad text stopped
 *       being valid JSON, and begins a complete event object (one written
 *       right after a cut-off one), or
 *   (c) lies after f and follows a '}' (blanks between): a glued "}{".
 * NULL if there is none. */
static const char *next_object_start(const char *s, const char *f,
                                     const char *end, size_t max_col,
                                     int glued)
{
    size_t budget = GLUED_SCAN_BUDGET;
    const char *line_start = NULL; /* NULL: still on s's line */
    int blank_so_far = 0;
    char last = *s;                /* last non-blank byte before q */
    for (const char *q = s + 1; q < end; q++) {
        char c = *q;
        if (c == '\n') {
            line_start = q + 1;
            blank_so_far = 1;
            continue;
        }
        if (c == '{') {
            if (blank_so_far && (size_t)(q - line_start) < max_col)
                return q;
            if (q > f && last == '}')
                return q;
            if (glued && q <= f && budget && event_glued_at(q, end, &budget))
                return q;
        }
        if (c != ' ' && c != '\t')
            blank_so_far = 0;
        if (!isspace((unsigned char)c))
            last = c;
    }
    return NULL;
}

/* True when the text from s up to next (blanks before next aside) is all
 * valid JSON, f being where it stops being valid: an object that was cut
 * off, and writing went on at next. */
static int cut_before(const char *s, const char *f, const char *next)
{
    while (next > s && isspace((unsigned char)next[-1]))
        next--;
    return f >= next;
}

/* The object at s did not parse (cJSON stopped at parse_end).  Decides
 * whether it is cut off at the end of the file (a warning: sets *stop),
 * cut off before a next object (malformed), or invalid JSON; on error
 * sets r->resume. */
static int bad_object(reader *r, const char *s, const char *parse_end,
                      int *stop)
{
    int closed;
    const char *f = json_scan(s, r->end, &closed);
    size_t col = (size_t)(offset_of(r, s) - r->line_start) + 1;
    if (closed) { /* cJSON is stricter than json_scan somewhere */
        r->resume = next_object_start(f - 1, f - 1, r->end, col, 0);
        return fail_at(r, parse_end && parse_end >= s ? parse_end : s,
                       "invalid JSON");
    }
    const char *next = next_object_start(s, f, r->end, col, 0);
    const char *text_end = r->end;
    while (text_end > s && isspace((unsigned char)text_end[-1]))
        text_end--;
    if (!(next && cut_before(s, f, next)) && f < text_end) {
        /* the text goes wrong before the end: an event glued onto it? */
        const char *glued = next_object_start(s, f, r->end, col, 1);
        if (glued && cut_before(s, f, glued))
            next = glued;
    }
    r->resume = next ? next : r->end;
    if (next && cut_before(s, f, next)) {
        uint32_t line, ncol;
        position_of(r, next, &line, &ncol);
        return fail_at(r, s, "malformed object: it is cut off before the "
                       "next object (line %u, column %u)", line, ncol);
    }
    if (!next && object_unterminated(s, r->end)) {
        uint32_t line, lcol;
        position_of(r, s, &line, &lcol);
        r->t->stats.truncated_files++;
        trace_warn(r->t, r->opts, "%s:%u:%u: last object is cut off "
                   "(truncated trace); ignored", r->name, line, lcol);
        *stop = 1;
        return TRACE_OK;
    }
    return fail_at(r, f, "invalid JSON");
}

/* Whether the file cannot be read further: a NUL byte (a binary file) or
 * a read error came in.  Either fails the file, under --lenient too. */
static int unreadable(const reader *r)
{
    return r->nul || r->read_error;
}

/* The error of an unreadable file (r->p at or before its NUL byte); a
 * read error is named by load_stream(). */
static int fail_unreadable(reader *r)
{
    return r->nul ? fail_at(r, r->nul, "NUL byte: this is not a JSON text file")
                  : TRACE_ERR;
}

/* Reads on to the end of the file (a bad object is told from a cut-off
 * one, and the next object found, on the whole rest of the file, as when
 * it was read whole).  False when the file is unreadable. */
static int read_rest(reader *r)
{
    while (more(r))
        continue;
    return !unreadable(r);
}

/* Parses one object at r->p, reading on while the window cuts it short.
 * Sets *stop when the rest must be ignored. */
static int read_object(reader *r, int *stop)
{
    const char *parse_end;
    cJSON *obj;
    for (;;) {
        json_arena_enter(r->arena); /* leaving it frees the tree */
        parse_end = NULL;
        obj = cJSON_ParseWithLengthOpts(r->p, (size_t)(r->end - r->p),
                                        &parse_end, 0);
        if (obj)
            break;
        json_arena_leave(r->arena);
        /* more() moves the text from r->p on: parse_end moves with it */
        size_t parsed = parse_end ? (size_t)(parse_end - r->p) : 0;
        int read_on = more(r);
        parse_end = parse_end ? r->p + parsed : NULL;
        if (!read_on)
            break;
    }
    if (!obj) {
        if (unreadable(r)) /* anywhere: as if the file were read whole */
            return fail_unreadable(r);
        if (r->t->stats.interrupted) {
            *stop = 1; /* cut short by the stop, not by the file */
            return TRACE_OK;
        }
        return bad_object(r, r->p, parse_end, stop);
    }
    int rc = unreadable(r) ? fail_unreadable(r)
                           : add_event(r, obj, r->p, parse_end);
    json_arena_leave(r->arena);
    if (rc == TRACE_OK)
        advance_to(r, parse_end);
    return rc;
}

/* --lenient: skips bad text at r->p (counted as a skipped event) up to
 * where the next object starts (r->resume, or as next_object_start finds
 * it for stray text: any line that starts with '{', or a glued "}{"). */
static void skip_bad_text(reader *r)
{
    r->t->stats.events_skipped++;
    trace_warn(r->t, r->opts, "%s; skipped", r->err);
    const char *to = r->resume;
    if (!to && !read_rest(r))
        return; /* read_events' next skip_ws() says it */
    if (!to && r->p < r->end)
        to = next_object_start(r->p, r->p, r->end, SIZE_MAX, 0);
    advance_to(r, to ? to : r->end);
}

/* Whether SIGINT/SIGTERM asked the run to stop (trace_options.stop). */
static int stopped(const trace_options *o)
{
    return o->stop && *o->stop;
}

/* Reads the events of r's text, a JSON array or a stream of objects. */
static int read_events(reader *r)
{
    while (r->end - r->p < 3 && more(r))
        continue; /* enough to see a byte order mark */
    if (unreadable(r))
        return fail_unreadable(r);
    if (r->end - r->p >= 3 && memcmp(r->p, "\xEF\xBB\xBF", 3) == 0)
        r->p += 3; /* a UTF-8 byte order mark */
    if (skip_ws(r))
        return fail_unreadable(r);
    int in_array = r->p < r->end && *r->p == '[';
    int first = 1, stop = 0;
    if (in_array)
        advance_to(r, r->p + 1);
    for (;;) {
        if (stopped(r->opts)) {
            r->t->stats.interrupted = 1;
            return TRACE_OK;
        }
        if (skip_ws(r))
            return fail_unreadable(r);
        if (r->p >= r->end) {
            if (in_array && !r->t->stats.interrupted) {
                r->t->stats.truncated_files++;
                trace_warn(r->t, r->opts, "%s:%u: the JSON array is not "
                           "closed (truncated trace)", r->name, r->line);
            }
            return TRACE_OK;
        }
        if (in_array && *r->p == ']') {
            advance_to(r, r->p + 1);
            if (skip_ws(r))
                return fail_unreadable(r);
            if (r->p < r->end)
                return fail_at(r, r->p, "unexpected text after the array");
            return TRACE_OK;
        }
        if (in_array && !first) {
            if (*r->p != ',')
                return fail_at(r, r->p, "expected ',' or ']' in the array");
            advance_to(r, r->p + 1);
            if (skip_ws(r))
                return fail_unreadable(r);
        }
        r->resume = NULL;
        int rc = r->p < r->end && *r->p != '{'
                     ? fail_at(r, r->p, "expected an event object '{'")
                     : read_object(r, &stop);
        if (stop)
            return TRACE_OK;
        first = 0;
        if (rc != TRACE_OK) {
            if (!r->opts->lenient || unreadable(r))
                return TRACE_ERR;
            skip_bad_text(r);
            first = 1; /* an array's next element needs no ',' after a skip */
        }
    }
}

/* After an error: reads on through the file (what is read is dropped,
 * the lines counted) to see whether a NUL byte comes later, which then
 * is the error, as when the file is read whole. */
static int unreadable_later(reader *r)
{
    while (!unreadable(r) && !r->at_eof) {
        advance_to(r, passable_end(r));
        more(r);
    }
    return unreadable(r) ? fail_unreadable(r) : TRACE_ERR;
}

/* Reads the events of r's text.  A NUL byte anywhere fails the file,
 * under --lenient too, and is the error named. */
static int read_buffer(reader *r)
{
    int rc = read_events(r);
    return rc != TRACE_OK && !unreadable(r) ? unreadable_later(r) : rc;
}

static uint32_t add_file(trace *t, const char *name, uint32_t *cap)
{
    ALLOC_GROW(t->files, t->n_files + 1, *cap);
    t->files[t->n_files] = xstrdup(name);
    return t->n_files++;
}

typedef struct load_state {
    trace *t;
    const trace_options *opts;
    uint32_t files_cap, events_cap;
    char *err;
    size_t err_len;
    struct stat *seen;      /* files read so far, by device and inode */
    uint32_t n_seen, seen_cap;
} load_state;

/* Reads the events of r's text (its window set up) as file `name`. */
static int load_text(load_state *ls, const char *name, reader *r)
{
    r->t = ls->t;
    r->opts = ls->opts;
    r->name = name;
    r->file = add_file(ls->t, name, &ls->files_cap);
    r->line = 1;
    r->events_cap = ls->events_cap;
    r->err = ls->err;
    r->err_len = ls->err_len;
    r->arena = json_arena_new();
    int rc = read_buffer(r);
    json_arena_free(r->arena);
    ls->events_cap = r->events_cap;
    return rc;
}

static int load_bytes(load_state *ls, const char *name, const char *data,
                      size_t len)
{
    reader r = {.start = data, .end = data + len, .p = data, .at_eof = 1,
                .has_cr = memchr(data, '\r', len) != NULL,
                .nul = memchr(data, '\0', len)};
    return load_text(ls, name, &r);
}

/* Reads on into r's window: keeps [r->p, r->end), moved to the start of
 * the window (which doubles while that fills more than half of it), and
 * fills the rest from the file.  Returns 0 when nothing more was read: the
 * file's end, a read error (r->read_error), a NUL byte (r->nul: a binary
 * file, or /dev/zero as standard input; nothing after it is read) or a
 * stop signal (stats.interrupted).  Pointers into the old window are
 * stale afterwards; r->p, r->end and the line are kept right. */
static int more(reader *r)
{
    if (r->at_eof)
        return 0;
    if (stopped(r->opts)) {
        r->t->stats.interrupted = 1;
        r->at_eof = 1;
        return 0;
    }
    size_t keep = (size_t)(r->end - r->p);
    r->start_at = offset_of(r, r->p);
    memmove(r->buf, r->p, keep);
    ALLOC_GROW(r->buf, 2 * keep, r->cap); /* room for as much again */
    r->start = r->p = r->buf;
    r->end = r->buf + keep;
    size_t n = fread(r->buf + keep, 1, r->cap - keep, r->in);
    r->end += n;
    if (r->opts->bytes_read) /* another thread shows it */
        __atomic_fetch_add(r->opts->bytes_read, n, __ATOMIC_RELAXED);
    if (n && memchr(r->buf + keep, '\r', n))
        r->has_cr = 1;
    r->nul = n ? memchr(r->buf + keep, '\0', n) : NULL;
    if (n < r->cap - keep) { /* a regular file or a pipe at its end */
        r->at_eof = 1;
        /* a stop signal interrupts a blocked read (a pipe): no error */
        if (ferror(r->in) && stopped(r->opts))
            r->t->stats.interrupted = 1;
        else if (ferror(r->in))
            r->read_error = 1;
    }
    if (r->nul)
        r->at_eof = 1;
    return n && !unreadable(r);
}

/* Reads the file f as `name` a window at a time (ls->opts->window bytes
 * at first, or TRACE_WINDOW): the file is never all in memory, unless an
 * object is about as large, or a malformed object or stray text makes the
 * loader read the rest of the file to tell where the next object starts
 * (read_rest()). */
static int load_stream(load_state *ls, const char *name, FILE *f)
{
    size_t cap = ls->opts->window ? ls->opts->window : TRACE_WINDOW;
    reader r = {.in = f, .cap = cap};
    r.buf = xmalloc(r.cap);
    r.start = r.end = r.p = r.buf; /* read_events() reads the first window */
    int rc = load_text(ls, name, &r);
    free(r.buf);
    if (r.read_error) {
        snprintf(ls->err, ls->err_len, "%s: read error", name);
        rc = TRACE_ERR;
    }
    return rc;
}

/* Whether the file (dev, ino) was read already; remembers it if not. */
static int seen_before(load_state *ls, const struct stat *st)
{
    for (uint32_t i = 0; i < ls->n_seen; i++)
        if (ls->seen[i].st_dev == st->st_dev && ls->seen[i].st_ino == st->st_ino)
            return 1;
    ALLOC_GROW(ls->seen, ls->n_seen + 1, ls->seen_cap);
    ls->seen[ls->n_seen++] = *st;
    return 0;
}

/* Counts and says that path is not read again. */
static int skip_read_already(load_state *ls, const char *path)
{
    ls->t->stats.files_skipped++;
    trace_warn(ls->t, ls->opts, "%s: this file was read already; its "
               "events are not read twice", path);
    return TRACE_OK;
}

/* Reads path ("-": standard input); a file read already is skipped when
 * check_seen (a loader thread's files were checked before, in order). */
static int read_file(load_state *ls, const char *path, int check_seen)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(ls->err, ls->err_len, "%s: cannot open: %s", path,
                 strerror(errno));
        return TRACE_ERR;
    }
    struct stat st;
    if (check_seen && !is_stdin && fstat(fileno(f), &st) == 0 &&
        seen_before(ls, &st)) {
        fclose(f);
        return skip_read_already(ls, path);
    }
    int rc = load_stream(ls, path, f);
    if (!is_stdin)
        fclose(f);
    return rc;
}

/* Reads a regular file, or standard input for "-". */
static int load_file(load_state *ls, const char *path)
{
    return read_file(ls, path, 1);
}

/* ---- files in parallel ----------------------------------------------------
 *
 * The files of a directory are read and
 * converted by worker threads, each into a trace of its own, its warnings
 * kept as printed; the loader merges them in order (interning their
 * strings, threads, objects and channels again, and renumbering their
 * events), prints their warnings, and stops at the first that failed: the
 * same trace, messages and order as reading them one by one.  Workers stay
 * at most LOAD_AHEAD files ahead of the merge. */

enum { LOAD_AHEAD = 4 };

typedef struct file_job {
    const char *path;
    int skip;                /* the same file as one before it */
    int done, rc;
    trace *part;
    char *err;               /* as large as the caller's buffer */
    char *warnings;          /* as printed, or NULL */
    size_t warnings_len;
} file_job;

typedef struct file_pool {
    const trace_options *opts;
    size_t err_len;
    file_job *jobs;
    size_t n, next, merged;
    int quit;
    pthread_mutex_t lock;
    pthread_cond_t changed;
} file_pool;

/* Loader threads: one per core, but one in all under a small address
 * space limit (ulimit -v): each thread's malloc arena reserves 64 MB, and
 * where that fails glibc retries it at every allocation (t0120 took
 * 20 s a run). */
static unsigned loader_threads(const trace_options *opts)
{
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
        as.rlim_cur < ((rlim_t)4 << 30))
        return 1;
    long n = opts->jobs ? (long)opts->jobs : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > LOAD_AHEAD ? LOAD_AHEAD : (unsigned)n; /* more would
                                                  wait for work: file_worker */
}

static void load_job(const trace_options *opts, file_job *job,
                     size_t err_len)
{
    trace_options own = *opts;
    FILE *w = opts->warnings ? open_memstream(&job->warnings, &job->warnings_len)
                             : NULL;
    if (opts->warnings && !w)
        alloc_fail(0, "a buffer for warnings");
    own.warnings = w; /* NULL: counted only, as opts says */
    load_state sub = {.t = xcalloc(1, sizeof(trace)), .opts = &own,
                      .err = job->err, .err_len = err_len};
    job->rc = read_file(&sub, job->path, 0); /* job->skip said it */
    if (w)
        fclose(w);
    job->part = sub.t;
}

static void *file_worker(void *arg)
{
    file_pool *fp = arg;
    pthread_mutex_lock(&fp->lock);
    for (;;) {
        while (!fp->quit && fp->next < fp->n && fp->next >= fp->merged + LOAD_AHEAD)
            pthread_cond_wait(&fp->changed, &fp->lock);
        if (fp->quit || fp->next >= fp->n)
            break;
        file_job *job = &fp->jobs[fp->next++];
        pthread_mutex_unlock(&fp->lock);
        if (!job->skip)
            load_job(fp->opts, job, fp->err_len);
        pthread_mutex_lock(&fp->lock);
        job->done = 1;
        pthread_cond_broadcast(&fp->changed);
    }
    pthread_mutex_unlock(&fp->lock);
    return NULL;
}

/* Appends part (one file's trace) to ls->t: its file, strings, threads,
 * objects, channels and events, renumbered.  0 when the events would be
 * too many. */
static int merge_part(load_state *ls, const trace *part)
{
    trace *t = ls->t;
    if ((uint64_t)t->n_events + part->n_events > UINT32_MAX - 1)
        return 0;
    uint32_t file = add_file(t, part->files[0], &ls->files_cap);
    str_id *str = xmalloc_array((size_t)part->n_strings + 1, sizeof *str);
    intern_strings_of(t, part, str);
    uint32_t *thr = xmalloc_array((size_t)part->n_threads + 1, sizeof *thr);
    for (uint32_t i = 0; i < part->n_threads; i++)
        thr[i] = intern_thread(t, str[part->threads[i].name]);
    uint32_t *obj = xmalloc_array((size_t)part->n_objects + 1, sizeof *obj);
    for (uint32_t i = 0; i < part->n_objects; i++)
        obj[i] = intern_object(t, str[part->objects[i].node],
                               str[part->objects[i].name]);
    uint32_t *chn = xmalloc_array((size_t)part->n_channels + 1, sizeof *chn);
    for (uint32_t i = 0; i < part->n_channels; i++) {
        const channel *c = &part->channels[i];
        channel m = {str[c->src], str[c->src_port], str[c->dst], str[c->dst_port]};
        chn[i] = intern_channel(t, &m);
    }
    ALLOC_GROW(t->events, t->n_events + part->n_events, ls->events_cap);
    for (uint32_t i = 0; i < part->n_events; i++) {
        event e = part->events[i];
        e.thread = thr[e.thread];
        e.file = file;
        if (e.loc != STR_NONE)
            e.loc = str[e.loc];
        if (e.message != STR_NONE)
            e.message = str[e.message];
        if (e.object != NONE)
            e.object = (int32_t)(needs_variable(e.kind) ? obj[e.object]
                                 : e.kind == EV_CREATE || e.kind == EV_JOIN
                                     ? thr[e.object] : chn[e.object]);
        t->events[t->n_events++] = e;
    }
    for (int k = 0; k <= EV_KIND_MAX; k++)
        t->stats.by_kind[k] += part->stats.by_kind[k];
    t->stats.events_skipped += part->stats.events_skipped;
    t->stats.truncated_files += part->stats.truncated_files;
    t->stats.files_skipped += part->stats.files_skipped;
    t->stats.interrupted |= part->stats.interrupted;
    free(str);
    free(thr);
    free(obj);
    free(chn);
    return 1;
}

/* Merges job i once it is done: 0, or TRACE_ERR with its message. */
static int merge_job(load_state *ls, file_job *job)
{
    if (job->skip)
        return skip_read_already(ls, job->path);
    if (job->warnings_len && ls->opts->warnings)
        fwrite(job->warnings, 1, job->warnings_len, ls->opts->warnings);
    if (job->part)
        ls->t->stats.warnings += job->part->stats.warnings;
    if (job->rc != TRACE_OK) {
        snprintf(ls->err, ls->err_len, "%s", job->err);
        return TRACE_ERR;
    }
    if (job->part->n_files && !merge_part(ls, job->part)) {
        snprintf(ls->err, ls->err_len, "%s: too many events", job->path);
        return TRACE_ERR;
    }
    return TRACE_OK;
}

static void free_job(file_job *job)
{
    trace_free(job->part);
    job->part = NULL;
    free(job->warnings);
    job->warnings = NULL;
}

/* Reads the regular files paths[0..n) in order, in parallel when there
 * are several files and cores. */
static int load_files(load_state *ls, char *const *paths, size_t n)
{
    unsigned workers = loader_threads(ls->opts);
    if (n < 2 || workers < 2) {
        int rc = TRACE_OK;
        for (size_t i = 0; i < n && rc == TRACE_OK; i++)
            rc = load_file(ls, paths[i]);
        return rc;
    }
    file_pool fp = {.opts = ls->opts, .n = n, .err_len = ls->err_len};
    fp.jobs = xcalloc(n, sizeof *fp.jobs);
    for (size_t i = 0; i < n; i++) { /* the same file twice: in order */
        struct stat st;
        fp.jobs[i].path = paths[i];
        fp.jobs[i].err = xcalloc(1, ls->err_len);
        fp.jobs[i].skip = stat(paths[i], &st) == 0 && seen_before(ls, &st);
    }
    pthread_mutex_init(&fp.lock, NULL);
    pthread_cond_init(&fp.changed, NULL);
    pthread_t threads[LOAD_AHEAD];
    unsigned started = 0;
    pthread_attr_t attr; /* small stacks: the address space may be limited */
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, (size_t)1 << 20);
    for (unsigned i = 0; i < workers && i < n; i++)
        started += pthread_create(&threads[started], &attr, file_worker, &fp) == 0;
    pthread_attr_destroy(&attr);
    int rc = TRACE_OK;
    for (size_t i = 0; i < n; i++) {
        if (!started) { /* no thread: read it here */
            if (!fp.jobs[i].skip)
                load_job(ls->opts, &fp.jobs[i], fp.err_len);
        } else {
            pthread_mutex_lock(&fp.lock);
            while (!fp.jobs[i].done)
                pthread_cond_wait(&fp.changed, &fp.lock);
            pthread_mutex_unlock(&fp.lock);
        }
        if (rc == TRACE_OK)
            rc = merge_job(ls, &fp.jobs[i]);
        free_job(&fp.jobs[i]);
        pthread_mutex_lock(&fp.lock);
        fp.merged = i + 1;
        if (rc != TRACE_OK)
            fp.quit = 1; /* the rest is not needed */
        pthread_cond_broadcast(&fp.changed);
        pthread_mutex_unlock(&fp.lock);
        if (rc != TRACE_OK)
            break;
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    for (size_t i = 0; i < n; i++) { /* those left when it stopped */
        free_job(&fp.jobs[i]);
        free(fp.jobs[i].err);
    }
    pthread_mutex_destroy(&fp.lock);
    pthread_cond_destroy(&fp.changed);
    free(fp.jobs);
    return rc;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_directory(load_state *ls, const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        snprintf(ls->err, ls->err_len, "%s: cannot open directory: %s", path,
                 strerror(errno));
        return TRACE_ERR;
    }
    char **names = NULL;
    uint32_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        size_t dir_len = strlen(path);
        while (dir_len > 1 && path[dir_len - 1] == '/')
            dir_len--;
        size_t len = dir_len + strlen(de->d_name) + 2;
        char *full = xmalloc(len);
        snprintf(full, len, "%.*s/%s", (int)dir_len, path, de->d_name);
        struct stat st;
        int found = stat(full, &st) == 0, err = errno;
        if (found && S_ISREG(st.st_mode)) {
            ALLOC_GROW(names, n + 1, cap);
            names[n++] = full;
            continue;
        }
        /* a dangling link, a link loop, a FIFO...: said, not skipped
         * silently (a subdirectory is not a trace file: skipped) */
        if (!found) {
            ls->t->stats.files_skipped++;
            trace_warn(ls->t, ls->opts, "%s: skipped: %s", full, strerror(err));
        } else if (!S_ISDIR(st.st_mode)) {
            ls->t->stats.files_skipped++;
            trace_warn(ls->t, ls->opts, "%s: skipped: not a regular file",
                       full);
        }
        free(full);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_names);
    int rc = TRACE_OK;
    if (n == 0) {
        snprintf(ls->err, ls->err_len, "%s: directory holds no trace file",
                 path);
        rc = TRACE_ERR;
    }
    if (rc == TRACE_OK)
        rc = load_files(ls, names, n);
    for (uint32_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

static int finish(load_state *ls, int rc, trace **out)
{
    free(ls->seen);
    /* stopped before any event: an empty, partial run, not bad input */
    if (rc == TRACE_OK && ls->t->n_events == 0 && !ls->t->stats.interrupted) {
        snprintf(ls->err, ls->err_len, "%s: no events in the trace",
                 ls->t->n_files ? ls->t->files[0] : "input");
        rc = TRACE_ERR;
    }
    if (rc == TRACE_OK)
        trace_derive(ls->t, ls->opts);
    if (rc != TRACE_OK) {
        trace_free(ls->t);
        *out = NULL;
        return TRACE_ERR;
    }
    interner_free(ls->t);
    *out = ls->t;
    return TRACE_OK;
}

/* How many of paths[i..n) are regular files, one after another. */
static size_t regular_files_from(const char *const *paths, size_t i,
                                 size_t n)
{
    size_t run = 0;
    struct stat st;
    while (i + run < n && strcmp(paths[i + run], "-") != 0 &&
           stat(paths[i + run], &st) == 0 && S_ISREG(st.st_mode))
        run++;
    return run;
}

int trace_load(const char *const *paths, size_t n_paths,
               const trace_options *opts, trace **out, char *err,
               size_t err_len)
{
    json_arena_install();
    load_state ls = {.t = xcalloc(1, sizeof(trace)), .opts = opts,
                     .err = err, .err_len = err_len};
    int rc = TRACE_OK;
    for (size_t i = 0; i < n_paths && rc == TRACE_OK; i++) {
        struct stat st;
        size_t run = regular_files_from(paths, i, n_paths);
        if (run) { /* read together, in parallel when several */
            rc = load_files(&ls, (char *const *)paths + i, run);
            i += run - 1;
        } else if (strcmp(paths[i], "-") == 0) {
            rc = load_file(&ls, paths[i]);
        } else if (stat(paths[i], &st) != 0) {
            snprintf(err, err_len, "%s: cannot open: %s", paths[i],
                     strerror(errno));
            rc = TRACE_ERR;
        } else if (S_ISDIR(st.st_mode)) {
            rc = load_directory(&ls, paths[i]);
        } else if (!S_ISREG(st.st_mode)) {
            /* a FIFO would block until a writer comes, a device may never
             * end: only standard input ("-") is read as a stream */
            snprintf(err, err_len, "%s: not a regular file (a FIFO, device "
                     "or socket); give a stream as '-' on standard input",
                     paths[i]);
            rc = TRACE_ERR;
        } else {
            rc = load_file(&ls, paths[i]);
        }
    }
    return finish(&ls, rc, out);
}

int trace_load_buffer(const char *name, const char *data, size_t len,
                      const trace_options *opts, trace **out, char *err,
                      size_t err_len)
{
    json_arena_install();
    load_state ls = {.t = xcalloc(1, sizeof(trace)), .opts = opts,
                     .err = err, .err_len = err_len};
    return finish(&ls, load_bytes(&ls, name, data, len), out);
}

void trace_free(trace *t)
{
    if (!t)
        return;
    interner_free(t);
    interned_strings_free(t);
    free(t->strings);
    for (uint32_t i = 0; i < t->n_files; i++)
        free(t->files[i]);
    free(t->files);
    for (uint32_t i = 0; i < t->n_threads; i++)
        free(t->threads[i].events);
    free(t->threads);
    free(t->events);
    free(t->objects);
    free(t->channels);
    free(t->handlers);
    for (uint32_t i = 0; i < t->n_matches; i++)
        free(t->matches[i].sends);
    free(t->matches);
    free(t->sections);
    for (uint32_t i = 0; i < t->n_waits; i++)
        free(t->waits[i].notifies);
    free(t->waits);
    free(t);
}
