/*
 * report_json.c — the machine-readable report (docs/report.md), built with
 * cJSON.  Keys appear in a fixed order and arrays are sorted, so the output
 * is byte-for-byte stable apart from "timings".
 */
#include "../spider.h"

#include "../../util/alloc.h"
#include "../../util/text.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void add_u64(cJSON *o, const char *k, uint64_t v)
{
    cJSON_AddItemToObject(o, k, cJSON_CreateNumber((double)v));
}

static void add_string_or_null(cJSON *o, const char *k, const char *v)
{
    if (v)
        cJSON_AddStringToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

/* An EVENT (docs/report.md): every key always there, "object" null when
 * the event acts on nothing. */
static cJSON *event_json(const event_ref *e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", e->type);
    cJSON_AddStringToObject(o, "thread", e->thread);
    cJSON_AddStringToObject(o, "node", e->node);
    cJSON_AddStringToObject(o, "location", e->location);
    cJSON_AddStringToObject(o, "file", e->file);
    add_u64(o, "line", e->line);
    add_u64(o, "index", e->index);
    add_string_or_null(o, "object", e->object);
    return o;
}

static cJSON *event_or_null(const event_ref *e)
{
    return e ? event_json(e) : cJSON_CreateNull();
}

/* The context of an instance's event: stable keys, null (locks: []) when
 * absent, so that a jq filter needs no test for a key. */
static cJSON *context_json(const event_context *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *locks = cJSON_AddArrayToObject(o, "locks");
    for (uint32_t i = 0; c && i < c->n_locks; i++)
        cJSON_AddItemToArray(locks, cJSON_CreateString(c->locks[i]));
    cJSON_AddItemToObject(o, "handler", event_or_null(c ? c->handler : NULL));
    add_string_or_null(o, "message", c ? c->message : NULL);
    cJSON_AddItemToObject(o, "sender", event_or_null(c ? c->sender : NULL));
    cJSON_AddItemToObject(o, "created", event_or_null(c ? c->created : NULL));
    return o;
}

static cJSON *events_json(const race_group *g, uint32_t from, uint32_t to)
{
    cJSON *a = cJSON_CreateArray();
    for (uint32_t i = from; i < to; i++) {
        cJSON *e = event_json(&g->events[i]);
        cJSON_AddItemToObject(e, "context", context_json(g->events[i].context));
        cJSON_AddItemToArray(a, e);
    }
    return a;
}

/* The witness: EVENTs in run order, each with its step, which event of
 * the instance it is and the witness index of the event it waits for
 * (null when none). */
static cJSON *witness_json(const race_group *g)
{
    cJSON *a = cJSON_CreateArray();
    for (uint32_t i = 0; i < g->n_witness; i++) {
        const witness_step *w = &g->witness[i];
        cJSON *e = event_json(&w->event);
        add_u64(e, "step", w->step);
        if (w->role >= 0)
            add_u64(e, "instance", (uint64_t)w->role);
        else
            cJSON_AddNullToObject(e, "instance");
        if (w->peer >= 0)
            add_u64(e, "waits_for", (uint64_t)w->peer);
        else
            cJSON_AddNullToObject(e, "waits_for");
        cJSON_AddItemToArray(a, e);
    }
    return a;
}

cJSON *report_group_json(const race_group *g)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "locations",
                          cJSON_CreateStringArray((const char *const *)g->locations,
                                                  (int)g->n_locations));
    if (g->pattern[0])
        cJSON_AddStringToObject(o, "pattern", g->pattern);
    if (g->variable && g->variable_y) { /* multi-variable: [x, y] */
        const char *xy[2] = {g->variable, g->variable_y};
        cJSON_AddItemToObject(o, "variables", cJSON_CreateStringArray(xy, 2));
    } else if (g->variable) {
        cJSON_AddStringToObject(o, "variable", g->variable);
    }
    cJSON_AddStringToObject(o, "node", g->node);
    add_u64(o, "count", g->count);
    if (g->ranked)
        add_u64(o, "gap", g->gap);
    add_u64(o, "unchecked", g->unchecked);
    add_u64(o, "undecided", g->undecided);
    cJSON *inst = cJSON_CreateObject();
    if (g->kind == RACE_MESSAGE) { /* two sends, then their receives */
        cJSON_AddItemToObject(inst, "sends", events_json(g, 0, 2));
        cJSON_AddItemToObject(inst, "receives", events_json(g, 2, 4));
    } else {
        cJSON_AddItemToObject(inst, "accesses", events_json(g, 0, g->n_events));
    }
    if (g->witness)
        cJSON_AddItemToObject(inst, "witness", witness_json(g));
    if (g->kind == RACE_INCONSISTENT) { /* the rule it violates */
        cJSON *rule = cJSON_AddObjectToObject(o, "rule");
        cJSON_AddStringToObject(rule, "text", g->pattern);
        add_u64(rule, "support", g->rule_support);
        cJSON_AddNumberToObject(rule, "confidence", g->rule_confidence);
    }
    cJSON_AddItemToObject(o, "instance", inst);
    return o;
}

