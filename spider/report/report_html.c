/*
 * report_html.c — the report as one self-contained HTML page (spider.h,
 * report_print_html; docs/report.md "HTML report"): the summary, a table
 * of groups with filters by kind, node and text, and for each group its
 * instance with each event's context and a space-time diagram of its
 * witness.
 *
 * Self-contained: inline CSS, SVG and a little JS, and nothing else; the
 * page's Content-Security-Policy forbids loading anything, so that even a
 * name that slipped through escaping could fetch nothing.  Every string
 * of the trace is hostile: it goes through text_safe() (control
 * characters and invalid UTF-8 as \xNN, util/text.h), then HTML
 * escaping in the page, or JSON escaping made safe for a <script>
 * element in the diagrams' data (put_script_json); the script puts data
 * in the page as text nodes only, never as markup.
 *
 * Size: the diagrams are drawn by the script when their group opens, from
 * compact data (rows of integers, each string once), so a page of
 * hundreds of groups stays small.  A diagram draws the witness — the
 * window around the instance — and at most DIAGRAM_ROWS of its events
 * (the instance's events, what they wait on, then their neighbours); the
 * page holds data for PAGE_ROWS rows in all, so that a report of tens of
 * thousands of groups stays a page a browser opens.  Nothing here fails
 * but writing, which shows in ferror(out).
 */
#include "../spider.h"

#include "../../util/alloc.h" /* before uthash.h: its allocation failures */
#include "../../util/text.h"

/* The page's style sheet (page_css) and the script that draws the
 * diagrams and runs the filters and toggles (page_js; it reads the data
 * block, print_data, and puts its strings in the page as text only): the
 * files under spider/report/html/, embedded at build time (scripts/embed,
 * into $(OBJ)/gen/). */
#include "html_assets.h"

#include <inttypes.h>
#include <cjson/cJSON.h>
#include <string.h>
#include <uthash.h>

enum {
    DIAGRAM_ROWS = 160,              /* events drawn in one diagram */
    PAGE_ROWS = 100000,              /* in all the diagrams of a page */
};

/* ---- hostile text -------------------------------------------------------- */

/* Code points of s (UTF-8 after text_safe: every byte that does not
 * continue a sequence starts one). */
static size_t chars_of(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Writes bytes s[0..n) with & < > " ' as entities: safe in element text
 * and in quoted attribute values alike. */
static void put_escaped(FILE *out, const char *s, size_t n)
{
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        const char *ent = s[i] == '&' ? "&amp;" : s[i] == '<' ? "&lt;"
                        : s[i] == '>' ? "&gt;" : s[i] == '"' ? "&quot;"
                        : s[i] == '\'' ? "&#39;" : NULL;
        if (!ent)
            continue;
        fwrite(s + from, 1, i - from, out);
        fputs(ent, out);
        from = i + 1;
    }
    fwrite(s + from, 1, n - from, out);
}

/* s from the trace as HTML text, at most max code points (0: all; a cut
 * string ends in "…").  NULL writes nothing. */
static void html_cut(FILE *out, const char *s, size_t max)
{
    if (!s)
        return;
    text_pool tp = {0};
    const char *safe = text_safe(&tp, s);
    size_t len = strlen(safe), total = chars_of(safe);
    if (max && total > max) {
        size_t keep = max - 1, cp = 0, i = 0;
        for (; safe[i]; i++)
            if (((unsigned char)safe[i] & 0xC0) != 0x80 && cp++ == keep)
                break;
        len = i;
    }
    put_escaped(out, safe, len);
    if (len < strlen(safe))
        fputs("\u2026", out);
    text_pool_free(&tp);
}

static void html(FILE *out, const char *s)
{
    html_cut(out, s, 0);
}

/* A thread's name without "@NODE" when it ends so: its lane stands under
 * its node already.  Returns a copy (free it). */
static char *short_thread(const event_ref *e)
{
    char *s = xstrdup(e->thread ? e->thread : "");
    size_t n = strlen(s), k = e->node ? strlen(e->node) : 0;
    if (k && n > k + 1 && s[n - k - 1] == '@' && strcmp(s + n - k, e->node) == 0)
        s[n - k - 1] = '\0';
    return s;
}

