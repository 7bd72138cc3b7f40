/*
 * report_text.c — the report for people: what was loaded, the race groups
 * with one concrete instance each, and where the time went.
 */
#include "../spider.h"

#include "../../util/alloc.h"
#include "../../util/text.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct style {
    const char *bold, *red, *dim, *off;
} style;

static style style_for(const print_options *o)
{
    if (o->color)
        return (style){"\033[1m", "\033[1;31m", "\033[2m", "\033[0m"};
    return (style){"", "", "", ""};
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

static void print_header(const report *r, const style *st, FILE *out)
{
    const report_summary *s = &r->summary;
    fprintf(out, "%sspider %s%s: %u %s, %u %s, %u %s, %llu events",
            st->bold, SPIDER_VERSION, st->off, s->files,
            plural(s->files, "file", "files"), s->nodes,
            plural(s->nodes, "node", "nodes"), s->threads,
            plural(s->threads, "thread", "threads"),
            (unsigned long long)s->events);
    if (s->events_analyzed != s->events)
        fprintf(out, " (%llu analysed)", (unsigned long long)s->events_analyzed);
    if (s->pruned) {
        uint64_t rw = s->by_kind[EV_READ] + s->by_kind[EV_WRITE];
        fprintf(out, "\n  pruned    %llu events (%.1f%%): %u of %llu R/W (%.1f%%), "
                "%u handler, %u thread, %u other events that order nothing",
                (unsigned long long)(s->events - s->events_analyzed),
                s->events ? 100.0 * (double)(s->events - s->events_analyzed) / (double)s->events : 0.0,
                s->pruning.accesses, (unsigned long long)rw,
                rw ? 100.0 * s->pruning.accesses / (double)rw : 0.0,
                s->pruning.handler_events, s->pruning.thread_events,
                s->pruning.other_events);
    }
    fputs("\n  events    ", out);
    const char *sep = "";
    for (int k = 1; k <= EV_KIND_MAX; k++)
        if (s->by_kind[k]) {
            fprintf(out, "%s%llu %s", sep, (unsigned long long)s->by_kind[k],
                    event_kind_name((event_kind)k));
            sep = ", ";
        }
    fprintf(out, "\n  messages  %u receives matched, %u unmatched, %u sends "
            "never received\n", s->trace.rcvs_matched, s->trace.rcvs_unmatched,
            s->trace.sends_unreceived);
    fprintf(out, "  handlers  %u (%s model)    lock sections  %u\n",
            s->handlers,
            s->handlers_model == HANDLERS_NESTED ? "nested" : "floating",
            s->lock_sections);
    const hb_counts *c = &s->constraints_by_origin;
    fprintf(out, "  model     %llu constraints: %" PRIu64 " program order, "
            "%" PRIu64 " fork/join, %" PRIu64 " messages, %" PRIu64 " locks, "
            "%" PRIu64 " wait/notify, %" PRIu64 " implied\n",
            (unsigned long long)s->constraints, c->program_order,
            c->thread_sync, c->messages, c->locks, c->wait_notify, c->implied);
    if (s->trace.warnings)
        fprintf(out, "  warnings  %u: %u events skipped, %u truncated files, "
                "%u handlers of no message, %u unclosed, %u HANDLEREND and %u "
                "UNLOCK ignored, %u locks never released\n",
                s->trace.warnings, s->trace.events_skipped,
                s->trace.truncated_files, s->trace.handlers_without_message,
                s->trace.handlers_unclosed, s->trace.handler_ends_ignored,
                s->trace.unlocks_ignored, s->trace.sections_unreleased);
    if (s->trace.files_skipped || s->trace.joins_unknown)
        fprintf(out, "            %u files skipped (unreadable, special or "
                "read twice), %u JOINs of threads with no event\n",
                s->trace.files_skipped, s->trace.joins_unknown);
}

/* Names of the trace go through text_safe(): a control character in one
 * would reach the terminal (util/text.h). */
static void print_side(const event_ref *e, const char *role, FILE *out)
{
    text_pool tp = {0};
    fprintf(out, "       %-4s %-28s %s:%u%s\n", e->type,
            text_safe(&tp, e->thread), text_safe(&tp, e->file), e->line, role);
    text_pool_free(&tp);
}

/* Where another event of the context is: "line 12" in the file of the
 * event it explains (printed just above), else "file:12". */
static void print_where(const event_ref *of, const event_ref *e, FILE *out)
{
    if (strcmp(of->file, e->file) == 0) {
        fprintf(out, "line %u", e->line);
        return;
    }
    text_put(out, e->file);
    fprintf(out, ":%u", e->line);
}

/* The handler an event runs in and who sent its message. */
static void print_handler(const event_ref *e, const event_context *c,
                          FILE *out)
{
    fputs("            in the handler", out);
    if (c->message) {
        fputs(" of message ", out);
        text_put(out, c->message);
    } else if (c->sender) {
        fputs(" of a message", out);
    }
    fputs(" (begins at ", out);
    print_where(e, c->handler, out);
    fputc(')', out);
    if (c->sender) {
        fputs(", sent by ", out);
        text_put(out, c->sender->thread);
        fputs(" at ", out);
        print_where(e, c->sender, out);
    } else if (c->message) {
        fputs(", whose send is not in the trace", out);
    }
    fputc('\n', out);
}

/* What ThreadSanitizer says of an access, under it: the locks held, the
 * handler and message it runs in, and where its thread was created. */
static void print_context(const event_ref *e, FILE *out)
{
    const event_context *c = e->context;
    if (!c)
        return;
    if (c->n_locks == 0)
        fputs("            holds no lock\n", out);
    else {
        fputs(c->n_locks == 1 ? "            holds lock " : "            holds locks ", out);
        for (uint32_t i = 0; i < c->n_locks; i++) {
            fputs(i ? ", " : "", out);
            text_put(out, c->locks[i]);
        }
        fputs(c->n_locks > 1 ? " (outermost first)\n" : "\n", out);
    }
    if (c->handler)
        print_handler(e, c, out);
    if (c->created) {
        fputs("            thread created by ", out);
        text_put(out, c->created->thread);
        fputs(" at ", out);
        print_where(e, c->created, out);
        fputc('\n', out);
    }
}

static void print_event(const event_ref *e, const char *role, FILE *out)
{
    print_side(e, role, out);
    print_context(e, out);
}

/* Column widths of a witness timeline. */
typedef struct witness_cols {
    int node, thread, type, object, location;
    const char *file;                /* the one file of every step, or NULL */
} witness_cols;

static int width_of(const char *s, int w)
{
    int n = s ? (int)strlen(s) : 1;
    return n > w ? n : w;
}

static witness_cols witness_columns(const race_group *g, text_pool *tp)
{
    witness_cols c = {0, 0, 0, 0, 0, g->witness[0].event.file};
    for (uint32_t i = 0; i < g->n_witness; i++) {
        const event_ref *e = &g->witness[i].event;
        c.node = width_of(text_safe(tp, e->node), c.node);
        c.thread = width_of(text_safe(tp, e->thread), c.thread);
        c.type = width_of(e->type, c.type);
        c.object = width_of(text_safe(tp, e->object), c.object);
        c.location = width_of(text_safe(tp, e->location), c.location);
        if (c.file && strcmp(c.file, e->file) != 0)
            c.file = NULL;
    }
    return c;
}

/* --witness: the run, one event a line in run order; ">>" marks the
 * instance's events, "waits for step N" the event each waits on. */
static void print_witness(const race_group *g, const style *st, FILE *out)
{
    if (!g->n_witness)
        return;
    text_pool tp = {0};
    witness_cols c = witness_columns(g, &tp);
    fputs("     witness, a run that shows it (>> the instance", out);
    if (c.file)
        fprintf(out, "; line numbers of %s", text_safe(&tp, c.file));
    fputs("):\n", out);
    for (uint32_t i = 0; i < g->n_witness; i++) {
        const witness_step *w = &g->witness[i];
        const event_ref *e = &w->event;
        const char *object = e->object ? text_safe(&tp, e->object) : "-";
        fprintf(out, "       %s%s%s %3u  %-*s  %-*s  %-*s  %-*s  %-*s  ",
                w->role >= 0 ? st->red : "", w->role >= 0 ? ">>" : "  ",
                w->role >= 0 ? st->off : "", w->step, c.node,
                text_safe(&tp, e->node), c.thread, text_safe(&tp, e->thread),
                c.type, e->type, c.object, object, c.location,
                text_safe(&tp, e->location));
        if (c.file)
            fprintf(out, "%u", e->line);
        else
            fprintf(out, "%s:%u", text_safe(&tp, e->file), e->line);
        if (w->peer >= 0 && (uint32_t)w->peer < g->n_witness)
            fprintf(out, "  waits for step %u", g->witness[w->peer].step);
        fputc('\n', out);
    }
    text_pool_free(&tp);
}

/* "A  vs  B", or "P  /  R  /  C". */
static void print_locations(const race_group *g, const style *st, FILE *out)
{
    const char *sep = g->n_locations == 2 ? "  vs  " : "  /  ";
    text_pool tp = {0};
    for (uint32_t i = 0; i < g->n_locations; i++)
        fprintf(out, "%s%s%s%s", i ? sep : "", st->bold,
                text_safe(&tp, g->locations[i]), st->off);
    text_pool_free(&tp);
}

static void print_group(const race_group *g, size_t n, const style *st,
                        FILE *out)
{
    fprintf(out, "  %zu. ", n);
    print_locations(g, st, out);
    fprintf(out, "   %s(%llu%s %s", st->dim, (unsigned long long)g->count,
            g->unchecked ? "+" : "", plural(g->count, "instance", "instances"));
    if (g->ranked)
        fprintf(out, ", gap %u", g->gap);
    fprintf(out, ")%s", st->off);
    if (g->baseline == BASELINE_NEW)
        fprintf(out, " %s[new]%s", st->red, st->off);
    else if (g->baseline == BASELINE_KNOWN)
        fprintf(out, " %s[known]%s", st->dim, st->off);
    fputc('\n', out);
    if (g->invariant) {
        char said[160];
        fprintf(out, "     %s%s%s\n",
                g->invariant == INVARIANT_HOLDS ? st->red : st->dim,
                race_group_invariant_text(g, said, sizeof said), st->off);
    }
    text_pool tp = {0};
    const char *node = text_safe(&tp, g->node), *var = text_safe(&tp, g->variable);
    if (g->kind == RACE_MESSAGE) {
        fprintf(out, "     messages received by %s on node %s; e.g.\n",
                text_safe(&tp, g->events[2].thread), node);
        print_event(&g->events[0], "", out);
        print_event(&g->events[1], "", out);
        fprintf(out, "     received at %s:%u and %s:%u\n",
                text_safe(&tp, g->events[2].file), g->events[2].line,
                text_safe(&tp, g->events[3].file), g->events[3].line);
    } else if (g->kind == RACE_ATOMICITY) {
        fprintf(out, "     %s on variable %s of node %s: the %s of %s can fall "
                "between the %s and the %s of %s; e.g.\n", g->pattern,
                var, node, g->events[1].type, text_safe(&tp, g->events[1].thread),
                g->events[0].type, g->events[2].type,
                text_safe(&tp, g->events[0].thread));
        static const char *const roles[3] = {"   (p)", "   (r)", "   (c)"};
        for (uint32_t i = 0; i < 3; i++)
            print_event(&g->events[i], roles[i], out);
    } else if (g->kind == RACE_MULTIVAR) {
        fprintf(out, "     %s on correlated variables x = %s, y = %s of node "
                "%s: the %s x and %s y of %s can both fall between the %s x "
                "and the %s y of %s; e.g.\n", g->pattern, var,
                text_safe(&tp, g->variable_y), node, g->events[2].type,
                g->events[3].type, text_safe(&tp, g->events[2].thread),
                g->events[0].type, g->events[1].type,
                text_safe(&tp, g->events[0].thread));
        static const char *const roles[4] = {"   (a1)", "   (a2)", "   (bx)",
                                             "   (by)"};
        /* as the bad run goes: a1, the remote two in their order, a2 */
        int bx_first = g->events[2].index < g->events[3].index;
        const uint32_t order[4] = {0, bx_first ? 2 : 3, bx_first ? 3 : 2, 1};
        for (uint32_t i = 0; i < 4; i++)
            print_event(&g->events[order[i]], roles[order[i]], out);
    } else if (g->kind == RACE_MVRACE) {
        fprintf(out, "     %s on correlated variables x = %s, y = %s of node "
                "%s: the %s of %c by %s can fall between the %s x and the %s "
                "y of %s; e.g.\n", g->pattern, var,
                text_safe(&tp, g->variable_y), node, g->events[1].type,
                g->pattern[strlen(g->pattern) - 1], /* r's variable */
                text_safe(&tp, g->events[1].thread), g->events[0].type,
                g->events[2].type, text_safe(&tp, g->events[0].thread));
        static const char *const roles[3] = {"   (p)", "   (r)", "   (c)"};
        for (uint32_t i = 0; i < 3; i++)
            print_event(&g->events[i], roles[i], out);
    } else if (g->kind == RACE_INCONSISTENT) {
        fprintf(out, "     %s holds for x = %s, y = %s (support %u, confidence "
                "%.2f), but this write of x is in a function that never "
                "accesses y (the second event: y beside a write of x); e.g.\n",
                g->pattern, var, text_safe(&tp, g->variable_y), g->rule_support,
                g->rule_confidence);
        static const char *const roles[2] = {"   (w)", "   (y)"};
        for (uint32_t i = 0; i < 2; i++)
            print_event(&g->events[i], roles[i], out);
    } else {
        fprintf(out, "     variable %s on node %s; e.g.\n", var, node);
        for (uint32_t i = 0; i < g->n_events; i++)
            print_event(&g->events[i], "", out);
    }
    text_pool_free(&tp);
    print_witness(g, st, out);
}

/* Atomicity violations read best by CTrigger's rank: smallest gap first. */
static int by_gap(const void *x, const void *y)
{
    const race_group *a = *(const race_group *const *)x;
    const race_group *b = *(const race_group *const *)y;
    if (a->gap != b->gap)
        return a->gap < b->gap ? -1 : 1;
    return a < b ? -1 : a > b; /* then the report's order (locations) */
}

/* Inconsistent updates read best as MUVI ranks them: a W(x) => W(y)
 * rule first, then the higher confidence, then support. */
static int by_rule(const void *x, const void *y)
{
    const race_group *a = *(const race_group *const *)x;
    const race_group *b = *(const race_group *const *)y;
    int wa = strstr(a->pattern, "W(y)") != NULL, wb = strstr(b->pattern, "W(y)") != NULL;
    if (wa != wb)
        return wa ? -1 : 1;
    if (a->rule_confidence != b->rule_confidence)
        return a->rule_confidence > b->rule_confidence ? -1 : 1;
    if (a->rule_support != b->rule_support)
        return a->rule_support > b->rule_support ? -1 : 1;
    return a < b ? -1 : a > b;
}

static void print_groups(const report *r, race_kind k, const style *st,
                         unsigned limit, FILE *out)
{
    const race_group **shown = xmalloc_array(r->n_by_kind[k] + 1, sizeof *shown);
    size_t n = 0;
    for (size_t i = 0; i < r->n_groups; i++)
        if (r->groups[i].kind == k)
            shown[n++] = &r->groups[i];
    if (n && shown[0]->ranked)
        qsort(shown, n, sizeof *shown, by_gap);
    else if (n && k == RACE_INCONSISTENT)
        qsort(shown, n, sizeof *shown, by_rule);
    size_t upto = limit && limit < n ? limit : n;
    for (size_t i = 0; i < upto; i++)
        print_group(shown[i], i + 1, st, out);
    if (upto < n)
        fprintf(out, "  \u2026 and %zu more (--limit=%u)\n", n - upto, limit);
    free(shown);
}

/* ", 2 suppressed, 5 hidden": what selection took out of a kind. */
static void print_dropped(const report_notes *notes, race_kind k, FILE *out)
{
    if (notes && notes->suppressed[k])
        fprintf(out, ", %llu suppressed",
                (unsigned long long)notes->suppressed[k]);
    if (notes && notes->hidden[k])
        fprintf(out, ", %llu hidden by filters",
                (unsigned long long)notes->hidden[k]);
    if (notes && notes->not_invariant[k])
        fprintf(out, ", %llu that violate no invariant not shown",
                (unsigned long long)notes->not_invariant[k]);
}

static void print_kind(const report *r, race_kind k, const style *st,
                       const print_options *o, FILE *out)
{
    const report_summary *s = &r->summary;
    size_t n = r->n_by_kind[k];
    fprintf(out, "\n%s%s%s: ", n ? st->red : st->bold, race_kind_title(k),
            st->off);
    if (n == 0 && (k == RACE_HANDLER || k == RACE_INCONSISTENT))
        fprintf(out, "none");
    else if (n == 0)
        fprintf(out, "none (%llu candidates checked)",
                (unsigned long long)s->candidates[k]);
    else if (k == RACE_HANDLER)
        fprintf(out, "%zu (%llu %s from racing messages)", n,
                (unsigned long long)s->instances[k],
                plural(s->instances[k], "instance", "instances"));
    else if (k == RACE_INCONSISTENT)
        fprintf(out, "%zu (%llu %s of x without y)", n,
                (unsigned long long)s->instances[k],
                plural(s->instances[k], "write", "writes"));
    else
        fprintf(out, "%zu (%llu of %llu candidates %s)", n,
                (unsigned long long)s->instances[k],
                (unsigned long long)s->candidates[k],
                k == RACE_ATOMICITY || k == RACE_MULTIVAR ? "hold" : "race");
    print_dropped(o->notes, k, out);
    fputc('\n', out);
    print_groups(r, k, st, o->limit, out);
}

static int kind_shown(const report *r, const print_options *o, int k)
{
    return r->summary.enabled[k] &&
           (!o->notes || !o->notes->kinds || (o->notes->kinds & (1u << k)));
}

/* The opening line: "27 data races, 338 message races, 4 handler races in
 * 369 groups; 0 undecided", with what selection did. */
static void print_totals(const report *r, const print_options *o,
                         const style *st, FILE *out)
{
    const report_notes *notes = o->notes;
    const char *sep = "";
    uint64_t suppressed = 0, hidden = 0;
    fputs(st->bold, out);
    for (int k = 0; k < RACE_KINDS; k++) {
        char noun[96];
        if (notes) {
            suppressed += notes->suppressed[k];
            hidden += notes->hidden[k];
        }
        if (!kind_shown(r, o, k))
            continue;
        fprintf(out, "%s%zu %s", sep, r->n_by_kind[k],
                race_kind_noun((race_kind)k, r->n_by_kind[k], noun,
                               sizeof noun));
        sep = ", ";
    }
    fprintf(out, " in %zu %s", r->n_groups,
            plural(r->n_groups, "group", "groups"));
    if (notes && notes->baseline)
        fprintf(out, " (%llu new, %llu known)",
                (unsigned long long)notes->new_groups,
                (unsigned long long)notes->known_groups);
    if (notes && notes->invariants)
        fprintf(out, " (%llu violating invariants, %llu seen in passing runs, "
                "%llu not learnt)",
                (unsigned long long)notes->by_invariant[INVARIANT_HOLDS],
                (unsigned long long)notes->by_invariant[INVARIANT_SEEN],
                (unsigned long long)notes->by_invariant[INVARIANT_UNLEARNT]);
    fprintf(out, "; %llu undecided", (unsigned long long)r->summary.undecided);
    if (suppressed)
        fprintf(out, "; %llu suppressed", (unsigned long long)suppressed);
    if (hidden)
        fprintf(out, "; %llu hidden by filters", (unsigned long long)hidden);
    fprintf(out, "%s\n", st->off);
}

/* What --invariants read and the rule it applied. */
static void print_invariants(const report_notes *n, FILE *out)
{
    uint64_t dropped = 0;
    for (int k = 0; k < RACE_KINDS; k++)
        dropped += n->not_invariant[k];
    fputs("\nInvariants (", out);
    text_put(out, n->invariants);
    fprintf(out, "): learnt from %u passing %s; a region is an invariant "
            "when executed in at least %u and interleaved in at most %u of "
            "them", n->invariant_runs, plural(n->invariant_runs, "run", "runs"),
            n->invariant_min_runs, n->invariant_threshold);
    if (n->only_invariant_violations)
        fprintf(out, "; %llu %s that violate none not shown "
                "(--only-invariant-violations)", (unsigned long long)dropped,
                plural(dropped, "group", "groups"));
    fputc('\n', out);
}

/* TSan's "used suppressions": what each line dropped, and the lines that
 * matched nothing (stale ones, or mistyped). */
static void print_suppressions(const report_notes *n, FILE *out)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n->n_rules; i++)
        total += n->rules[i].groups;
    fprintf(out, "\nSuppressions (%s): %llu %s suppressed\n", n->suppressions,
            (unsigned long long)total, plural(total, "group", "groups"));
    for (size_t i = 0; i < n->n_rules; i++) {
        const suppression_use *u = &n->rules[i];
        if (u->groups)
            fprintf(out, "  line %-4u %-40s %llu %s\n", u->line, u->text,
                    (unsigned long long)u->groups,
                    plural(u->groups, "group", "groups"));
        else
            fprintf(out, "  line %-4u %-40s matched nothing\n", u->line,
                    u->text);
    }
}

