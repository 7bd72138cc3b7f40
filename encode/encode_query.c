/*
 * encode_query.c — building queries (encode.h) and writing them as
 * SMT-LIB2.
 */
#include "encode.h"

static hb_atom atom(hb_atom_kind kind, uint8_t i, uint8_t j)
{
    return (hb_atom){(uint8_t)kind, i, j};
}

hb_query hb_query_simultaneous(uint32_t a, uint32_t b)
{
    return (hb_query){.ev = {a, b}, .n_events = 2, .n_atoms = 1,
                      .atoms = {atom(ATOM_EQUAL, 0, 1)}};
}

hb_query hb_query_before(uint32_t a, uint32_t b)
{
    return (hb_query){.ev = {a, b}, .n_events = 2, .n_atoms = 1,
                      .atoms = {atom(ATOM_LESS, 0, 1)}};
}

hb_query hb_query_between(uint32_t p, uint32_t r, uint32_t c)
{
    return (hb_query){.ev = {p, r, c}, .n_events = 3, .n_atoms = 2,
                      .atoms = {atom(ATOM_LESS, 0, 1), atom(ATOM_LESS, 1, 2)}};
}

hb_query hb_query_outside(uint32_t p, uint32_t r, uint32_t c)
{
    return (hb_query){.ev = {p, r, c}, .n_events = 3, .n_atoms = 2, .any = 1,
                      .atoms = {atom(ATOM_LESS, 1, 0), atom(ATOM_LESS, 2, 1)}};
}

hb_query hb_query_both_between(uint32_t a1, uint32_t a2, uint32_t bx,
                               uint32_t by)
{
    return (hb_query){.ev = {a1, a2, bx, by}, .n_events = 4, .n_atoms = 4,
                      .atoms = {atom(ATOM_LESS, 0, 2), atom(ATOM_LESS, 2, 1),
                                atom(ATOM_LESS, 0, 3), atom(ATOM_LESS, 3, 1)}};
}

hb_query hb_query_not_both_between(uint32_t a1, uint32_t a2, uint32_t bx,
                                   uint32_t by)
{
    return (hb_query){.ev = {a1, a2, bx, by}, .n_events = 4, .n_atoms = 4,
                      .any = 1,
                      .atoms = {atom(ATOM_LESS_EQ, 2, 0), atom(ATOM_LESS_EQ, 1, 2),
                                atom(ATOM_LESS_EQ, 3, 0), atom(ATOM_LESS_EQ, 1, 3)}};
}

void hb_query_write_smt2(const hb_query *q, FILE *out)
{
    static const char *const ops[] = {"<", "<=", "="};
    fputs(q->n_atoms == 1 ? "(assert" : q->any ? "(assert (or" : "(assert (and",
          out);
    for (uint32_t k = 0; k < q->n_atoms; k++)
        fprintf(out, " (%s e%u e%u)", ops[q->atoms[k].kind],
                q->ev[q->atoms[k].i], q->ev[q->atoms[k].j]);
    fputs(q->n_atoms == 1 ? ")\n" : "))\n", out);
}