static int same(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* ---- the space-time diagram's data ----------------------------------------- */

/* The page draws each diagram in its script when its group opens, from
 * compact data this part writes: rows of integers and a table of the
 * strings they name.  What the picture shows — which events, which lane
 * each goes in, where locks are held — is decided here; the script only
 * places it. */

/* One row of a diagram: one event. */
typedef struct drow {
    const event_ref *e;
    uint32_t step;                   /* its time; 0: no witness */
    int role;                        /* index into the group's events, or -1 */
    int32_t peer;                    /* the row it waits on, or -1 */
    uint32_t lane;
} drow;

/* One thread's lane; the lanes of a node stand side by side. */
typedef struct dlane {
    const event_ref *e;              /* its first event: thread and node */
    uint32_t first;                  /* its first row */
    uint32_t node_first;             /* sorts lanes by node: the first row
                                        of its node's first lane */
    uint32_t id;                     /* its index before sorting */
} dlane;

/* A lock held on a lane from row top to row bottom, both drawn; open:
 * OPEN_TOP when it was taken before top out of the window (the witness
 * has another thread's events only), OPEN_BOTTOM when its release is not
 * in the window. */
typedef struct dsection {
    uint32_t lane;
    int64_t top, bottom;
    const char *name;
    unsigned open;
} dsection;

enum { OPEN_TOP = 1, OPEN_BOTTOM = 2 };

typedef struct diagram {
    drow *rows;
    uint32_t n, omitted;             /* rows drawn; witness events not */
    dlane *lanes;
    uint32_t n_lanes, cap_lanes;
    dsection *sections;
    uint32_t n_sections, cap_sections;
} diagram;

/* Which witness events to draw when there are more than max: the
 * instance's events, what they wait on, then their nearest neighbours in
 * the run. */
static uint8_t *window_keep(const race_group *g, uint32_t max)
{
    uint32_t n = g->n_witness, kept = 0, roles[GROUP_EVENTS], n_roles = 0;
    uint8_t *keep = xcalloc(n ? n : 1, 1);
    if (n <= max) {
        memset(keep, 1, n);
        return keep;
    }
#define KEEP(i) do { if (!keep[i] && kept < max) { keep[i] = 1; kept++; } } while (0)
    for (uint32_t i = 0; i < n && n_roles < GROUP_EVENTS; i++)
        if (g->witness[i].role >= 0)
            roles[n_roles++] = i;
    for (uint32_t k = 0; k < n_roles; k++) {
        KEEP(roles[k]);
        int32_t peer = g->witness[roles[k]].peer;
        if (peer >= 0 && (uint32_t)peer < n)
            KEEP((uint32_t)peer);
    }
    for (uint32_t d = 1; d < n && kept < max; d++)
        for (uint32_t k = 0; k < n_roles; k++) {
            if (roles[k] >= d)
                KEEP(roles[k] - d);
            if (roles[k] + d < n)
                KEEP(roles[k] + d);
        }
#undef KEEP
    return keep;
}

/* The rows: the witness (or its window), else the instance's events,
 * unnumbered. */
static void diagram_rows(diagram *d, const race_group *g)
{
    if (!g->n_witness) {
        d->rows = xcalloc(g->n_events ? g->n_events : 1, sizeof *d->rows);
        for (uint32_t i = 0; i < g->n_events; i++)
            d->rows[d->n++] = (drow){.e = &g->events[i], .role = (int)i,
                                     .peer = -1};
        return;
    }
    uint8_t *keep = window_keep(g, DIAGRAM_ROWS);
    int32_t *row_of = xmalloc_array(g->n_witness, sizeof *row_of);
    d->rows = xcalloc(g->n_witness, sizeof *d->rows);
    for (uint32_t i = 0; i < g->n_witness; i++) {
        row_of[i] = keep[i] ? (int32_t)d->n : -1;
        if (!keep[i])
            continue;
        const witness_step *w = &g->witness[i];
        /* a peer comes earlier in the run; a later one would be a bug */
        int32_t peer = w->peer >= 0 && (uint32_t)w->peer < i ? row_of[w->peer]
                                                              : -1;
        d->rows[d->n++] = (drow){.e = &w->event, .step = w->step,
                                 .role = w->role < (int)g->n_events ? w->role
                                                                    : -1,
                                 .peer = peer};
    }
    d->omitted = g->n_witness - d->n;
    free(row_of);
    free(keep);
}

static int lane_order(const void *x, const void *y)
{
    const dlane *a = x, *b = y;
    if (a->node_first != b->node_first)
        return a->node_first < b->node_first ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* One lane per thread, in order of first appearance, grouped by node
 * (nodes in order of first appearance too). */
static void diagram_lanes(diagram *d)
{
    for (uint32_t i = 0; i < d->n; i++) {
        const event_ref *e = d->rows[i].e;
        uint32_t l = 0;
        while (l < d->n_lanes && !(same(d->lanes[l].e->thread, e->thread) &&
                                   same(d->lanes[l].e->node, e->node)))
            l++;
        if (l == d->n_lanes) {
            uint32_t nf = 0;
            while (nf < d->n_lanes && !same(d->lanes[nf].e->node, e->node))
                nf++;
            ALLOC_GROW(d->lanes, d->n_lanes + 1, d->cap_lanes);
            d->lanes[d->n_lanes++] = (dlane){.e = e, .first = i,
                                             .node_first = nf};
        }
        d->rows[i].lane = l;
    }
    /* node_first names a lane by its index before sorting: give it the
     * first row of that lane, which sorts the same way */
    for (uint32_t l = 0; l < d->n_lanes; l++) {
        d->lanes[l].node_first = d->lanes[d->lanes[l].node_first].first;
        d->lanes[l].id = l;
    }
    qsort(d->lanes, d->n_lanes, sizeof *d->lanes, lane_order);
    uint32_t *moved = xmalloc_array(d->n_lanes + 1, sizeof *moved);
    for (uint32_t l = 0; l < d->n_lanes; l++)
        moved[d->lanes[l].id] = l;
    for (uint32_t i = 0; i < d->n; i++)
        d->rows[i].lane = moved[d->rows[i].lane];
    free(moved);
}

static void add_section(diagram *d, uint32_t lane, int64_t top, int64_t bottom,
                        const char *name, unsigned open)
{
    ALLOC_GROW(d->sections, d->n_sections + 1, d->cap_sections);
    d->sections[d->n_sections++] = (dsection){lane, top, bottom, name, open};
}

/* Whether the event of row r holds lock `name`: 1 or 0 for the
 * instance's events (their context says), -1 for the others (a witness's
 * events have no context: unknown). */
static int holds(const diagram *d, const race_group *g, uint32_t r,
                 const char *name)
{
    int role = d->rows[r].role;
    const event_context *c = role >= 0 ? g->events[role].context : NULL;
    if (!c)
        return -1;
    for (uint32_t k = 0; k < c->n_locks; k++)
        if (same(c->locks[k], name))
            return 1;
    return 0;
}

/* From row `from`, in direction step (-1 up, +1 down), the last row of
 * the same lane known to hold `name`: instance events that hold it, until
 * one that does not.  Rows in between whose state is unknown are passed
 * over, and count as held only up to a known one. */
static int64_t extend(const diagram *d, const race_group *g, int64_t from,
                      int step, const char *name)
{
    uint32_t lane = d->rows[from].lane;
    int64_t last = from;
    for (int64_t r = from + step; r >= 0 && r < d->n; r += step) {
        if (d->rows[r].lane != lane)
            continue;
        int h = holds(d, g, (uint32_t)r, name);
        if (h == 0)
            break;
        if (h == 1)
            last = r;
    }
    return last;
}

/* Whether lock `name` is shown held on `lane` at row r already. */
static int covered(const diagram *d, uint32_t lane, const char *name,
                   uint32_t r)
{
    for (uint32_t s = 0; s < d->n_sections; s++) {
        const dsection *x = &d->sections[s];
        if (x->lane == lane && same(x->name, name) && x->top <= r &&
            x->bottom >= r)
            return 1;
    }
    return 0;
}

/* Lock sections, as far as the window shows them: LOCK..UNLOCK of one
 * lane; an UNLOCK whose LOCK is not in the window, from the first of the
 * instance's events before it that holds the lock (their context); a LOCK
 * not released in it, to the last that does; and an event of the
 * instance holding a lock no section shows, around it. */
static void diagram_sections(diagram *d, const race_group *g)
{
    enum { UNSET = -2 };
    for (uint32_t i = 0; i < d->n; i++) {
        const event_ref *e = d->rows[i].e;
        uint32_t lane = d->rows[i].lane;
        if (strcmp(e->type, "LOCK") == 0) {
            add_section(d, lane, i, UNSET, e->object, 0);
        } else if (strcmp(e->type, "UNLOCK") == 0) {
            uint32_t s = d->n_sections; /* the innermost open one */
            while (s > 0 && !(d->sections[s - 1].lane == lane &&
                              d->sections[s - 1].bottom == UNSET &&
                              same(d->sections[s - 1].name, e->object)))
                s--;
            if (s > 0)
                d->sections[s - 1].bottom = i;
            else
                add_section(d, lane, extend(d, g, i, -1, e->object), i,
                            e->object, OPEN_TOP);
        }
    }
    for (uint32_t s = 0; s < d->n_sections; s++) {
        dsection *x = &d->sections[s];
        if (x->bottom == UNSET) {
            x->bottom = extend(d, g, x->top, 1, x->name);
            x->open |= OPEN_BOTTOM;
        }
    }
    for (uint32_t i = 0; i < d->n; i++) {
        int role = d->rows[i].role;
        const event_context *c = role >= 0 ? g->events[role].context : NULL;
        for (uint32_t k = 0; c && k < c->n_locks; k++)
            if (!covered(d, d->rows[i].lane, c->locks[k], i))
                add_section(d, d->rows[i].lane, i,
                            extend(d, g, i, 1, c->locks[k]), c->locks[k],
                            OPEN_TOP | OPEN_BOTTOM);
    }
}

static void diagram_free(diagram *d)
{
    free(d->rows);
    free(d->lanes);
    free(d->sections);
}

/* The strings the diagrams name, each once: its index in the page's
 * table.  The table holds them escaped for text (text_safe), as the rest
 * of the page shows them. */
typedef struct str_entry {
    char *s;
    uint32_t id;
    UT_hash_handle hh;
} str_entry;

typedef struct strtab {
    str_entry *map;
    char **v;
    uint32_t n, cap;
} strtab;

/* The index of s (NULL: -1). */
static int64_t intern(strtab *t, const char *s)
{
    if (!s)
        return -1;
    text_pool tp = {0};
    const char *safe = text_safe(&tp, s);
    str_entry *e;
    HASH_FIND_STR(t->map, safe, e);
    if (!e) {
        e = xmalloc(sizeof *e);
        e->s = xstrdup(safe);
        e->id = t->n;
        HASH_ADD_KEYPTR(hh, t->map, e->s, strlen(e->s), e);
        ALLOC_GROW(t->v, t->n + 1, t->cap);
        t->v[t->n++] = e->s;
    }
    text_pool_free(&tp);
    return e->id;
}

static void strtab_free(strtab *t)
{
    str_entry *e, *tmp;
    HASH_ITER(hh, t->map, e, tmp) {
        HASH_DEL(t->map, e);
        free(e->s);
        free(e);
    }
    free(t->v);
}

/* JSON text made safe inside a <script> element: "<", ">" and "&" as \u
 * escapes (so no "</script>" or "<!--" can end or bend the element) and
 * U+2028, U+2029 too (line ends to older JavaScript).  They can occur in
 * strings only, where the escapes mean the same. */
static void put_script_json(FILE *out, const char *json)
{
    for (const char *p = json; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '<' || c == '>' || c == '&')
            fprintf(out, "\\u%04x", c);
        else if (c == 0xE2 && (unsigned char)p[1] == 0x80 &&
                 ((unsigned char)p[2] == 0xA8 || (unsigned char)p[2] == 0xA9)) {
            fprintf(out, "\\u%04x", 0x2000 | (p[2] & 0x3F));
            p += 2;
        } else
            fputc(c, out);
    }
}

static const char *const role_names[RACE_KINDS][GROUP_EVENTS] = {
    [RACE_DATA] = {"a", "b"},
    [RACE_MESSAGE] = {"send 1", "send 2", "recv 1", "recv 2"},
    [RACE_HANDLER] = {"a", "b"},
    [RACE_ATOMICITY] = {"p", "r", "c"},
    [RACE_MULTIVAR] = {"a1", "a2", "bx", "by"},
    [RACE_MVRACE] = {"p", "r", "c"},
    [RACE_INCONSISTENT] = {"w", "y"},
};

static const char *role_name(race_kind k, int role)
{
    const char *s = role >= 0 && role < GROUP_EVENTS ? role_names[k][role]
                                                     : NULL;
    return s ? s : "";
}

/* A group's diagram as JSON: {"roles": names of the instance's events,
 * "witness": its length, "omitted": events not drawn, "lanes": [thread,
 * node, thread without "@node"], "rows": [lane, step, role, peer, type,
 * object, location, file, line, index], "locks": [lane, top row, bottom
 * row, name, open (OPEN_TOP | OPEN_BOTTOM)]}; strings as indexes into t,
 * -1 for none. */
static void print_diagram_data(const race_group *g, strtab *t, FILE *out)
{
    diagram d = {0};
    diagram_rows(&d, g);
    diagram_lanes(&d);
    diagram_sections(&d, g);
    fputs("{\"roles\":[", out);
    for (uint32_t i = 0; i < g->n_events; i++)
        fprintf(out, "%s%lld", i ? "," : "",
                (long long)intern(t, role_name(g->kind, (int)i)));
    fprintf(out, "],\"witness\":%u,\"omitted\":%u,\"lanes\":[", g->n_witness,
            d.omitted);
    for (uint32_t l = 0; l < d.n_lanes; l++) {
        char *name = short_thread(d.lanes[l].e);
        fprintf(out, "%s[%lld,%lld,%lld]", l ? "," : "",
                (long long)intern(t, d.lanes[l].e->thread),
                (long long)intern(t, d.lanes[l].e->node),
                (long long)intern(t, name));
        free(name);
    }
    fputs("],\"rows\":[", out);
    for (uint32_t i = 0; i < d.n; i++) {
        const drow *r = &d.rows[i];
        fprintf(out, "%s[%u,%u,%d,%d,%lld,%lld,%lld,%lld,%u,%u]", i ? "," : "",
                r->lane, r->step, r->role, (int)r->peer,
                (long long)intern(t, r->e->type),
                (long long)intern(t, r->e->object),
                (long long)intern(t, r->e->location),
                (long long)intern(t, r->e->file), r->e->line, r->e->index);
    }
    fputs("],\"locks\":[", out);
    for (uint32_t s = 0; s < d.n_sections; s++) {
        const dsection *x = &d.sections[s];
        fprintf(out, "%s[%u,%lld,%lld,%lld,%u]", s ? "," : "", x->lane,
                (long long)x->top, (long long)x->bottom,
                (long long)intern(t, x->name), x->open);
    }
    fputs("]}", out);
    diagram_free(&d);
}

/* Rows a group's diagram takes. */
static uint32_t diagram_size(const race_group *g)
{
    if (!g->n_witness)
        return g->n_events;
    return g->n_witness < DIAGRAM_ROWS ? g->n_witness : DIAGRAM_ROWS;
}

/* Which groups get a diagram: in order, while the page has room. */
static uint8_t *drawn_groups(const report *r)
{
    uint8_t *drawn = xcalloc(r->n_groups ? r->n_groups : 1, 1);
    uint64_t rows = 0;
    for (size_t i = 0; i < r->n_groups; i++) {
        rows += diagram_size(&r->groups[i]);
        drawn[i] = rows <= PAGE_ROWS;
    }
    return drawn;
}

/* The data block of every diagram: {"groups": [one per group, null when
 * not drawn], "strings": [...]}. */
static void print_data(const report *r, const uint8_t *drawn, FILE *out)
{
    strtab t = {0};
    fputs("<script type=\"application/json\" id=\"spider-data\">"
          "{\"groups\":[", out);
    for (size_t i = 0; i < r->n_groups; i++) {
        fputs(i ? ",\n" : "\n", out);
        if (drawn[i])
            print_diagram_data(&r->groups[i], &t, out);
        else
            fputs("null", out);
    }
    fputs("],\n\"strings\":", out);
    cJSON *a = cJSON_CreateArray();
    for (uint32_t i = 0; a && i < t.n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(t.v[i]));
    char *json = a ? cJSON_PrintUnformatted(a) : NULL;
    if (!json)
        alloc_fail(0, "the HTML report's strings");
    put_script_json(out, json);
    free(json);
    cJSON_Delete(a);
    strtab_free(&t);
    fputs("}</script>\n", out);
}

/* ---- the page ------------------------------------------------------------ */

static const char *plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}


