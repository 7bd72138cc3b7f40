/*
 * report_shiviz.c — the witnesses as a ShiViz log (--format=shiviz;
 * README "ShiViz", docs/report.md).
 *
 * ShiViz (bestchai.bitbucket.io/shiviz) draws a space-time diagram from
 * a log, a parser regular expression with the named groups event, host
 * and clock, and a delimiter regular expression between executions.  The
 * output is a file ShiViz uploads as it is: its first line is the parser
 * (ShiViz's own default), its second the delimiter, then one execution
 * per group that has a witness, in the report's order:
 *
 *   (?<event>.*)\n(?<host>\S*) (?<clock>{.*})
 *   ^=== (?<trace>.*) ===$
 *   === data race 1: A vs B, variable x on node n1 ===
 *   1. W x at A (a.log:3, index 1)  [RACE access 1]
 *   t1@n1 {"t1@n1":1}
 *   ...
 *
 * Each witness event is two lines: a description (its step, type, object,
 * location, file:line, its index in its thread, and which event of the
 * instance it is), then its host (its thread) and vector clock.  ShiViz
 * checks that each host's own entry counts its events 1, 2, ... and that
 * every entry names an event of the execution, and draws an edge for
 * every entry that grows; so the clocks come from the witness alone:
 * program order between a thread's events, and a merge of the clock of
 * the event each one waits on (witness_step.peer).  Events at one step
 * wait on neither, so the two accesses of a data race come out
 * concurrent.
 *
 * Names are hostile.  A description goes through text_safe() and also
 * escapes U+2028 and U+2029 (a JavaScript '.' stops at them); ShiViz
 * shows it as text.  Hosts and labels are printable ASCII with %XX for
 * the rest (encode()): ShiViz writes labels into HTML and jQuery
 * selectors unescaped, a host must match \S in any regex engine and read
 * the same in the JSON clock, and two threads must never share a host.
 * Descriptions start "N. TYPE", so none can pass for a host line or a
 * delimiter.
 *
 * Groups without a witness (undecided ones, those whose witness search
 * timed out, those left when the run was interrupted) are left out, and
 * standard error says how many (not with -q): ShiViz has no comments.
 */
#include "../spider.h"

#include "../../util/alloc.h"
#include "../../util/text.h"

#include <cjson/cJSON.h>
#include <string.h>

#define SHIVIZ_PARSER "(?<event>.*)\\n(?<host>\\S*) (?<clock>{.*})"
#define SHIVIZ_DELIMITER "^=== (?<trace>.*) ===$"

/* Writes trace text on one line of the log: text_safe() escapes the
 * controls and invalid UTF-8; U+2028 and U+2029, valid text, would still
 * end a line for JavaScript, so they become "\u2028" and "\u2029". */
static void put_text(FILE *out, const char *s)
{
    text_pool tp = {0};
    const unsigned char *p = (const unsigned char *)text_safe(&tp, s ? s : "");
    for (; *p; p++) {
        if (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
            fprintf(out, "\\u%s", p[2] == 0xA8 ? "2028" : "2029");
            p += 2;
        } else {
            fputc(*p, out);
        }
    }
    text_pool_free(&tp);
}

/* s with every byte outside ' '..'~' (or '!'..'~' without keep_space),
 * '%', and what HTML, a CSS string or a JavaScript string would read
 * otherwise (< > & " ' ` and backslash) as %XX: ShiViz builds its
 * execution list as HTML text and selects in it by label (its
 * js/visualization/global.js).  Injective. */
static char *encode(const char *s, int keep_space)
{
    static const char hex[] = "0123456789ABCDEF";
    char *h = xmalloc_array(3, strlen(s) + 1), *q = h;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p > ' ' || (keep_space && *p == ' ')) && *p < 0x7F &&
            !strchr("%<>&\"'`\\", *p)) {
            *q++ = (char)*p;
        } else {
            *q++ = '%';
            *q++ = hex[*p >> 4];
            *q++ = hex[*p & 15];
        }
    }
    *q = '\0';
    return h;
}

static void put_encoded(FILE *out, const char *s)
{
    char *e = encode(s ? s : "", 1);
    fputs(e, out);
    free(e);
}

/* What an event of the instance is, by kind (race_group.events). */
static const char *role_name(race_kind k, int role)
{
    static const char *const access[] = {"access 1", "access 2"};
    static const char *const message[] = {"send 1", "send 2", "receive 1",
                                          "receive 2"};
    static const char *const atomicity[] = {"p", "r", "c"};
    static const char *const multivar[] = {"a1", "a2", "bx", "by"};
    switch (k) {
    case RACE_MESSAGE:
        return role < 4 ? message[role] : "?";
    case RACE_ATOMICITY:
    case RACE_MVRACE:
        return role < 3 ? atomicity[role] : "?";
    case RACE_MULTIVAR:
        return role < 4 ? multivar[role] : "?";
    default:
        return role < 2 ? access[role] : "?";
    }
}

/* "=== data race 3: A vs B, variable x on node n1 ===": the execution's
 * label, unique by kind and number (ShiViz keys executions by label),
 * its names encoded (encode()). */
static void print_label(const race_group *g, size_t number, FILE *out)
{
    char noun[64];
    fprintf(out, "=== %s %zu: ", race_kind_noun(g->kind, 1, noun, sizeof noun),
            number);
    for (uint32_t i = 0; i < g->n_locations; i++) {
        fputs(i == 0 ? "" : g->n_locations == 2 ? " vs " : " / ", out);
        put_encoded(out, g->locations[i]);
    }
    if (g->pattern[0])
        fprintf(out, ", %s", g->pattern);
    if (g->variable) {
        fputs(g->variable_y ? ", variables " : ", variable ", out);
        put_encoded(out, g->variable);
        if (g->variable_y) {
            fputs(" and ", out);
            put_encoded(out, g->variable_y);
        }
    }
    fputs(" on node ", out);
    put_encoded(out, g->node);
    fputs(" ===\n", out);
}

