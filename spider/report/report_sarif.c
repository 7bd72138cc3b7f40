/*
 * report_sarif.c — SARIF 2.1.0, the format code-scanning services read
 * (docs/report.md): one run, one rule per kind that ran (derived from the
 * analysis table, so a new kind needs no edit here), one result per group.
 *
 * Each side of a group is a location: its `loc` as a logical location
 * (Class.method) and a physical one — the Java source file when
 * --source-root has it (a.b.C.m.12 -> a/b/C.java line 12), else the trace
 * file and line of the event, so that every result can be shown in a
 * file.  The trace events of the instance are related locations.
 * partialFingerprints hash the group's identity (baseline.h), stable
 * across runs as long as kind and locations are.
 */
#include "../spider.h"

#include "../../util/text.h"

#include "../../util/alloc.h"
#include "baseline.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"

/* A URI reference for a file path: unreserved characters and '/' kept,
 * the rest percent-encoded.  The caller frees it. */
static char *uri_path(const char *prefix, const char *path)
{
    size_t n = strlen(prefix), len = strlen(path);
    char *u = xmalloc(n + 3 * len + 1);
    memcpy(u, prefix, n);
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (isalnum(*p) || strchr("/-._~", *p))
            u[n++] = (char)*p;
        else
            n += (size_t)sprintf(u + n, "%%%02X", *p);
    }
    u[n] = '\0';
    return u;
}

/* "file:///abs/dir/" for a directory, or NULL if it cannot be resolved. */
static char *dir_uri(const char *dir)
{
    char abs[PATH_MAX];
    if (!realpath(dir, abs))
        return NULL;
    size_t n = strlen(abs);
    if (n + 2 > sizeof abs)
        return NULL;
    if (abs[n - 1] != '/')
        strcat(abs, "/");
    return uri_path("file://", abs);
}

static cJSON *text_message(const char *text)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "text", text);
    return m;
}

/* {"artifactLocation": ..., "region": {"startLine": line}}: a relative
 * path against base_id (a key of originalUriBaseIds), an absolute one as
 * a file URI. */
static cJSON *physical(const char *path, const char *base_id, unsigned line)
{
    cJSON *p = cJSON_CreateObject();
    cJSON *a = cJSON_AddObjectToObject(p, "artifactLocation");
    char *uri = uri_path(path[0] == '/' ? "file://" : "", path);
    cJSON_AddStringToObject(a, "uri", uri);
    free(uri);
    if (path[0] != '/')
        cJSON_AddStringToObject(a, "uriBaseId", base_id);
    if (line > 0) {
        cJSON *r = cJSON_AddObjectToObject(p, "region");
        cJSON_AddNumberToObject(r, "startLine", line);
    }
    return p;
}

/* Java-style "a.b.C$In.m.12": *method_end is where ".12" starts (or the
 * end), *line its number or 0. */
static void split_loc(const char *loc, size_t *method_end, unsigned *line)
{
    size_t n = strlen(loc);
    const char *dot = strrchr(loc, '.');
    *method_end = n;
    *line = 0;
    if (!dot || !dot[1] || strspn(dot + 1, "0123456789") != strlen(dot + 1) ||
        strlen(dot + 1) > 9)
        return;
    *method_end = (size_t)(dot - loc);
    *line = (unsigned)strtoul(dot + 1, NULL, 10);
}

/* The logical location: Class.method, named by the method. */
static cJSON *logical(const char *loc)
{
    size_t end;
    unsigned line;
    split_loc(loc, &end, &line);
    char *fq = xstrdup(loc);
    fq[end] = '\0';
    const char *name = strrchr(fq, '.');
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "name", name && line ? name + 1 : fq);
    cJSON_AddStringToObject(l, "fullyQualifiedName", fq);
    if (line)
        cJSON_AddStringToObject(l, "kind", "function");
    free(fq);
    return l;
}

/* "a/b/C.java" for "a.b.C$In.m.12" when root has that file (*line = 12),
 * else NULL.  The caller frees it. */