static int kind_shown(const report *r, const print_options *o, int k)
{
    return r->summary.enabled[k] &&
           (!o->notes || !o->notes->kinds || (o->notes->kinds & (1u << k)));
}

/* "27 data races, 338 message races, 0 handler races in 365 groups; 0
 * undecided", as the text report opens. */
static void print_totals(const report *r, const print_options *o, FILE *out)
{
    const char *sep = "";
    for (int k = 0; k < RACE_KINDS; k++) {
        char noun[96];
        if (!kind_shown(r, o, k))
            continue;
        fprintf(out, "%s%zu %s", sep, r->n_by_kind[k],
                race_kind_noun((race_kind)k, r->n_by_kind[k], noun, sizeof noun));
        sep = ", ";
    }
    fprintf(out, " in %zu %s; %llu undecided", r->n_groups,
            plural(r->n_groups, "group", "groups"),
            (unsigned long long)r->summary.undecided);
}

static void print_head(const report *r, const print_options *o, FILE *out)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
          "'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, "
          "initial-scale=1\">\n<title>spider: ", out);
    print_totals(r, o, out);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", page_css);
}

static void print_header(const report *r, const print_options *o, FILE *out)
{
    const report_summary *s = &r->summary;
    fputs("<header>\n<h1>spider report</h1>\n<p class=\"totals\">", out);
    print_totals(r, o, out);
    fprintf(out, "</p>\n<p class=\"meta\">spider %s: %u %s, %u %s, %u %s, "
            "%llu events", SPIDER_VERSION, s->files,
            plural(s->files, "file", "files"), s->nodes,
            plural(s->nodes, "node", "nodes"), s->threads,
            plural(s->threads, "thread", "threads"),
            (unsigned long long)s->events);
    if (s->events_analyzed != s->events)
        fprintf(out, " (%llu analysed)", (unsigned long long)s->events_analyzed);
    if (o->timings)
        fprintf(out, "; %.3f s", r->timings.total);
    fputs("</p>\n", out);
    if (s->trace.interrupted || s->partial)
        fputs("<p><b>Interrupted: the results are partial.</b></p>\n", out);
    fputs("</header>\n", out);
}

