/*
 * report_text.c — the report for people: what was loaded, the race groups
 * with one concrete instance each, and where the time went.
 */
#include "spider.h"

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
    fprintf(out, "  model     %llu constraints: %u program order, %u "
            "fork/join, %u messages, %u locks, %u wait/notify\n",
            (unsigned long long)s->constraints, c->program_order,
            c->thread_sync, c->messages, c->locks, c->wait_notify);
    if (s->trace.warnings)
        fprintf(out, "  warnings  %u: %u events skipped, %u truncated files, "
                "%u handlers of no message, %u unclosed, %u HANDLEREND and %u "
                "UNLOCK ignored, %u locks never released\n",
                s->trace.warnings, s->trace.events_skipped,
                s->trace.truncated_files, s->trace.handlers_without_message,
                s->trace.handlers_unclosed, s->trace.handler_ends_ignored,
                s->trace.unlocks_ignored, s->trace.sections_unreleased);
}

static void print_side(const event_ref *e, FILE *out)
{
    fprintf(out, "       %-4s %-28s %s:%u\n", e->type, e->thread, e->file,
            e->line);
}

static void print_group(const race_group *g, size_t n, const style *st,
                        FILE *out)
{
    fprintf(out, "  %zu. %s%s%s  vs  %s%s%s   %s(%llu%s %s)%s\n", n, st->bold,
            g->locations[0], st->off, st->bold, g->locations[1], st->off,
            st->dim, (unsigned long long)g->count, g->unchecked ? "+" : "",
            plural(g->count, "instance", "instances"), st->off);
    if (g->kind == RACE_MESSAGE) {
        fprintf(out, "     messages received by %s on node %s; e.g.\n",
                g->first_rcv.thread, g->node);
        print_side(&g->first, out);
        print_side(&g->second, out);
        fprintf(out, "     received at %s:%u and %s:%u\n",
                g->first_rcv.file, g->first_rcv.line, g->second_rcv.file,
                g->second_rcv.line);
    } else {
        fprintf(out, "     variable %s on node %s; e.g.\n", g->variable,
                g->node);
        print_side(&g->first, out);
        print_side(&g->second, out);
    }
}

static void print_kind(const report *r, race_kind k, const style *st,
                       FILE *out)
{
    const report_summary *s = &r->summary;
    size_t n = r->n_by_kind[k];
    fprintf(out, "\n%s%s%s: ", n ? st->red : st->bold, race_kind_title(k),
            st->off);
    if (n == 0 && k == RACE_HANDLER)
        fprintf(out, "none\n");
    else if (n == 0)
        fprintf(out, "none (%llu candidates checked)\n",
                (unsigned long long)s->candidates[k]);
    else if (k == RACE_HANDLER)
        fprintf(out, "%zu (%llu %s from racing messages)\n", n,
                (unsigned long long)s->instances[k],
                plural(s->instances[k], "instance", "instances"));
    else
        fprintf(out, "%zu (%llu of %llu candidates race)\n", n,
                (unsigned long long)s->instances[k],
                (unsigned long long)s->candidates[k]);
    size_t shown = 0;
    for (size_t i = 0; i < r->n_groups; i++)
        if (r->groups[i].kind == k)
            print_group(&r->groups[i], ++shown, st, out);
}

void report_print_text(const report *r, const print_options *o, FILE *out)
{
    style st = style_for(o);
    if (!o->quiet)
        print_header(r, &st, out);
    for (int k = 0; k < RACE_KINDS; k++)
        if (!o->quiet || r->n_by_kind[k])
            print_kind(r, (race_kind)k, &st, out);
    if (o->quiet)
        return;
    if (r->summary.not_asked)
        fprintf(out, "\nN+ instances: %llu more candidates of groups already "
                "proven racy were not checked (--all-instances checks them)\n",
                (unsigned long long)r->summary.not_asked);
    if (r->summary.undecided) {
        fprintf(out, "\n%sUndecided%s: %llu candidates %s; race groups that "
                "may exist:\n", st.red, st.off,
                (unsigned long long)r->summary.undecided,
                r->summary.partial ? "(interrupted: results are PARTIAL)"
                                   : "(solver timeout, see --timeout-ms)");
        for (size_t i = 0; i < r->n_open; i++)
            fprintf(out, "  %s: %s  vs  %s   (%llu undecided)\n",
                    race_kind_title(r->open[i].kind), r->open[i].locations[0],
                    r->open[i].locations[1],
                    (unsigned long long)r->open[i].undecided);
    }
    if (o->timings)
        fprintf(out, "\nTime: load %.3f s, prune %.3f s, encode %.3f s, solve "
                "%.3f s (%u %s), total %.3f s\n", r->timings.load,
                r->timings.prune, r->timings.encode,
                r->timings.solve, r->timings.jobs,
                plural(r->timings.jobs, "worker", "workers"), r->timings.total);
}