/* The correlated pairs --multi-variable and --multi-variable-races used;
 * the first few. */
static void print_correlations(const report *r, FILE *out)
{
    enum { SHOWN = 10 };
    int atomicity = r->summary.enabled[RACE_MULTIVAR],
        races = r->summary.enabled[RACE_MVRACE];
    fprintf(out, "  correlated %zu %s of variables (%s%s%s)%s\n",
            r->n_correlations, plural(r->n_correlations, "pair", "pairs"),
            atomicity ? "--multi-variable" : "", atomicity && races ? ", " : "",
            races ? "--multi-variable-races" : "",
            r->n_correlations ? ":" : "");
    for (size_t i = 0; i < r->n_correlations && i < SHOWN; i++) {
        const correlation_ref *c = &r->correlations[i];
        fprintf(out, "            %s: %s, %s  ", c->node, c->x, c->y);
        if (isnan(c->distance))
            fputs("no gap", out);
        else
            fprintf(out, "distance %.2f", c->distance);
        fprintf(out, ", support %u, %s", c->support, c->source);
        if (c->rule)
            fprintf(out, "; %s (support %u, confidence %.2f)", c->rule,
                    c->rule_support, c->rule_confidence);
        fputc('\n', out);
    }
    if (r->n_correlations > SHOWN)
        fprintf(out, "            \u2026 and %zu more (--list-correlations "
                "lists them)\n", r->n_correlations - SHOWN);
}