static char *source_file(const char *root, const char *loc, unsigned *line)
{
    size_t end;
    split_loc(loc, &end, line);
    const char *method = NULL;
    for (size_t i = end; i-- > 0;)
        if (loc[i] == '.') {
            method = loc + i;
            break;
        }
    if (!*line || !method || method == loc)
        return NULL;
    size_t cls = (size_t)(method - loc);
    const char *inner = memchr(loc, '$', cls);
    if (inner)
        cls = (size_t)(inner - loc);
    char *rel = xmalloc(cls + 6);
    for (size_t i = 0; i < cls; i++)
        rel[i] = loc[i] == '.' ? '/' : loc[i];
    memcpy(rel + cls, ".java", 6);
    size_t full_len = strlen(root) + cls + 8;
    char *full = xmalloc(full_len);
    snprintf(full, full_len, "%s/%s", root, rel);
    int found = access(full, R_OK) == 0;
    free(full);
    if (!found) {
        free(rel);
        return NULL;
    }
    return rel;
}

static cJSON *side_location(const race_group *g, uint32_t i,
                            const print_options *o)
{
    cJSON *l = cJSON_CreateObject();
    unsigned line = 0;
    char *src = o->source_root
                    ? source_file(o->source_root, g->locations[i], &line)
                    : NULL;
    if (src)
        cJSON_AddItemToObject(l, "physicalLocation",
                              physical(src, "SRCROOT", line));
    else if (i < g->n_events)
        cJSON_AddItemToObject(l, "physicalLocation",
                              physical(g->events[i].file, "TRACEROOT",
                                       g->events[i].line));
    free(src);
    cJSON *logs = cJSON_AddArrayToObject(l, "logicalLocations");
    cJSON_AddItemToArray(logs, logical(g->locations[i]));
    return l;
}

/* A growing text: a memory stream that ends the run if it cannot be made
 * or closed (alloc.h's rule). */
static FILE *text_open(char **buf, size_t *len)
{
    FILE *f = open_memstream(buf, len);
    if (!f)
        alloc_fail(0, "a SARIF message");
    return f;
}

static char *text_close(FILE *f, char **buf, size_t *len)
{
    if (fclose(f) != 0 || !*buf)
        alloc_fail(*len, "a SARIF message");
    return *buf;
}

/* "; holds lock L; in the handler of message M (sent by T at f:12);
 * thread created by T at f:3" — what ThreadSanitizer says of an access. */
static void context_text(const event_context *c, FILE *f)
{
    if (!c)
        return;
    if (c->n_locks == 0)
        fputs("; holds no lock", f);
    for (uint32_t i = 0; i < c->n_locks; i++)
        fprintf(f, "%s%s", i ? ", " : (c->n_locks == 1 ? "; holds lock "
                                                       : "; holds locks "),
                c->locks[i]);
    if (c->handler) {
        fputs("; in the handler", f);
        if (c->message)
            fprintf(f, " of message %s", c->message);
        fprintf(f, " (begins at %s:%u", c->handler->file, c->handler->line);
        if (c->sender)
            fprintf(f, ", sent by %s at %s:%u", c->sender->thread,
                    c->sender->file, c->sender->line);
        fputc(')', f);
    }
    if (c->created)
        fprintf(f, "; thread created by %s at %s:%u", c->created->thread,
                c->created->file, c->created->line);
}

static cJSON *related(const race_group *g)
{
    cJSON *a = cJSON_CreateArray();
    for (uint32_t i = 0; i < g->n_events; i++) {
        const event_ref *e = &g->events[i];
        cJSON *l = cJSON_CreateObject();
        cJSON_AddNumberToObject(l, "id", i + 1);
        cJSON_AddItemToObject(l, "physicalLocation",
                              physical(e->file, "TRACEROOT", e->line));
        char *text = NULL;
        size_t len = 0;
        FILE *f = text_open(&text, &len);
        fprintf(f, "%s by %s at %s (event %u of its thread)", e->type,
                e->thread, e->location, e->index);
        context_text(e->context, f);
        cJSON_AddItemToObject(l, "message",
                              text_message(text_close(f, &text, &len)));
        free(text);
        cJSON_AddItemToArray(a, l);
    }
    return a;
}