/* One card per kind: its groups and what was decided. */
static void print_cards(const report *r, const print_options *o, FILE *out)
{
    const report_summary *s = &r->summary;
    fputs("<div class=\"cards\">\n", out);
    for (int k = 0; k < RACE_KINDS; k++) {
        char stem[64], noun[96];
        if (!kind_shown(r, o, k))
            continue;
        race_kind_stem((race_kind)k, stem, sizeof stem);
        fprintf(out, "<div class=\"card\" style=\"border-left-color:var(--%s)"
                "\"><b>%zu</b>%s<br><small>%llu %s", stem, r->n_by_kind[k],
                race_kind_noun((race_kind)k, r->n_by_kind[k], noun, sizeof noun),
                (unsigned long long)s->instances[k],
                plural(s->instances[k], "instance", "instances"));
        if (k == RACE_HANDLER) /* not candidates: from the message races */
            fputs(" from racing messages", out);
        else
            fprintf(out, " of %llu candidates",
                    (unsigned long long)s->candidates[k]);
        if (o->notes && o->notes->suppressed[k])
            fprintf(out, "; %llu suppressed",
                    (unsigned long long)o->notes->suppressed[k]);
        if (o->notes && o->notes->hidden[k])
            fprintf(out, "; %llu hidden by filters",
                    (unsigned long long)o->notes->hidden[k]);
        fputs("</small></div>\n", out);
    }
    fputs("</div>\n", out);
}

