/*
 * trace_reader.h — the loader's window on a file and the JSON text in it
 * (trace_reader.c): reading on as the window is used up, positions (line
 * and column) for error messages, and scanning JSON text without parsing
 * it (strings, values, where an object ends or the next one starts).
 * Internal to the loader (trace_event.c, trace_load.c).
 *
 * Ownership: a reader borrows its trace, options and text; the loader
 * owns its window (buf).  Allocation failure ends the run (util/alloc.h).
 * Errors are written into r->err (reader_fail_at()).
 */
#ifndef SPIDER_TRACE_READER_H
#define SPIDER_TRACE_READER_H

#include "trace_internal.h"
#include "json_arena.h"

#include <stdio.h>

enum { MEMBER_SPANS = 32 };

typedef struct reader {
    trace *t;
    const trace_options *opts;
    const char *name;
    uint32_t file;
    /* The window of the file in memory: [start, end), read from `in` as
     * it is used up (reader_more()); the whole text when `in` is NULL or at_eof. */
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
    /* raw_member() (trace_event.c): the members' text spans of the
     * object at obj_text (check_event() starts them afresh for each
     * object) */
    const char *spans_next;
    const char *spans[MEMBER_SPANS][2];
    size_t n_spans;
    int has_cr;             /* the buffer holds a CR: reader_advance_to()
                               looks */
    json_arena *arena;      /* holds the tree of the object being read */
} reader;

/* The file offset of q, a byte of the window. */
uint64_t reader_offset_of(const reader *r, const char *q);
/* Moves r->p to q, keeping line and line_start in step. */
void reader_advance_to(reader *r, const char *q);
/* The end of what may be passed over in the window: a CR at its end may
 * be the first half of a CR LF, counted as one line end once the LF is
 * read. */
const char *reader_passable_end(const reader *r);
/* Skips blanks, reading on while they run to the end of the window (so
 * r->p reaches r->end only at the end of the file).  Returns nonzero when
 * the file cannot be read further (a NUL byte, a read error: r->p then
 * stays at or before the NUL). */
int reader_skip_ws(reader *r);
/* Line and column of q, which is at or after r->p's line start. */
void reader_position_of(const reader *r, const char *q, uint32_t *line,
                        uint32_t *col);
/* Writes "file:line:col: message" for position q into r->err (a name
 * too long for it loses its beginning) and returns TRACE_ERR. */
int reader_fail_at(reader *r, const char *q, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* True when the object starting at q never closes before the end of the
 * buffer: the file was cut off while it was being written. */
int json_object_unterminated(const char *q, const char *end);
/* One past the JSON value at q, in the object being converted (valid
 * JSON: cJSON has parsed it). */
const char *reader_skip_value(const reader *r, const char *q);
/* One past the string at q (a '"'; valid JSON: cJSON has parsed it). */
const char *reader_string_end(const reader *r, const char *q);
/* The first byte at or after q that is not blank (space or control),
 * or end. */
const char *json_skip_blank(const char *q, const char *end);
/* How far the JSON object at q (a '{') is valid.  If it closes, sets
 * *closed and returns one past its '}'.  Otherwise returns the first byte
 * that cannot continue it: end when all of q..end is the valid beginning
 * of an object (a cut-off object).  Accepts at least what cJSON accepts
 * (any byte up to ' ' is blank; numbers are checked loosely). */
const char *json_scan(const char *q, const char *end, int *closed);
/* Where the next object starts after bad text at s (docs/trace-format.md,
 * "Malformed and cut-off objects"): the first '{' after s that
 *   (a) begins a line (only blanks before it) at a column <= max_col, or
 *   (b) only when `glued`: lies at or before f, where the bad text stopped
 *       being valid JSON, and begins a complete event object (one written
 *       right after a cut-off one), or
 *   (c) lies after f and follows a '}' (blanks between): a glued "}{".
 * NULL if there is none. */
const char *json_next_object_start(const char *s, const char *f,
                                   const char *end, size_t max_col, int glued);
/* True when the text from s up to next (blanks before next aside) is all
 * valid JSON, f being where it stops being valid: an object that was cut
 * off, and writing went on at next. */
int json_cut_before(const char *s, const char *f, const char *next);
/* Whether the file cannot be read further: a NUL byte (a binary file) or
 * a read error came in.  Either fails the file, under --lenient too. */
int reader_unreadable(const reader *r);
/* The error of an unreadable file (r->p at or before its NUL byte); a
 * read error is named by load_stream(), trace_load.c. */
int reader_fail_unreadable(reader *r);
/* Reads on to the end of the file (a bad object is told from a cut-off
 * one, and the next object found, on the whole rest of the file, as when
 * it was read whole).  False when the file is unreadable. */
int reader_read_rest(reader *r);
/* Whether SIGINT/SIGTERM asked the run to stop (trace_options.stop). */
int reader_stopped(const trace_options *o);
/* Reads on into r's window: keeps [r->p, r->end), moved to the start of
 * the window (which doubles while that fills more than half of it), and
 * fills the rest from the file.  Returns 0 when nothing more was read: the
 * file's end, a read error (r->read_error), a NUL byte (r->nul: a binary
 * file, or /dev/zero as standard input; nothing after it is read) or a
 * stop signal (stats.interrupted).  Pointers into the old window are
 * stale afterwards; r->p, r->end and the line are kept right. */
int reader_more(reader *r);

#endif