/* "3. W x at A (a.log:12, index 4)  [RACE access 1]" */
static void print_event(const race_group *g, const witness_step *w, FILE *out)
{
    const event_ref *e = &w->event;
    fprintf(out, "%u. %s", w->step, e->type);
    if (e->object) {
        fputc(' ', out);
        put_text(out, e->object);
    }
    if (e->location && e->location[0]) {
        fputs(" at ", out);
        put_text(out, e->location);
    }
    fputs(" (", out);
    put_text(out, e->file);
    fprintf(out, ":%u, index %u)", e->line, e->index);
    if (w->role >= 0)
        fprintf(out, "  [%s %s]",
                g->kind == RACE_ATOMICITY || g->kind == RACE_MULTIVAR
                    ? "VIOLATION" : "RACE",
                role_name(g->kind, w->role));
    fputc('\n', out);
}

/* The hosts of a witness: host_of[i] for each step; returns their number
 * and their names in *names (first appearance order; caller frees). */
static uint32_t witness_hosts(const race_group *g, uint32_t *host_of,
                              char ***names)
{
    const char **threads = xmalloc_array(g->n_witness, sizeof *threads);
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n_witness; i++) {
        const char *t = g->witness[i].event.thread;
        uint32_t h = 0;
        while (h < n && strcmp(threads[h], t) != 0)
            h++;
        if (h == n)
            threads[n++] = t;
        host_of[i] = h;
    }
    *names = xmalloc_array(n, sizeof **names);
    for (uint32_t h = 0; h < n; h++)
        (*names)[h] = encode(threads[h], 0);
    free(threads);
    return n;
}

/* Vector clocks, n_hosts entries per step: the last clock of the step's
 * thread, merged with that of the event it waits on when that comes
 * earlier in the witness (a later one would be a broken witness: no
 * edge), then its own entry counts it. */
static uint32_t *witness_clocks(const race_group *g, const uint32_t *host_of,
                                uint32_t n_hosts)
{
    uint32_t *vc = xcalloc((size_t)g->n_witness * n_hosts, sizeof *vc);
    int64_t *last = xmalloc_array(n_hosts, sizeof *last);
    for (uint32_t h = 0; h < n_hosts; h++)
        last[h] = -1;
    for (uint32_t i = 0; i < g->n_witness; i++) {
        uint32_t *row = vc + (size_t)i * n_hosts, h = host_of[i];
        uint32_t own = 0;
        if (last[h] >= 0) {
            memcpy(row, vc + (size_t)last[h] * n_hosts, n_hosts * sizeof *row);
            own = row[h];
        }
        int32_t p = g->witness[i].peer;
        if (p >= 0 && (uint32_t)p < i)
            for (uint32_t k = 0; k < n_hosts; k++) {
                const uint32_t v = vc[(size_t)p * n_hosts + k];
                row[k] = v > row[k] ? v : row[k];
            }
        row[h] = own + 1;
        last[h] = i;
    }
    free(last);
    return vc;
}

/* "t1@n1 {"t1@n1":2,"t2@n1":1}": own entry first, zeros left out. */
static void print_clock(const uint32_t *row, uint32_t h, char **names,
                        uint32_t n_hosts, FILE *out)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, names[h], row[h]);
    for (uint32_t k = 0; k < n_hosts; k++)
        if (k != h && row[k])
            cJSON_AddNumberToObject(c, names[k], row[k]);
    char *s = cJSON_PrintUnformatted(c);
    if (!s)
        alloc_fail(0, "a ShiViz vector clock");
    fprintf(out, "%s %s\n", names[h], s);
    cJSON_free(s);
    cJSON_Delete(c);
}

static void print_execution(const race_group *g, size_t number, FILE *out)
{
    uint32_t *host_of = xmalloc_array(g->n_witness, sizeof *host_of);
    char **names;
    uint32_t n_hosts = witness_hosts(g, host_of, &names);
    uint32_t *vc = witness_clocks(g, host_of, n_hosts);
    print_label(g, number, out);
    for (uint32_t i = 0; i < g->n_witness; i++) {
        print_event(g, &g->witness[i], out);
        print_clock(vc + (size_t)i * n_hosts, host_of[i], names, n_hosts, out);
    }
    for (uint32_t h = 0; h < n_hosts; h++)
        free(names[h]);
    free(names);
    free(vc);
    free(host_of);
}

void report_print_shiviz(const report *r, const print_options *o, FILE *out)
{
    fputs(SHIVIZ_PARSER "\n" SHIVIZ_DELIMITER "\n", out);
    size_t number[RACE_KINDS] = {0}, shown = 0;
    for (size_t i = 0; i < r->n_groups; i++) {
        const race_group *g = &r->groups[i];
        number[g->kind]++;           /* its place in its JSON array */
        if (!g->witness || g->n_witness == 0)
            continue;
        print_execution(g, number[g->kind], out);
        shown++;
    }
    if (o->quiet || shown == r->n_groups + r->n_open)
        return;
    fprintf(stderr, "spider: shiviz: %zu of %zu groups have no witness "
            "(undecided, the search timed out, or the run was interrupted) "
            "and are left out\n",
            r->n_groups + r->n_open - shown, r->n_groups + r->n_open);
}