/* What was loaded and the model, as the text report's header says. */
static void print_stats(const report *r, const print_options *o, FILE *out)
{
    const report_summary *s = &r->summary;
    const hb_counts *c = &s->constraints_by_origin;
    fputs("<details class=\"stats\"><summary>Trace, model and time</summary>"
          "<table>\n<tr><td>events</td><td>", out);
    const char *sep = "";
    for (int k = 1; k <= EV_KIND_MAX; k++)
        if (s->by_kind[k]) {
            fprintf(out, "%s%llu %s", sep, (unsigned long long)s->by_kind[k],
                    event_kind_name((event_kind)k));
            sep = ", ";
        }
    fprintf(out, "</td></tr>\n<tr><td>messages</td><td>%u receives matched, "
            "%u unmatched, %u sends never received</td></tr>\n"
            "<tr><td>handlers</td><td>%u (%s model); lock sections %u</td></tr>\n"
            "<tr><td>model</td><td>%llu constraints: %" PRIu64 " program order, "
            "%" PRIu64 " fork/join, %" PRIu64 " messages, %" PRIu64 " locks, "
            "%" PRIu64 " wait/notify, %" PRIu64 " implied</td></tr>\n",
            s->trace.rcvs_matched, s->trace.rcvs_unmatched,
            s->trace.sends_unreceived, s->handlers,
            s->handlers_model == HANDLERS_NESTED ? "nested" : "floating",
            s->lock_sections, (unsigned long long)s->constraints,
            c->program_order, c->thread_sync, c->messages, c->locks,
            c->wait_notify, c->implied);
    if (s->pruned)
        fprintf(out, "<tr><td>pruned</td><td>%llu events</td></tr>\n",
                (unsigned long long)(s->events - s->events_analyzed));
    if (s->trace.warnings)
        fprintf(out, "<tr><td>warnings</td><td>%u</td></tr>\n",
                s->trace.warnings);
    fprintf(out, "<tr><td>decided</td><td>%llu by exact shortcuts (%llu "
            "unsatisfiable, %llu satisfiable), %llu by Z3; %llu undecided"
            "</td></tr>\n", (unsigned long long)(s->by_shortcut_unsat +
                                               s->by_shortcut_sat),
            (unsigned long long)s->by_shortcut_unsat,
            (unsigned long long)s->by_shortcut_sat,
            (unsigned long long)s->by_z3, (unsigned long long)s->undecided);
    if (o->timings)
        fprintf(out, "<tr><td>time</td><td>load %.3f s, prune %.3f s, encode "
                "%.3f s, solve %.3f s (%u %s), total %.3f s</td></tr>\n",
                r->timings.load, r->timings.prune, r->timings.encode,
                r->timings.solve, r->timings.jobs,
                plural(r->timings.jobs, "worker", "workers"), r->timings.total);
    fputs("</table></details>\n", out);
}