/* One step of a witness as a threadFlowLocation: the trace file and line,
 * the event's location as a logical location, executionOrder its step
 * (equal steps happen at once); the instance's events are essential. */
static cJSON *witness_location(const race_group *g, const witness_step *w)
{
    const event_ref *e = &w->event;
    cJSON *tfl = cJSON_CreateObject();
    cJSON *l = cJSON_AddObjectToObject(tfl, "location");
    cJSON_AddItemToObject(l, "physicalLocation",
                          physical(e->file, "TRACEROOT", e->line));
    cJSON_AddItemToArray(cJSON_AddArrayToObject(l, "logicalLocations"),
                         logical(e->location));
    char *text = NULL;
    size_t len = 0;
    FILE *f = text_open(&text, &len);
    fprintf(f, "step %u: %s", w->step, e->type);
    if (e->object)
        fprintf(f, " %s", e->object);
    fprintf(f, " by %s at %s", e->thread, e->location);
    if (w->role >= 0)
        fprintf(f, " (event %d of the instance)", w->role + 1);
    if (w->peer >= 0 && (uint32_t)w->peer < g->n_witness)
        fprintf(f, "; waits for step %u (%s by %s)",
                g->witness[w->peer].step, g->witness[w->peer].event.type,
                g->witness[w->peer].event.thread);
    cJSON_AddItemToObject(l, "message", text_message(text_close(f, &text, &len)));
    free(text);
    cJSON_AddNumberToObject(tfl, "executionOrder", w->step);
    cJSON_AddStringToObject(tfl, "importance",
                            w->role >= 0 ? "essential" : "important");
    return tfl;
}

/* The witness as one codeFlow with a threadFlow per thread, threads in
 * order of their first step. */
static cJSON *code_flows(const race_group *g)
{
    cJSON *flows = cJSON_CreateArray();
    cJSON *cf = cJSON_CreateObject();
    cJSON_AddItemToArray(flows, cf);
    cJSON_AddItemToObject(cf, "message", text_message(
        "A run that shows the race: each thread's steps, executionOrder "
        "the step (equal steps happen at once)"));
    cJSON *tfs = cJSON_AddArrayToObject(cf, "threadFlows");
    uint8_t *done = xcalloc(g->n_witness, 1);
    for (uint32_t i = 0; i < g->n_witness; i++) {
        if (done[i])
            continue;
        const char *thread = g->witness[i].event.thread;
        cJSON *tf = cJSON_CreateObject();
        cJSON_AddStringToObject(tf, "id", thread);
        char *text = NULL;
        size_t len = 0;
        FILE *f = text_open(&text, &len);
        fprintf(f, "thread %s on node %s", thread, g->witness[i].event.node);
        cJSON_AddItemToObject(tf, "message",
                              text_message(text_close(f, &text, &len)));
        free(text);
        cJSON *locs = cJSON_AddArrayToObject(tf, "locations");
        for (uint32_t k = i; k < g->n_witness; k++)
            if (!done[k] && strcmp(g->witness[k].event.thread, thread) == 0) {
                done[k] = 1;
                cJSON_AddItemToArray(locs, witness_location(g, &g->witness[k]));
            }
        cJSON_AddItemToArray(tfs, tf);
    }
    free(done);
    return flows;
}

/* FNV-1a, 64 bits, as 16 hex digits: a fingerprint, not a secret. */
static void fingerprint(const char *s, char out[17])
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* The rule id of a kind: "data-races", "multi-variable-violations". */
static void rule_id(race_kind k, char *buf, size_t len)
{
    snprintf(buf, len, "%s", race_kind_key(k));
    for (char *p = buf; *p; p++)
        if (*p == '_')
            *p = '-';
}

/* "Data race: A vs B, variable x, node n1 (2 instances)"; json is the
 * group's JSON form, for the fields of kinds this file does not know. */
