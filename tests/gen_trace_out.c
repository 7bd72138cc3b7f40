/*
 * gen_trace_out.c — writing gen-trace's events (see gen_trace_out.h).
 */
#include "gen_trace_out.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* ---- output ---------------------------------------------------------------- */

static const char *const type_name[] = {
    NULL, "CREATE", "START", "END", "JOIN", "LOG", "R", "W", "SND", "RCV",
    "CLOSE", "CONNECT", "ACCEPT", "SHUTDOWN", "HANDLERBEGIN", "HANDLEREND",
    "LOCK", "UNLOCK", "WAIT", "NOTIFY", "NOTIFYALL"};
static const char *const type_alias[] = {
    NULL, "FORK", NULL, NULL, NULL, NULL, "READ", "WRITE", "SEND", "RECEIVE"};
static const char *const loc_kind[] = {
    NULL, "fork", "start", "end", "join", "log", "acc", "acc", "snd", "rcv",
    "close", "connect", "accept", "shutdown", "hb", "he", "lock", "unlock",
    "wait", "notify", "notify"};

static void write_object(sim *s, int node, const char *obj)
{
    out_file *o = &s->files[s->file_of[node]];
    FILE *f = o->f;
    switch (o->layout) {
    case 0:
        fprintf(f, "%s\n", obj);
        break;
    case 1:
        fprintf(f, "%s%s", o->objects ? ",\n" : "[\n", obj);
        break;
    case 2: /* one field a line */
        for (const char *c = obj; *c; c++) {
            if (*c == ',' && c[1] == '"')
                fputs(",\n  ", f);
            else if (*c == '{')
                fputs("{\n  ", f);
            else if (*c == '}' && !c[1])
                fputs("\n}", f);
            else
                fputc(*c, f);
        }
        fputc('\n', f);
        break;
    default: /* glued, now and then a line break */
        fputs(obj, f);
        if (gen_rng_below(&s->layout_r, 4) == 0)
            fputc('\n', f);
        break;
    }
    o->objects++;
}

/* A location: some shared between nodes so groups merge across nodes. */
static void loc(sim *s, char *buf, size_t len, int node, int type)
{
    if (KNOB(s, NO_LOC)) {
        buf[0] = '\0';          /* no loc: reported as thread#index */
        HIT(s, NO_LOC);
        return;
    }
    if (s->functions && (type == R || type == W)) {
        snprintf(buf, len, ",\"loc\":\"app.f%u.%u\"",
                 gen_rng_below(&s->r, (uint32_t)s->functions),
                 gen_rng_below(&s->r, 400));
        return;
    }
    int shared = gen_rng_chance(&s->r, 50);
    snprintf(buf, len, ",\"loc\":\"app.%s.%u\"", loc_kind[type],
             gen_rng_below(&s->r, 4) + (shared ? 0 : 10 * (unsigned)(node + 1)));
}

void gen_out_emit(sim *s, int node, int thread, int type, const char *fmt, ...)
{
    char fields[512], l[64], obj[768], ty[32], ts[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fields, sizeof fields, fmt, ap);
    va_end(ap);
    if (s->force_loc)
        snprintf(l, sizeof l, "%s", s->force_loc);
    else
        loc(s, l, sizeof l, node, type);
    snprintf(s->last_loc, sizeof s->last_loc, "%s", l);
    snprintf(ty, sizeof ty, "\"%s\"", type_name[type]);
    snprintf(ts, sizeof ts, "%ld", s->step);
    if (KNOB(s, SPELLING)) {
        HIT(s, SPELLING);
        switch (gen_rng_below(&s->r, 4)) {
        case 0:
            snprintf(ty, sizeof ty, "%d", type);
            break;
        case 1:
            if (type < (int)(sizeof type_alias / sizeof *type_alias) &&
                type_alias[type]) {
                snprintf(ty, sizeof ty, "\"%s\"", type_alias[type]);
                break;
            }
            /* fall through */
        case 2:
            for (char *c = ty; *c; c++)
                if (*c >= 'A' && *c <= 'Z')
                    *c = (char)(*c - 'A' + 'a');
            break;
        default:
            snprintf(ts, sizeof ts, "\"%ld\"", s->step);
            break;
        }
    }
    s->step++;
    snprintf(obj, sizeof obj, "{\"thread\":\"t%d@10.0.0.%d\",\"timestamp\":%s,"
             "\"type\":%s%s%s}", thread, node + 1, ts, ty, fields, l);
    write_object(s, node, obj);
}

/* ---- names ----------------------------------------------------------------- */

static const char *const name_prefix[] = {"v", "lock", "cond"};

const char *gen_out_name(sim *s, int node, int kind, int k)
{
    static char buf[4][32];
    static int turn;
    char *b = buf[turn++ % 4];
    if (s->shared[node][kind][k]) {
        snprintf(b, 32, "%s%d", name_prefix[kind], k);
        s->name_nodes[kind][k] |= 1u << node;
    } else {
        snprintf(b, 32, "%s%d.n%d", name_prefix[kind], k, node + 1);
    }
    return b;
}