static const char *const baseline_names[] = {NULL, "new", "known"};

static cJSON *group_json(const race_group *g)
{
    cJSON *o = report_group_json(g);
    if (g->baseline != BASELINE_NONE)
        cJSON_AddStringToObject(o, "baseline", baseline_names[g->baseline]);
    if (g->invariant) {
        cJSON *p = cJSON_AddObjectToObject(o, "passing_runs");
        cJSON_AddStringToObject(p, "invariant",
                                invariant_state_name(g->invariant));
        add_u64(p, "executed", g->runs_executed);
        add_u64(p, "interleaved", g->runs_interleaved);
    }
    return o;
}

/* What --suppressions, the filters and --baseline did (docs/report.md). */
static cJSON *selection_json(const report_notes *n)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *sup = cJSON_AddObjectToObject(o, "suppressed");
    cJSON *hid = cJSON_AddObjectToObject(o, "hidden");
    for (int k = 0; k < RACE_KINDS; k++) {
        if (n->suppressed[k])
            add_u64(sup, race_kind_key((race_kind)k), n->suppressed[k]);
        if (n->hidden[k])
            add_u64(hid, race_kind_key((race_kind)k), n->hidden[k]);
    }
    if (n->suppressions) {
        cJSON *s = cJSON_AddObjectToObject(o, "suppressions");
        cJSON_AddStringToObject(s, "file", n->suppressions);
        cJSON *rules = cJSON_AddArrayToObject(s, "rules");
        for (size_t i = 0; i < n->n_rules; i++) {
            cJSON *rule = cJSON_CreateObject();
            cJSON_AddStringToObject(rule, "rule", n->rules[i].text);
            add_u64(rule, "line", n->rules[i].line);
            add_u64(rule, "groups", n->rules[i].groups);
            cJSON_AddItemToArray(rules, rule);
        }
    }
    if (n->baseline) {
        cJSON *b = cJSON_AddObjectToObject(o, "baseline");
        cJSON_AddStringToObject(b, "file", n->baseline);
        add_u64(b, "new", n->new_groups);
        add_u64(b, "known", n->known_groups);
    }
    if (n->invariants) {
        cJSON *v = cJSON_AddObjectToObject(o, "invariants");
        cJSON_AddStringToObject(v, "file", n->invariants);
        add_u64(v, "runs", n->invariant_runs);
        add_u64(v, "min_runs", n->invariant_min_runs);
        add_u64(v, "threshold", n->invariant_threshold);
        cJSON_AddBoolToObject(v, "only_violations",
                              n->only_invariant_violations);
        for (int s = INVARIANT_HOLDS; s <= INVARIANT_UNLEARNT; s++)
            add_u64(v, invariant_state_name((invariant_state)s),
                    n->by_invariant[s]);
        cJSON *d = cJSON_AddObjectToObject(v, "not_shown");
        for (int k = 0; k < RACE_KINDS; k++)
            if (n->not_invariant[k])
                add_u64(d, race_kind_key((race_kind)k), n->not_invariant[k]);
    }
    return o;
}