/* The filters: kinds present, nodes present (in order of appearance). */
static void print_filters(const report *r, const print_options *o, FILE *out)
{
    fputs("<form class=\"filters\" id=\"filters\">\n<label>Kind "
          "<select id=\"f-kind\"><option value=\"\">all kinds</option>", out);
    for (int k = 0; k < RACE_KINDS; k++) {
        char stem[64], noun[96];
        if (!kind_shown(r, o, k) || !r->n_by_kind[k])
            continue;
        fprintf(out, "<option value=\"%s\">%s (%zu)</option>",
                race_kind_stem((race_kind)k, stem, sizeof stem),
                race_kind_noun((race_kind)k, 2, noun, sizeof noun),
                r->n_by_kind[k]);
    }
    fputs("</select></label>\n<label>Node <select id=\"f-node\">"
          "<option value=\"\">all nodes</option>", out);
    strtab nodes = {0};
    for (size_t i = 0; i < r->n_groups; i++) {
        uint32_t known = nodes.n;
        intern(&nodes, r->groups[i].node);
        if (nodes.n == known) /* shown already */
            continue;
        fputs("<option value=\"", out);
        html(out, r->groups[i].node);
        fputs("\">", out);
        html(out, r->groups[i].node);
        fputs("</option>", out);
    }
    strtab_free(&nodes);
    fputs("</select></label>\n<label>Text <input id=\"f-text\" type=\"search\" "
          "placeholder=\"location, variable, thread, file\"></label>\n"
          "<button type=\"button\" id=\"expand\">Expand all</button>"
          "<button type=\"button\" id=\"collapse\">Collapse all</button>\n"
          "<span id=\"shown\"></span>\n</form>\n", out);
}

/* What each mark of a diagram means. */
static void print_legend(FILE *out)
{
    fputs("<svg class=\"legend\" width=\"900\" height=\"26\" role=\"img\" "
          "aria-label=\"legend\">"
          "<circle class=\"ev race\" cx=\"12\" cy=\"13\" r=\"8\"/>"
          "<text x=\"26\" y=\"17\">the instance's events</text>"
          "<circle class=\"ev\" cx=\"190\" cy=\"13\" r=\"8\"/>"
          "<text x=\"204\" y=\"17\">what they wait on</text>"
          "<g class=\"arrow msg\"><line x1=\"350\" y1=\"13\" x2=\"380\" "
          "y2=\"13\"/><polygon points=\"380,8.5 389,13 380,17.5\"/></g>"
          "<text x=\"396\" y=\"17\">message</text>"
          "<g class=\"arrow sync\"><line x1=\"470\" y1=\"13\" x2=\"500\" "
          "y2=\"13\"/><polygon points=\"500,8.5 509,13 500,17.5\"/></g>"
          "<text x=\"516\" y=\"17\">lock, fork, join, notify</text>"
          "<rect class=\"lock\" x=\"690\" y=\"3\" width=\"20\" height=\"20\" "
          "rx=\"4\"/><text x=\"716\" y=\"17\">lock held</text>"
          "</svg>\n<p class=\"note\">Each diagram is a run that exhibits the "
          "instance (its witness): one lane per thread, grouped by node, time "
          "running down; the numbers are the order of the run, equal numbers "
          "happen at once.</p>\n", out);
}

