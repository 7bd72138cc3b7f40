/*
 * correlation_muvi.h — MUVI's access rules (seeds/lu-avio-muvi-thesis.txt
 * §5.3), the second miner of correlated variables (correlation.h,
 * `--correlation=muvi`).
 *
 * A trace's "functions" are the methods of its locations: `a.b.C.m.12`
 * is line 12 of function `a.b.C.m` (a location without a trailing
 * number is a function of its own, at line 0; an access without `loc`
 * belongs to none).  A function's Acc_Set is every (variable name, type,
 * line) its accesses have, on any node.  Two accesses of a function are
 * together when their lines are at most max_lines apart.  A rule
 * A1(x) ⇒ A2(y) (A1, A2 each R, W or A, any access; x ≠ y) has as support
 * the functions where an A1 of x and an A2 of y are together, and as
 * confidence its support over the functions that perform A1(x); it holds
 * when support ≥ min_support, confidence ≥ min_confidence and neither
 * variable is popular (accessed in more than `popular` functions).
 *
 * Ownership: muvi_mine() returns an array the caller frees with free();
 * rules name the trace's strings.  Allocation failure ends the run
 * (util/alloc.h).
 */
#ifndef SPIDER_CORRELATION_MUVI_H
#define SPIDER_CORRELATION_MUVI_H

#include "../../traces/trace.h"

typedef struct muvi_options {
    unsigned min_support;    /* --muvi-min-support, default 3 */
    double min_confidence;   /* --muvi-min-confidence, default 0.8 */
    unsigned max_lines;      /* --muvi-max-lines, default 10 */
    unsigned popular;        /* --muvi-popular, default 100 */
} muvi_options;

enum { MUVI_R, MUVI_W, MUVI_A };

/* A rule A1(from) ⇒ A2(to) that holds: variable names, A1 and A2 MUVI_*. */
typedef struct muvi_rule {
    str_id from, to;
    uint8_t a1, a2;
    uint32_t support;        /* functions where they are together */
    double confidence;       /* support / functions performing A1(from) */
} muvi_rule;

/* The rules of t that hold under o, sorted by (name(from), name(to), a1,
 * a2), into *out; returns how many. */
size_t muvi_mine(const trace *t, const muvi_options *o, muvi_rule **out);

/* The function of each location (by string id; UINT32_MAX for a string
 * that is no access's location), as muvi_mine() reads them; the caller
 * frees the array. */
uint32_t *muvi_functions(const trace *t);

/* "R", "W" or "A". */
const char *muvi_access_name(uint8_t a);

#endif