cJSON *report_correlations_json(const correlation_ref *c, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "node", c[i].node);
        const char *xy[2] = {c[i].x, c[i].y};
        cJSON_AddItemToObject(o, "variables", cJSON_CreateStringArray(xy, 2));
        if (isnan(c[i].distance))
            cJSON_AddNullToObject(o, "distance");
        else
            cJSON_AddNumberToObject(o, "distance", c[i].distance);
        add_u64(o, "support", c[i].support);
        cJSON_AddStringToObject(o, "source", c[i].source);
        if (c[i].rule) { /* MUVI's */
            cJSON *r = cJSON_AddObjectToObject(o, "rule");
            cJSON_AddStringToObject(r, "text", c[i].rule);
            add_u64(r, "support", c[i].rule_support);
            cJSON_AddNumberToObject(r, "confidence", c[i].rule_confidence);
        }
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

int report_correlations_print(const correlation_ref *refs, size_t n, int json,
                              FILE *out)
{
    if (json) {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddItemToObject(root, "correlated_pairs",
                              report_correlations_json(refs, n));
        char *text = cJSON_Print(root);
        if (!text)
            alloc_fail(0, "the JSON list of correlated pairs");
        fprintf(out, "%s\n", text);
        free(text);
        cJSON_Delete(root);
    } else {
        fprintf(out, "%-16s %-24s %-24s %9s %8s  %s\n", "node", "x", "y",
                "distance", "support", "source");
        for (size_t i = 0; i < n; i++) {
            fprintf(out, "%-16s %-24s %-24s ", refs[i].node, refs[i].x,
                    refs[i].y);
            if (isnan(refs[i].distance))
                fprintf(out, "%9s", "-");
            else
                fprintf(out, "%9.2f", refs[i].distance);
            fprintf(out, " %8u  %s", refs[i].support, refs[i].source);
            if (refs[i].rule)
                fprintf(out, "  %s, support %u, confidence %.2f", refs[i].rule,
                        refs[i].rule_support, refs[i].rule_confidence);
            fputc('\n', out);
        }
    }
    return ferror(out) ? -1 : 0;
}