static void code(FILE *out, const char *s)
{
    fputs("<code>", out);
    html(out, s);
    fputs("</code>", out);
}

/* "file:line" of an event. */
static void where(FILE *out, const event_ref *e)
{
    html(out, e->file);
    fprintf(out, ":%u", e->line);
}

/* "Wx..Wy / Rx on correlated variables x = X, y = Y of node N". */
static void print_correlated(const race_group *g, FILE *out)
{
    fprintf(out, "%s on correlated variables x = ", g->pattern);
    code(out, g->variable);
    fputs(", y = ", out);
    code(out, g->variable_y);
    fputs(" of node ", out);
    code(out, g->node);
}

/* One line saying what the group is, as the text report does. */
static void print_what(const race_group *g, FILE *out)
{
    const event_ref *ev = g->events;
    fputs("<p>", out);
    if (g->kind == RACE_MESSAGE) {
        fputs("Two messages received by ", out);
        code(out, ev[2].thread);
        fputs(" on node ", out);
        code(out, g->node);
        fputs(" can arrive in either order.", out);
    } else if (g->kind == RACE_ATOMICITY) {
        fprintf(out, "%s on variable ", g->pattern);
        code(out, g->variable);
        fputs(" of node ", out);
        code(out, g->node);
        fprintf(out, ": the %s (r) of ", ev[1].type);
        code(out, ev[1].thread);
        fprintf(out, " can fall between the %s (p) and the %s (c) of ",
                ev[0].type, ev[2].type);
        code(out, ev[0].thread);
        fputs(".", out);
    } else if (g->kind == RACE_MULTIVAR) {
        print_correlated(g, out);
        fputs(": the accesses bx and by of ", out);
        code(out, ev[2].thread);
        fputs(" can both fall between a1 and a2 of ", out);
        code(out, ev[0].thread);
        fputs(".", out);
    } else if (g->kind == RACE_MVRACE) {
        print_correlated(g, out);
        fputs(": the access r of ", out);
        code(out, ev[1].thread);
        fputs(" can fall between p and c of ", out);
        code(out, ev[0].thread);
        fputs(", which access x and y together.", out);
    } else if (g->kind == RACE_INCONSISTENT) {
        fprintf(out, "%s holds for x = ", g->pattern);
        code(out, g->variable);
        fputs(", y = ", out);
        code(out, g->variable_y);
        fprintf(out, " (support %u, confidence %.2f), but this write of x is "
                "in a function that never accesses y.", g->rule_support,
                g->rule_confidence);
    } else {
        fputs("Variable ", out);
        code(out, g->variable);
        fputs(" on node ", out);
        code(out, g->node);
        fputs(g->kind == RACE_HANDLER
                  ? ": accessed in the handlers of two messages that can "
                    "arrive in either order."
                  : ": two threads access it with nothing ordering them.",
              out);
    }
    fprintf(out, " %llu%s %s.</p>\n", (unsigned long long)g->count,
            g->unchecked ? "+" : "", plural(g->count, "instance", "instances"));
    if (g->invariant) {
        char said[160];
        fprintf(out, "<p class=\"%s\">Passing runs: ",
                g->invariant == INVARIANT_HOLDS ? "note inv" : "note");
        html(out, race_group_invariant_text(g, said, sizeof said));
        fputs(".</p>\n", out);
    }
}

/* Where an event runs and what it holds (event_context). */
static void print_context(const event_ref *e, FILE *out)
{
    const event_context *c = e->context;
    if (!c)
        return;
    if (c->n_locks) {
        fputs(c->n_locks == 1 ? "holds lock " : "holds locks ", out);
        for (uint32_t k = 0; k < c->n_locks; k++) {
            fputs(k ? ", " : "", out);
            code(out, c->locks[k]);
        }
    } else {
        fputs("holds no lock", out);
    }
    if (c->handler) {
        fputs("; in the handler at ", out);
        where(out, c->handler);
        if (c->message) {
            fputs(" of message ", out);
            code(out, c->message);
        }
        if (c->sender) {
            fputs(" sent by ", out);
            code(out, c->sender->thread);
            fputs(" at ", out);
            where(out, c->sender);
        }
    }
    if (c->created) {
        fputs("; thread created at ", out);
        where(out, c->created);
    }
}

