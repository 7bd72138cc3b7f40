/*
 * encode_smt2.c — Φ as SMT-LIB2 text (QF_IDL), for --emit-smt2 and for
 * checking our Z3 answers with the z3 command.
 */
#include "encode.h"

static void write_lit(const hb_lit *l, FILE *out)
{
    if (l->kind == LIT_LESS)
        fprintf(out, "(< e%u e%u)", l->a, l->b);
    else if (l->kind == LIT_BOOL)
        fprintf(out, "b%u", l->a);
    else
        fprintf(out, "(not b%u)", l->a);
}

/* SMT-LIB2 comments end at the line's end; keep names on one line. */
static void write_comment_text(const char *s, FILE *out)
{
    for (; *s; s++)
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
}

int hb_model_write_smt2(const hb_model *m, const trace *t,
                        const hb_query *query, FILE *out)
{
    fprintf(out, "; happens-before model written by spider\n"
                 "; %u events, %u edges, %u clauses\n"
                 "(set-logic QF_IDL)\n", m->n_kept, m->n_edges, m->n_clauses);
    char buf[64];
    for (uint32_t e = 0; e < m->n_events; e++) {
        if (!m->kept[e])
            continue;
        const event *ev = &t->events[e];
        fprintf(out, "(declare-const e%u Int) ; %s ", e,
                event_kind_name(ev->kind));
        write_comment_text(t->strings[t->threads[ev->thread].name], out);
        fputc(' ', out);
        write_comment_text(event_location(t, e, buf, sizeof buf), out);
        fputc('\n', out);
    }
    for (uint32_t i = 0; i < m->n_bools; i++)
        fprintf(out, "(declare-const b%u Bool)\n", i);
    for (uint32_t i = 0; i < m->n_edges; i++)
        fprintf(out, "(assert (< e%u e%u))\n", m->edges[i].before,
                m->edges[i].after);
    for (uint32_t i = 0; i < m->n_clauses; i++) {
        const hb_clause *c = &m->clauses[i];
        fputs(c->n == 1 ? "(assert " : "(assert (or", out);
        for (uint32_t k = 0; k < c->n; k++) {
            fputc(' ', out);
            write_lit(&m->lits[c->first + k], out);
        }
        fputs(c->n == 1 ? ")\n" : "))\n", out);
    }
    if (query)
        hb_query_write_smt2(query, out);
    fputs("(check-sat)\n", out);
    return ferror(out) ? -1 : 0;
}
