/*
 * text.h — the one place where text from a trace is made safe to show.
 *
 * Names in a trace (loc, variable, type, thread, file names) are kept
 * exactly as written, so that they compare exactly; only output escapes
 * them.  A control character (ESC, CR, LF, ...: bytes below 0x20, DEL,
 * and the C1 controls U+0080..U+009F) or a byte that is not valid UTF-8
 * could move the cursor, recolour the terminal or forge a line of spider's
 * own output; text output writes each as "\xNN" (its bytes in hex).
 * JSON output writes invalid UTF-8 as U+FFFD and DEL and C1 controls as
 * \u escapes, so that a strict decoder accepts it (docs/report.md).
 *
 * Ownership: text_safe() returns s itself or a copy owned by the pool,
 * freed by text_pool_free(); text_json_clean() returns a new string the
 * caller frees.  Nothing here fails (allocation failure ends the run,
 * alloc.h).
 */
#ifndef SPIDER_TEXT_H
#define SPIDER_TEXT_H

#include <stdio.h>
#include <stddef.h>

/* 1 when s (NUL-terminated) needs no escaping in text output. */
int text_is_plain(const char *s);

/* Writes s to out with every unsafe byte as "\xNN".  Returns what fputs
 * returns (EOF on a write error). */
int text_put(FILE *out, const char *s);

/* Copies of escaped strings, for printf-style printers. */
typedef struct text_pool {
    char **v;
    size_t n, cap;
} text_pool;

/* s if it is plain, else its escaped copy (owned by p).  NULL stays NULL. */
const char *text_safe(text_pool *p, const char *s);
void text_pool_free(text_pool *p);

/* A copy of the JSON text `json` with invalid UTF-8 replaced by U+FFFD and
 * DEL and C1 controls written as \u escapes (they only occur inside
 * strings).  Returns the number of replacements in *replaced. */
char *text_json_clean(const char *json, size_t *replaced);

#endif
