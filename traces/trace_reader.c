/*
 * trace_reader.c — the loader's window on a file and the JSON text in it
 * (trace_reader.h).
 */
#include "trace_reader.h"
#include "../util/alloc.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdarg.h>
#include <string.h>

static const char *scan_string(const char *q, const char *end, int *st);

/* Whether s ends a line: LF, CR LF (at its LF), or a CR alone (old Mac
 * line ends: counted too, so that errors name the right line). */
static int ends_line(const char *s, const char *end)
{
    return *s == '\n' || (*s == '\r' && (s + 1 >= end || s[1] != '\n'));
}

/* The file offset of q, a byte of the window. */
uint64_t reader_offset_of(const reader *r, const char *q)
{
    return r->start_at + (uint64_t)(q - r->start);
}

/* Moves r->p to q, keeping line and line_start in step. */
void reader_advance_to(reader *r, const char *q)
{
    if (!r->has_cr) { /* LF only: memchr finds them */
        for (const char *s = r->p; s < q;) {
            const char *nl = memchr(s, '\n', (size_t)(q - s));
            if (!nl)
                break;
            r->line++;
            s = nl + 1;
            r->line_start = reader_offset_of(r, s);
        }
        r->p = q;
        return;
    }
    for (const char *s = r->p; s < q; s++)
        if (ends_line(s, r->end)) {
            r->line++;
            r->line_start = reader_offset_of(r, s + 1);
        }
    r->p = q;
}

/* The end of what may be passed over in the window: a CR at its end may
 * be the first half of a CR LF, counted as one line end once the LF is
 * read. */
const char *reader_passable_end(const reader *r)
{
    const char *end = r->end;
    return !r->at_eof && end > r->p && end[-1] == '\r' ? end - 1 : end;
}

/* Skips blanks, reading on while they run to the end of the window (so
 * r->p reaches r->end only at the end of the file).  Returns nonzero when
 * the file cannot be read further (a NUL byte, a read error: r->p then
 * stays at or before the NUL). */
int reader_skip_ws(reader *r)
{
    for (;;) {
        const char *end = reader_passable_end(r), *q = r->p;
        while (q < end && isspace((unsigned char)*q))
            q++;
        reader_advance_to(r, q);
        if (q < end || r->at_eof)
            return reader_unreadable(r);
        reader_more(r); /* read on from r->p, and look again */
    }
}

/* Line and column of q, which is at or after r->p's line start. */
void reader_position_of(const reader *r, const char *q, uint32_t *line,
                        uint32_t *col)
{
    uint32_t l = r->line;
    uint64_t ls = r->line_start;
    for (const char *s = r->p; s < q && s < r->end; s++)
        if (ends_line(s, r->end)) {
            l++;
            ls = reader_offset_of(r, s + 1);
        }
    *line = l;
    *col = (uint32_t)(reader_offset_of(r, q) - ls) + 1;
}

int reader_fail_at(reader *r, const char *q, const char *fmt, ...)
{
    uint32_t line, col;
    reader_position_of(r, q, &line, &col);
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
int json_object_unterminated(const char *q, const char *end)
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

/* One past the JSON value at q, in the object being converted (valid
 * JSON: cJSON has parsed it). */
const char *reader_skip_value(const reader *r, const char *q)
{
    const char *end = r->end;
    int depth = 0;
    if (*q != '{' && *q != '[') {
        if (*q == '"')
            return reader_string_end(r, q);
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
            q = reader_string_end(r, q) - 1;
        else if (*q == '{' || *q == '[')
            depth++;
        else if ((*q == '}' || *q == ']') && --depth == 0)
            return q + 1;
    }
    return end;
}

/* One past the string at q (a '"'; valid JSON: cJSON has parsed it). */
const char *reader_string_end(const reader *r, const char *q)
{
    int st;
    if (!r->obj_plain)
        return scan_string(q, r->end, &st);
    const char *close = memchr(q + 1, '"', (size_t)(r->end - q - 1));
    return close ? close + 1 : r->end;
}

const char *json_skip_blank(const char *q, const char *end)
{
    while (q < end && (unsigned char)*q <= ' ')
        q++;
    return q;
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
const char *json_scan(const char *q, const char *end, int *closed)
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
const char *json_next_object_start(const char *s, const char *f,
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
int json_cut_before(const char *s, const char *f, const char *next)
{
    while (next > s && isspace((unsigned char)next[-1]))
        next--;
    return f >= next;
}

/* Whether the file cannot be read further: a NUL byte (a binary file) or
 * a read error came in.  Either fails the file, under --lenient too. */
int reader_unreadable(const reader *r)
{
    return r->nul || r->read_error;
}

/* The error of an unreadable file (r->p at or before its NUL byte); a
 * read error is named by load_stream(), trace_load.c. */
int reader_fail_unreadable(reader *r)
{
    return r->nul ? reader_fail_at(r, r->nul, "NUL byte: this is not a JSON text file")
                  : TRACE_ERR;
}

/* Reads on to the end of the file (a bad object is told from a cut-off
 * one, and the next object found, on the whole rest of the file, as when
 * it was read whole).  False when the file is unreadable. */
int reader_read_rest(reader *r)
{
    while (reader_more(r))
        continue;
    return !reader_unreadable(r);
}

/* Whether SIGINT/SIGTERM asked the run to stop (trace_options.stop). */
int reader_stopped(const trace_options *o)
{
    return o->stop && *o->stop;
}

/* Reads on into r's window: keeps [r->p, r->end), moved to the start of
 * the window (which doubles while that fills more than half of it), and
 * fills the rest from the file.  Returns 0 when nothing more was read: the
 * file's end, a read error (r->read_error), a NUL byte (r->nul: a binary
 * file, or /dev/zero as standard input; nothing after it is read) or a
 * stop signal (stats.interrupted).  Pointers into the old window are
 * stale afterwards; r->p, r->end and the line are kept right. */
int reader_more(reader *r)
{
    if (r->at_eof)
        return 0;
    if (reader_stopped(r->opts)) {
        r->t->stats.interrupted = 1;
        r->at_eof = 1;
        return 0;
    }
    size_t keep = (size_t)(r->end - r->p);
    r->start_at = reader_offset_of(r, r->p);
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
        if (ferror(r->in) && reader_stopped(r->opts))
            r->t->stats.interrupted = 1;
        else if (ferror(r->in))
            r->read_error = 1;
    }
    if (r->nul)
        r->at_eof = 1;
    return n && !reader_unreadable(r);
}