static char *result_text(const race_group *g, const cJSON *json)
{
    char noun[96], *buf = NULL;
    size_t len = 0;
    FILE *f = text_open(&buf, &len);
    race_kind_noun(g->kind, 1, noun, sizeof noun);
    noun[0] = (char)toupper((unsigned char)noun[0]);
    fprintf(f, "%s%s: ", g->count ? "" : "Possible ", noun);
    if (!g->count)
        noun[0] = (char)tolower((unsigned char)noun[0]);
    for (uint32_t i = 0; i < g->n_locations; i++)
        fprintf(f, "%s%s", i ? (g->n_locations == 2 ? " vs " : " / ") : "",
                g->locations[i]);
    if (g->pattern[0])
        fprintf(f, ", pattern %s", g->pattern);
    const cJSON *vars = cJSON_GetObjectItemCaseSensitive(json, "variables");
    const cJSON *v;
    if (cJSON_IsArray(vars)) { /* a kind with several variables */
        fputs(", variables", f);
        cJSON_ArrayForEach(v, vars)
            if (cJSON_IsString(v))
                fprintf(f, " %s", v->valuestring);
    } else if (g->variable) {
        fprintf(f, ", variable %s", g->variable);
    }
    if (g->node)
        fprintf(f, ", node %s", g->node);
    if (g->count)
        fprintf(f, " (%llu%s instance%s)", (unsigned long long)g->count,
                g->unchecked ? "+" : "", g->count == 1 ? "" : "s");
    else
        fprintf(f, " (undecided: %llu candidates the solver left open)",
                (unsigned long long)g->undecided);
    if (g->invariant) {
        char said[160];
        fprintf(f, "; %s", race_group_invariant_text(g, said, sizeof said));
    }
    return text_close(f, &buf, &len);
}

static cJSON *result(const race_group *g, int rule_index,
                     const print_options *o)
{
    cJSON *res = cJSON_CreateObject();
    char id[96];
    rule_id(g->kind, id, sizeof id);
    cJSON_AddStringToObject(res, "ruleId", id);
    cJSON_AddNumberToObject(res, "ruleIndex", rule_index);
    if (g->count) {
        cJSON_AddStringToObject(res, "kind", "fail");
        cJSON_AddStringToObject(res, "level", "warning");
    } else { /* undecided: the solver could not say */
        cJSON_AddStringToObject(res, "kind", "open");
        cJSON_AddStringToObject(res, "level", "none");
    }
    cJSON *json = report_group_json(g);
    char *text = result_text(g, json);
    cJSON_AddItemToObject(res, "message", text_message(text));
    free(text);
    cJSON *locs = cJSON_AddArrayToObject(res, "locations");
    for (uint32_t i = 0; i < g->n_locations; i++)
        cJSON_AddItemToArray(locs, side_location(g, i, o));
    cJSON_AddItemToObject(res, "relatedLocations", related(g));
    if (g->n_witness)
        cJSON_AddItemToObject(res, "codeFlows", code_flows(g));
    char *identity = group_identity(g->kind, json), fp[17];
    cJSON_Delete(json);
    fingerprint(identity, fp);
    free(identity);
    cJSON *fps = cJSON_AddObjectToObject(res, "partialFingerprints");
    cJSON_AddStringToObject(fps, "spiderGroup/v1", fp);
    if (g->baseline != BASELINE_NONE)
        cJSON_AddStringToObject(res, "baselineState",
                                g->baseline == BASELINE_NEW ? "new"
                                                            : "unchanged");
    if (g->invariant) { /* what passing runs said (--invariants) */
        cJSON *props = cJSON_AddObjectToObject(res, "properties");
        cJSON *p = cJSON_AddObjectToObject(props, "passingRuns");
        cJSON_AddStringToObject(p, "invariant",
                                invariant_state_name(g->invariant));
        cJSON_AddNumberToObject(p, "executed", g->runs_executed);
        cJSON_AddNumberToObject(p, "interleaved", g->runs_interleaved);
    }
    return res;
}