static cJSON *summary_json(const report *r)
{
    const report_summary *s = &r->summary;
    cJSON *o = cJSON_CreateObject();
    add_u64(o, "events", s->events);
    add_u64(o, "events_analyzed", s->events_analyzed);
    cJSON *pr = cJSON_AddObjectToObject(o, "pruned");
    cJSON_AddBoolToObject(pr, "enabled", s->pruned);
    add_u64(pr, "events", s->events - s->events_analyzed);
    add_u64(pr, "accesses", s->pruning.accesses);
    add_u64(pr, "handler_events", s->pruning.handler_events);
    add_u64(pr, "thread_events", s->pruning.thread_events);
    add_u64(pr, "other_events", s->pruning.other_events);
    uint64_t rw = s->by_kind[EV_READ] + s->by_kind[EV_WRITE];
    cJSON_AddNumberToObject(pr, "rw_share_percent",
                            rw ? 100.0 * s->pruning.accesses / rw : 0.0);
    add_u64(o, "files", s->files);
    add_u64(o, "nodes", s->nodes);
    add_u64(o, "threads", s->threads);
    cJSON *kinds = cJSON_AddObjectToObject(o, "events_by_kind");
    for (int k = 1; k <= EV_KIND_MAX; k++)
        if (s->by_kind[k])
            add_u64(kinds, event_kind_name((event_kind)k), s->by_kind[k]);
    cJSON *msg = cJSON_AddObjectToObject(o, "messages");
    add_u64(msg, "matched_receives", s->trace.rcvs_matched);
    add_u64(msg, "unmatched_receives", s->trace.rcvs_unmatched);
    add_u64(msg, "unreceived_sends", s->trace.sends_unreceived);
    add_u64(o, "handlers", s->handlers);
    cJSON *an = cJSON_AddObjectToObject(o, "anomalies");
    add_u64(an, "handlers_without_message", s->trace.handlers_without_message);
    add_u64(an, "handlers_unclosed", s->trace.handlers_unclosed);
    add_u64(an, "handler_ends_ignored", s->trace.handler_ends_ignored);
    add_u64(an, "unlocks_ignored", s->trace.unlocks_ignored);
    add_u64(an, "locks_never_released", s->trace.sections_unreleased);
    add_u64(o, "lock_sections", s->lock_sections);
    cJSON_AddStringToObject(o, "handler_model",
                            s->handlers_model == HANDLERS_NESTED ? "nested"
                                                                 : "floating");
    cJSON *c = cJSON_AddObjectToObject(o, "constraints");
    add_u64(c, "total", s->constraints);
    add_u64(c, "program_order", s->constraints_by_origin.program_order);
    add_u64(c, "thread_sync", s->constraints_by_origin.thread_sync);
    add_u64(c, "messages", s->constraints_by_origin.messages);
    add_u64(c, "locks", s->constraints_by_origin.locks);
    add_u64(c, "wait_notify", s->constraints_by_origin.wait_notify);
    add_u64(c, "implied", s->constraints_by_origin.implied);
    cJSON *cand = cJSON_AddObjectToObject(o, "candidates");
    add_u64(cand, "data", s->candidates[RACE_DATA]);
    add_u64(cand, "message", s->candidates[RACE_MESSAGE]);
    if (s->enabled[RACE_ATOMICITY])
        add_u64(cand, "atomicity", s->candidates[RACE_ATOMICITY]);
    if (s->enabled[RACE_MULTIVAR])
        add_u64(cand, "multi_variable", s->candidates[RACE_MULTIVAR]);
    if (s->enabled[RACE_MVRACE])
        add_u64(cand, "multi_variable_race", s->candidates[RACE_MVRACE]);
    cJSON *inst = cJSON_AddObjectToObject(o, "instances");
    add_u64(inst, "data", s->instances[RACE_DATA]);
    add_u64(inst, "message", s->instances[RACE_MESSAGE]);
    add_u64(inst, "handler", s->instances[RACE_HANDLER]);
    if (s->enabled[RACE_ATOMICITY])
        add_u64(inst, "atomicity", s->instances[RACE_ATOMICITY]);
    if (s->enabled[RACE_MULTIVAR])
        add_u64(inst, "multi_variable", s->instances[RACE_MULTIVAR]);
    if (s->enabled[RACE_MVRACE])
        add_u64(inst, "multi_variable_race", s->instances[RACE_MVRACE]);
    if (s->enabled[RACE_INCONSISTENT])
        add_u64(inst, "inconsistent", s->instances[RACE_INCONSISTENT]);
    if (report_uses_correlations(r))
        cJSON_AddItemToObject(o, "correlated_pairs",
                              report_correlations_json(r->correlations,
                                                       r->n_correlations));
    cJSON *dec = cJSON_AddObjectToObject(o, "decided");
    cJSON_AddStringToObject(dec, "solver", s->solver_all ? "z3" : "auto");
    add_u64(dec, "shortcut_unsat", s->by_shortcut_unsat);
    add_u64(dec, "shortcut_sat", s->by_shortcut_sat);
    add_u64(dec, "z3", s->by_z3);
    add_u64(dec, "not_asked", s->not_asked);
    add_u64(o, "undecided", s->undecided);
    cJSON_AddBoolToObject(o, "partial", s->partial);
    add_u64(o, "warnings", s->trace.warnings);
    add_u64(o, "skipped_events", s->trace.events_skipped);
    add_u64(o, "truncated_files", s->trace.truncated_files);
    /* only when there are some: reports of ordinary runs stay the same */
    if (s->trace.files_skipped)
        add_u64(o, "skipped_files", s->trace.files_skipped);
    if (s->trace.joins_unknown)
        add_u64(o, "joins_of_unknown_threads", s->trace.joins_unknown);
    return o;
}