/* "correlate 0.012 s, " with --multi-variable, else "". */
static const char *correlate_time(const report *r, char *buf, size_t len)
{
    buf[0] = '\0';
    if (report_uses_correlations(r))
        snprintf(buf, len, "correlate %.3f s, ", r->timings.correlate);
    return buf;
}

void report_print_text(const report *r, const print_options *o, FILE *out)
{
    char corr[48];
    style st = style_for(o);
    if (!o->quiet) {
        print_totals(r, o, &st, out);
        print_header(r, &st, out);
        if (report_uses_correlations(r))
            print_correlations(r, out);
    }
    for (int k = 0; k < RACE_KINDS; k++)
        if (kind_shown(r, o, k) && (!o->quiet || r->n_by_kind[k]))
            print_kind(r, (race_kind)k, &st, o, out);
    if (o->quiet)
        return;
    if (o->notes && o->notes->suppressions)
        print_suppressions(o->notes, out);
    if (o->notes && o->notes->invariants)
        print_invariants(o->notes, out);
    if (r->summary.not_asked)
        fprintf(out, "\nN+ instances: %llu more candidates of groups already "
                "proven racy were not checked (--all-instances checks them)\n",
                (unsigned long long)r->summary.not_asked);
    if (r->summary.trace.interrupted)
        fprintf(out, "\n%sInterrupted%s: results are PARTIAL (stopped while "
                "loading: only the events read were analysed)\n", st.red,
                st.off);
    else if (r->summary.partial && !r->summary.undecided)
        fprintf(out, "\n%sInterrupted%s: results are PARTIAL (stopped before "
                "every candidate was made or counted)\n", st.red, st.off);
    if (r->summary.undecided) {
        fprintf(out, "\n%sUndecided%s: %llu candidates %s; race groups that "
                "may exist:\n", st.red, st.off,
                (unsigned long long)r->summary.undecided,
                r->summary.partial ? "(interrupted: results are PARTIAL)"
                                   : "(solver timeout, see --timeout-ms)");
        for (size_t i = 0; i < r->n_open; i++) {
            fprintf(out, "  %s: ", race_kind_title(r->open[i].kind));
            print_locations(&r->open[i], &st, out);
            fprintf(out, "   (%llu undecided)\n",
                    (unsigned long long)r->open[i].undecided);
        }
    }
    if (o->timings)
        fprintf(out, "\nTime: load %.3f s, %sprune %.3f s, encode %.3f s, solve "
                "%.3f s (%u %s), total %.3f s", r->timings.load,
                correlate_time(r, corr, sizeof corr),
                r->timings.prune, r->timings.encode,
                r->timings.solve, r->timings.jobs,
                plural(r->timings.jobs, "worker", "workers"), r->timings.total);
    if (o->timings && r->timings.shares)
        fprintf(out, "; each of %u ranks held its share of the trace",
                r->timings.shares);
    if (o->timings)
        fputc('\n', out);
}