/* "Data races" -> "DataRaces". */
static void rule_name(race_kind k, char *buf, size_t len)
{
    size_t n = 0;
    int up = 1;
    for (const char *p = race_kind_title(k); *p && n + 1 < len; p++) {
        if (!isalnum((unsigned char)*p)) {
            up = 1;
            continue;
        }
        buf[n++] = up ? (char)toupper((unsigned char)*p) : *p;
        up = 0;
    }
    buf[n] = '\0';
}

static cJSON *rule(race_kind k)
{
    char id[96], name[96], noun[96], text[256];
    rule_id(k, id, sizeof id);
    rule_name(k, name, sizeof name);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "id", id);
    cJSON_AddStringToObject(r, "name", name);
    race_kind_noun(k, 1, noun, sizeof noun);
    noun[0] = (char)toupper((unsigned char)noun[0]);
    snprintf(text, sizeof text, "%s.", noun);
    cJSON_AddItemToObject(r, "shortDescription", text_message(text));
    snprintf(text, sizeof text, "%s: instances grouped by their locations "
             "that could happen in some run with the same causal structure "
             "as the trace (spider's docs/model.md).", noun);
    cJSON_AddItemToObject(r, "fullDescription", text_message(text));
    cJSON *conf = cJSON_AddObjectToObject(r, "defaultConfiguration");
    cJSON_AddStringToObject(conf, "level", "warning");
    return r;
}

static cJSON *base_ids(const print_options *o)
{
    cJSON *ids = cJSON_CreateObject();
    char *cwd = dir_uri(".");
    if (cwd) {
        cJSON *t = cJSON_AddObjectToObject(ids, "TRACEROOT");
        cJSON_AddStringToObject(t, "uri", cwd);
        free(cwd);
    }
    char *src = o->source_root ? dir_uri(o->source_root) : NULL;
    if (src) {
        cJSON *s = cJSON_AddObjectToObject(ids, "SRCROOT");
        cJSON_AddStringToObject(s, "uri", src);
        free(src);
    }
    return ids;
}

static void add_results(cJSON *results, const race_group *g, size_t n,
                        const int *rule_of, const print_options *o)
{
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(results, result(&g[i], rule_of[g[i].kind], o));
}

void report_print_sarif(const report *r, const print_options *o, FILE *out)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "$schema", SARIF_SCHEMA);
    cJSON_AddStringToObject(root, "version", "2.1.0");
    cJSON *run = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(root, "runs"), run);
    cJSON *driver = cJSON_AddObjectToObject(
        cJSON_AddObjectToObject(run, "tool"), "driver");
    cJSON_AddStringToObject(driver, "name", "spider");
    cJSON_AddStringToObject(driver, "version", SPIDER_VERSION);
    cJSON_AddStringToObject(driver, "semanticVersion", SPIDER_VERSION);
    cJSON *rules = cJSON_AddArrayToObject(driver, "rules");
    int rule_of[RACE_KINDS], n_rules = 0;
    for (int k = 0; k < RACE_KINDS; k++) {
        rule_of[k] = -1;
        if (!r->summary.enabled[k])
            continue;
        rule_of[k] = n_rules++;
        cJSON_AddItemToArray(rules, rule((race_kind)k));
    }
    cJSON_AddItemToObject(run, "originalUriBaseIds", base_ids(o));
    cJSON *results = cJSON_AddArrayToObject(run, "results");
    add_results(results, r->groups, r->n_groups, rule_of, o);
    add_results(results, r->open, r->n_open, rule_of, o);
    cJSON *inv = cJSON_CreateObject();
    /* interrupted (SIGINT/SIGTERM): what was decided so far */
    cJSON_AddBoolToObject(inv, "executionSuccessful", !r->summary.partial);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(run, "invocations"), inv);
    cJSON_AddStringToObject(run, "columnKind", "unicodeCodePoints");
    char *text = cJSON_Print(root);
    if (!text)
        alloc_fail(0, "the SARIF report");
    size_t replaced; /* cJSON copies invalid UTF-8 of the trace as it is */
    char *clean = text_json_clean(text, &replaced);
    fputs(clean, out);
    fputc('\n', out);
    free(clean);
    free(text);
    cJSON_Delete(root);
}