/* Writes JSON text cleaned for a strict decoder (cJSON copies invalid
 * UTF-8 of the trace as it is; util/text.h), indented by `tabs` more
 * after each line break. */
static void put_json(const char *text, const char *tabs, FILE *out)
{
    size_t replaced;
    char *clean = text_json_clean(text, &replaced);
    for (const char *p = clean, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl) {
            fputs(p, out);
            break;
        }
        fwrite(p, 1, (size_t)(nl - p) + 1, out);
        fputs(tabs, out);
    }
    free(clean);
}

/* The groups of kind k (k = RACE_KINDS: the undecided ones), one at a
 * time: a report of millions of groups as one cJSON tree ran out of
 * memory (issue 15).  The text is what cJSON_Print gives for the array
 * inside the root object, byte for byte. */
static void put_groups(const report *r, int k, FILE *out)
{
    const race_group *g = k == RACE_KINDS ? r->open : r->groups;
    size_t n = k == RACE_KINDS ? r->n_open : r->n_groups, shown = 0;
    fputc('[', out);
    for (size_t i = 0; i < n; i++) {
        if (k != RACE_KINDS && g[i].kind != (race_kind)k)
            continue;
        cJSON *o = group_json(&g[i]);
        if (k == RACE_KINDS)
            cJSON_AddStringToObject(o, "kind", race_kind_key(g[i].kind));
        char *text = cJSON_Print(o);
        fputs(shown++ ? ", " : "", out);
        put_json(text, "\t\t", out);
        free(text);
        cJSON_Delete(o);
    }
    fputc(']', out);
}

void report_print_json(const report *r, const print_options *opts, FILE *out)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format_version", REPORT_FORMAT_VERSION);
    cJSON_AddStringToObject(root, "spider_version", SPIDER_VERSION);
    cJSON_AddItemToObject(root, "summary", summary_json(r));
    if (opts->notes)
        cJSON_AddItemToObject(root, "selection", selection_json(opts->notes));
    /* the group arrays are written one group at a time (put_groups) where
     * these markers (a byte cJSON never writes) stand */
    char marks[RACE_KINDS + 1][3];
    for (int k = 0; k <= RACE_KINDS; k++) {
        snprintf(marks[k], sizeof marks[k], "\001%c", 'A' + k);
        if (k == RACE_KINDS || r->summary.enabled[k]) /* kinds that ran */
            cJSON_AddItemToObject(root, k == RACE_KINDS ? "undecided"
                                  : race_kind_key((race_kind)k),
                                  cJSON_CreateRaw(marks[k]));
    }
    if (opts->timings) {
        cJSON *t = cJSON_AddObjectToObject(root, "timings");
        cJSON_AddNumberToObject(t, "load_s", r->timings.load);
        if (report_uses_correlations(r))
            cJSON_AddNumberToObject(t, "correlate_s", r->timings.correlate);
        cJSON_AddNumberToObject(t, "prune_s", r->timings.prune);
        cJSON_AddNumberToObject(t, "encode_s", r->timings.encode);
        cJSON_AddNumberToObject(t, "solve_s", r->timings.solve);
        cJSON_AddNumberToObject(t, "total_s", r->timings.total);
        add_u64(t, "jobs", r->timings.jobs);
        if (r->timings.shares)
            add_u64(t, "shares", r->timings.shares);
    }
    char *text = cJSON_Print(root);
    for (char *p = text, *mark; *p; p = mark + 2) {
        mark = strchr(p, '\001');
        if (!mark) {
            put_json(p, "", out);
            break;
        }
        *mark = '\0';
        put_json(p, "", out);
        put_groups(r, mark[1] - 'A', out);
    }
    fputc('\n', out);
    free(text);
    cJSON_Delete(root);
}
