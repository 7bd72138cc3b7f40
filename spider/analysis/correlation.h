/*
 * correlation.h — correlated variables (SPEC §4 "Correlated variables"):
 * mined from a trace with Sun's gap distance and MAD outlier filter
 * (seeds/sun-multivariable-thesis.txt §3.5), or given by the user in a
 * file of `NODE X Y` / `* X Y` lines.  The multi-variable analysis
 * (analysis_multivar.c) reads the result.
 *
 * Mining, for two variables x, y of a node each accessed by at least two
 * threads: every thread's accesses to x or y in program order; each
 * adjacent two on different variables give a gap, the difference of
 * their positions in the thread (all its events counted).  With m the
 * median of the node's gaps (an even count: the mean of the middle two)
 * and MAD the median of |g − m|, a gap is kept when |g − m| < 2 · 1.4826
 * · MAD (MAD = 0: when g = m).  distance = the mean of the kept gaps,
 * support = their number; the pair is correlated when support ≥
 * min_support and distance ≤ max_distance.  Mining reads the whole trace,
 * before pruning, so that pruning cannot change which pairs are used.
 *
 * Cost: a pair is worth computing only if one of its gaps is at most
 * max_distance (the kept gaps' mean is at least their least), so a first
 * walk of each thread, keeping its variables in order of last access,
 * looks back at most max_distance positions from each access (time:
 * accesses × max_distance); the second computes each such pair's gaps
 * from the side of its rarer variable, by binary search in the other's
 * accesses of the same thread.  (Every gap of every pair would be
 * accesses × variables: two threads writing 20,000 variables once took
 * over 2 minutes that way, 0.7 s this way.)
 *
 * MUVI (`--correlation=muvi` or `both`; seeds/lu-avio-muvi-thesis.txt
 * §5.3, correlation_muvi.c) mines access rules A1(x) ⇒ A2(y) over the
 * functions of the trace's locations instead (docs/model.md); a pair
 * with a rule that holds, either way, is correlated on every node that
 * has both variables.  Sun's miner, MUVI's and the given pairs add up.
 *
 * Ownership: a correlation owns its pairs and rules arrays; free it with
 * correlation_free().  Pairs name trace objects and strings: they are
 * valid while the trace is.  Allocation failure ends the run
 * (util/alloc.h).
 */
#ifndef SPIDER_CORRELATION_H
#define SPIDER_CORRELATION_H

#include "../spider.h"
#include "correlation_muvi.h"

#include <stdio.h>

enum { CORRELATION_MINED = 1, CORRELATION_GIVEN = 2, CORRELATION_MUVI = 4 };

/* The miners --correlation picks. */
enum { MINER_SUN = 1, MINER_MUVI = 2 };

typedef struct correlated_pair {
    uint32_t x, y;          /* trace objects of one node, name(x) < name(y) */
    double distance;        /* mean of the kept gaps; no gap: NAN */
    uint32_t support;       /* the number of kept gaps */
    uint8_t source;         /* CORRELATION_MINED | _GIVEN | _MUVI */
    int32_t rule;           /* CORRELATION_MUVI: its strongest rule (index
                               into correlation.rules), else -1 */
} correlated_pair;

typedef struct correlation {
    correlated_pair *pairs; /* sorted by (node, name(x), name(y)) */
    size_t n, cap;
    muvi_rule *rules;       /* MUVI's rules that hold (muvi_mine()) */
    size_t n_rules;
} correlation;

typedef struct correlation_options {
    double max_distance;    /* --max-distance, default 5 */
    unsigned min_support;   /* --min-support, default 3 */
    const char *given;      /* --correlated=FILE, or NULL */
    unsigned miners;        /* --correlation: MINER_SUN (default) | MUVI */
    muvi_options muvi;      /* MUVI's thresholds */
} correlation_options;

/* The pairs mined from t, plus those of o->given (read and matched
 * against t's variables).  Returns 0, or -1 with "FILE:LINE: what is
 * wrong" in err when the file cannot be read or a line is bad.  A given
 * line that matches no node's variables is a warning on `warnings` (when
 * not NULL). */
int correlation_find(const trace *t, const correlation_options *o,
                     FILE *warnings, correlation *out, char *err,
                     size_t err_len);

void correlation_free(correlation *c);

/* The pairs as the report shows them (strings copied): an array of c->n
 * the report takes over (report.correlations), or that the caller frees
 * with correlation_refs_free(). */
correlation_ref *correlation_refs(const trace *t, const correlation *c);
void correlation_refs_free(correlation_ref *refs, size_t n);

/* "mined", "given" or "both". */
const char *correlation_source_name(uint8_t source);

#endif
