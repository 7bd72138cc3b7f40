/*
 * text.c — escaping text from a trace for output (text.h).
 */
#include "text.h"

#include "alloc.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when the bytes
 * there are not one (overlong forms and surrogates included). */
static size_t utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
             : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) ||
        (c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] > 0x8F))
        return 0;
    return n;
}

/* A control character: C0, DEL, or C1 (U+0080..U+009F, bytes C2 80..9F). */
static int is_control(const unsigned char *s, size_t len)
{
    return (len == 1 && (s[0] < 0x20 || s[0] == 0x7F)) ||
           (len == 2 && s[0] == 0xC2 && s[1] <= 0x9F);
}

/* Bytes of s that are safe as they are, from its start. */
static size_t plain_prefix(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (p[i]) {
        size_t n = utf8_len(p + i);
        if (n == 0 || is_control(p + i, n))
            break;
        i += n;
    }
    return i;
}

int text_is_plain(const char *s)
{
    return s[plain_prefix(s)] == '\0';
}

/* Calls put(ctx, bytes, n) for s in safe pieces. */
static void escape(const char *s, void (*put)(void *, const char *, size_t),
                   void *ctx)
{
    while (*s) {
        size_t i = plain_prefix(s);
        if (i)
            put(ctx, s, i);
        s += i;
        if (!*s)
            break;
        const unsigned char *p = (const unsigned char *)s;
        size_t n = utf8_len(p);
        n = n ? n : 1; /* an invalid byte alone, a control as a whole */
        for (size_t k = 0; k < n; k++) {
            char hex[5];
            snprintf(hex, sizeof hex, "\\x%02X", p[k]);
            put(ctx, hex, 4);
        }
        s += n;
    }
}

static void put_file(void *ctx, const char *s, size_t n)
{
    fwrite(s, 1, n, ctx);
}

int text_put(FILE *out, const char *s)
{
    escape(s, put_file, out);
    return ferror(out) ? EOF : 0;
}

typedef struct growing {
    char *s;
    size_t n, cap;
} growing;

static void put_growing(void *ctx, const char *s, size_t n)
{
    growing *g = ctx;
    ALLOC_GROW(g->s, g->n + n + 1, g->cap);
    memcpy(g->s + g->n, s, n);
    g->n += n;
    g->s[g->n] = '\0';
}

const char *text_safe(text_pool *p, const char *s)
{
    if (!s || text_is_plain(s))
        return s;
    growing g = {0};
    escape(s, put_growing, &g);
    ALLOC_GROW(p->v, p->n + 1, p->cap);
    return p->v[p->n++] = g.s;
}

void text_pool_free(text_pool *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i]);
    free(p->v);
    *p = (text_pool){0};
}

char *text_json_clean(const char *json, size_t *replaced)
{
    growing g = {0};
    *replaced = 0;
    const unsigned char *q = (const unsigned char *)json;
    while (*q && *q < 0x7F)
        q++;
    if (!*q) /* ASCII without DEL: the usual case, nothing to do */
        return xstrdup(json);
    put_growing(&g, "", 0);
    const unsigned char *p = (const unsigned char *)json;
    while (*p) {
        size_t n = utf8_len(p);
        if (n && !(is_control(p, n) && *p >= 0x7F)) {
            put_growing(&g, (const char *)p, n);
            p += n;
            continue;
        }
        char esc[8];
        if (n) /* DEL or C1: valid JSON raw, but a terminal acts on it */
            snprintf(esc, sizeof esc, "\\u%04x",
                     n == 1 ? 0x7F : (unsigned)(p[1] & 0x3F) | 0x80);
        else {
            memcpy(esc, "\xEF\xBF\xBD", 4); /* U+FFFD */
            (*replaced)++;
            n = 1;
        }
        put_growing(&g, esc, strlen(esc));
        p += n;
    }
    return g.s;
}