/* The instance shown: each event with its context. */
static void print_instance(const race_group *g, FILE *out)
{
    fputs("<table class=\"inst\"><tr><th></th><th>event</th><th>thread</th>"
          "<th>location</th><th>at</th><th>context</th></tr>\n", out);
    for (uint32_t i = 0; i < g->n_events; i++) {
        const event_ref *e = &g->events[i];
        fprintf(out, "<tr class=\"race\"><td class=\"nw\">%s</td><td class=\"nw\">%s ",
                role_name(g->kind, (int)i), e->type);
        if (e->object)
            code(out, e->object);
        fputs("</td><td class=\"nw\">", out);
        code(out, e->thread);
        fputs("</td><td>", out);
        code(out, e->location);
        fputs("</td><td class=\"mono\">", out);
        where(out, e);
        fputs("</td><td class=\"ctx\">", out);
        print_context(e, out);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

/* A group's row in the table (number id), and its detail row: what it
 * is, its instance and where its diagram goes (drawn: the page has its
 * data). */
static void print_group(const race_group *g, size_t id, int open, int drawn,
                        FILE *out)
{
    char stem[64];
    race_kind_stem(g->kind, stem, sizeof stem);
    fprintf(out, "<tr class=\"group%s\" id=\"g%zu\" data-kind=\"%s\" "
            "data-node=\"", open ? " open" : "", id, stem);
    html(out, g->node);
    fprintf(out, "\"><td><button type=\"button\" class=\"tog\" "
            "aria-expanded=\"%s\" aria-controls=\"d%zu\">\u25b6</button>%zu"
            "</td><td><span class=\"kind\" style=\"background:var(--%s)\">%s"
            "</span></td><td class=\"locs\">", open ? "true" : "false", id, id,
            stem, stem);
    for (uint32_t i = 0; i < g->n_locations; i++)
        code(out, g->locations[i]);
    fputs("</td><td>", out);
    if (g->variable)
        code(out, g->variable);
    if (g->variable_y) {
        fputs(", ", out);
        code(out, g->variable_y);
    }
    fputs("</td><td>", out);
    code(out, g->node);
    fprintf(out, "</td><td class=\"num\">%llu%s</td></tr>\n<tr class=\"detail\" "
            "id=\"d%zu\"%s><td colspan=\"6\">\n", (unsigned long long)g->count,
            g->unchecked ? "+" : "", id, open ? "" : " hidden");
    print_what(g, out);
    print_instance(g, out);
    if (!drawn) {
        fprintf(out, "<p class=\"note\">Diagram not drawn: a page holds %u "
                "diagram rows at most; narrow the report with --kind, --node "
                "or --match.</p>\n", (unsigned)PAGE_ROWS);
    } else {
        if (!g->n_witness)
            fputs("<p class=\"note\">No witness run (not found, or the solver "
                  "left it open): the instance's events only, unordered.</p>\n",
                  out);
        else if (g->n_witness > DIAGRAM_ROWS)
            fprintf(out, "<p class=\"note\">The witness has %u events; the "
                    "diagram shows %u: the instance's events, what they wait "
                    "on and their nearest neighbours in the run.</p>\n",
                    g->n_witness, (unsigned)DIAGRAM_ROWS);
        fprintf(out, "<div class=\"dwrap\" data-group=\"%zu\"></div>\n",
                id - 1);
    }
    fputs("</td></tr>\n", out);
}

/* Groups with undecided candidates only: they may race. */
static void print_open(const report *r, FILE *out)
{
    if (!r->n_open)
        return;
    fprintf(out, "<h2>Undecided</h2>\n<p class=\"note\">%llu candidates were "
            "left undecided (%s); these groups may race.</p>\n<ul>\n",
            (unsigned long long)r->summary.undecided,
            r->summary.partial ? "interrupted" : "solver timeout, see "
                                                 "--timeout-ms");
    for (size_t i = 0; i < r->n_open; i++) {
        fprintf(out, "<li>%s: ", race_kind_title(r->open[i].kind));
        for (uint32_t k = 0; k < r->open[i].n_locations; k++) {
            fputs(k ? " / " : "", out);
            code(out, r->open[i].locations[k]);
        }
        fprintf(out, " (%llu undecided)</li>\n",
                (unsigned long long)r->open[i].undecided);
    }
    fputs("</ul>\n", out);
}

void report_print_html(const report *r, const print_options *o, FILE *out)
{
    print_head(r, o, out);
    print_header(r, o, out);
    fputs("<main>\n", out);
    print_cards(r, o, out);
    print_stats(r, o, out);
    fputs("<h2>Race groups</h2>\n", out);
    print_filters(r, o, out);
    print_legend(out);
    fputs("<table class=\"groups\"><colgroup><col style=\"width:4.5em\">"
          "<col style=\"width:8.5em\"><col><col style=\"width:20%\">"
          "<col style=\"width:12%\"><col style=\"width:6.5em\"></colgroup>"
          "<thead><tr><th>#</th><th>kind</th>"
          "<th>locations</th><th>variable</th><th>node</th><th>instances</th>"
          "</tr></thead>\n<tbody>\n", out);
    uint8_t *drawn = drawn_groups(r);
    for (size_t i = 0; i < r->n_groups; i++)
        print_group(&r->groups[i], i + 1, i == 0, drawn[i], out);
    fputs("</tbody></table>\n", out);
    if (!r->n_groups)
        fputs("<p>No race found.</p>\n", out);
    print_open(r, out);
    fputs("</main>\n", out);
    print_data(r, drawn, out);
    fprintf(out, "<script>\n%s</script>\n</body>\n</html>\n", page_js);
    free(drawn);
}
