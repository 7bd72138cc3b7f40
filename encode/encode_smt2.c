/*
 * encode_smt2.c — Φ as SMT-LIB2 text (QF_IDL), for --emit-smt2 and for
 * checking our Z3 answers with the z3 command.
 */
#include "encode.h"

#include <assert.h>

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

static void write_clause(const hb_lit *lits, uint32_t n, FILE *out)
{
    fputs(n == 1 ? "(assert " : "(assert (or", out);
    for (uint32_t k = 0; k < n; k++) {
        fputc(' ', out);
        write_lit(&lits[k], out);
    }
    fputs(n == 1 ? ")\n" : "))\n", out);
}

int hb_model_write_smt2(const hb_model *m, const trace *t,
                        const hb_query *query, FILE *out,
                        const volatile sig_atomic_t *stop)
{
    assert(!m->waits_deferred); /* hb_model_add_waits() first */
    fprintf(out, "; happens-before model written by spider\n"
                 "; %u events, %u edges, %llu clauses\n"
                 "(set-logic QF_IDL)\n", m->n_kept, m->n_edges,
            (unsigned long long)m->n_clauses + m->n_lock_clauses);
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
    for (uint32_t i = 0; i <= m->n_clauses; i++) {
        if (i == m->lock_clauses_at) { /* the lock groups' clauses */
            hb_lock_pairs it = {0};
            hb_lit l[2];
            for (uint64_t k = 0; hb_lock_pairs_next(m, &it, l) && !ferror(out);
                 k++) {
                if ((k & 0xffff) == 0 && stop && *stop)
                    return ferror(out) ? -1 : 1;
                write_clause(l, 2, out);
            }
        }
        if (i < m->n_clauses)
            write_clause(&m->lits[m->clauses[i].first], m->clauses[i].n, out);
    }
    if (query)
        hb_query_write_smt2(query, out);
    fputs("(check-sat)\n", out);
    return ferror(out) ? -1 : 0;
}
