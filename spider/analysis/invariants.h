/*
 * invariants.h — access-interleaving invariants learnt from passing runs
 * (AVIO, seeds/lu-avio-muvi-thesis.txt §4.2.3, §4.3.2; `--learn`,
 * `--invariants`; docs/model.md "Learning from passing runs").
 *
 * A region is a pair of locations, node-independent:
 *   - atomicity: (loc(p), loc(c)), p and c consecutive accesses to a
 *     variable in one context (a thread outside handlers, or one handler);
 *   - multi-variable: (loc(a1), loc(a2)), a1 and a2 consecutive among the
 *     accesses of one context to two correlated variables (correlation.h),
 *     on different ones.
 * A run executes a region when it has such a pair; it interleaves it
 * when, in the run's own order (a node's events as the input lists them),
 * an access of another thread falls between the two unserializably:
 *   - atomicity: an r on the variable with (p, r, c) one of AVIO's four
 *     unserializable patterns RWR, WWR, WRW, RWW (r is a write unless p
 *     and c both are, then a read);
 *   - multi-variable: a bx on a1's variable conflicting with a1 and a by
 *     on a2's conflicting with a2, of one other thread, both between them.
 * The set counts, per region, the runs that executed it and the runs that
 * interleaved it (each run counts once), and the runs learnt from.  A
 * region is an invariant when it was executed in at least min_runs runs
 * and interleaved in at most threshold of them (AVIO's T, which tolerates
 * a failing run labelled as passing).
 *
 * The file (docs/report.md, "Invariants file"): text, a line each;
 * `#` comments and empty lines; first `spider-invariants 1` (the format's
 * version), then `runs N`, then one line per region, tab-separated:
 *     KIND  EXECUTED  INTERLEAVED  LOCATION  LOCATION
 * KIND is `atomicity` or `multi-variable`; in a location `\\`, `\t`, `\n`
 * and `\r` stand for a backslash, tab, line feed and carriage return.
 * spider writes the lines sorted (bytewise by kind, then locations), so
 * that the same runs give the same file however they were batched.
 *
 * Ownership: an invariants set owns its regions; free it with
 * invariants_free().  Allocation failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_INVARIANTS_H
#define SPIDER_INVARIANTS_H

#include "correlation.h"

#include <stdint.h>

typedef enum region_kind { REGION_KIND_ATOMICITY, REGION_KIND_MULTIVAR,
                           REGION_KINDS } region_kind;

typedef struct invariants invariants;

typedef struct invariant_rule {
    uint32_t min_runs;               /* --invariant-min-runs, default 1 */
    uint32_t threshold;              /* --invariant-threshold (T), default 0 */
} invariant_rule;

/* An empty set (no run learnt). */
invariants *invariants_new(void);
void invariants_free(invariants *inv);

/* Adds the regions of the file at path to inv (counts add up, as the
 * runs do).  Returns 0; -1 with "PATH: what is wrong" or "PATH:LINE: what
 * is wrong" in err when it cannot be read, is not an invariants file, is
 * of another version, or a line is bad (inv may then hold part of it). */
int invariants_load(invariants *inv, const char *path, char *err,
                    size_t err_len);

/* Learns one passing run: t, with the correlated pairs c for the
 * multi-variable regions (NULL or empty: none).  Reads the whole trace;
 * checks *stop (when not NULL) between variables and returns 1 when it
 * was set (inv is then unchanged), else 0. */
int invariants_learn(invariants *inv, const trace *t, const correlation *c,
                     const volatile sig_atomic_t *stop);

/* Writes inv to path (through a temporary file beside it, renamed over
 * it).  Returns 0; -1 with "PATH: what is wrong" in err. */
int invariants_save(const invariants *inv, const char *path, char *err,
                    size_t err_len);

uint32_t invariants_runs(const invariants *inv);
/* How many regions of kind k inv holds, and how many of them some run
 * interleaved. */
size_t invariants_count(const invariants *inv, region_kind k,
                        size_t *interleaved);

/* What inv says of region (loc1, loc2) of kind k under rule; its counts
 * (0 when inv never saw it) in *executed and *interleaved. */
invariant_state invariants_judge(const invariants *inv, region_kind k,
                                 const char *loc1, const char *loc2,
                                 const invariant_rule *rule,
                                 uint32_t *executed, uint32_t *interleaved);

#endif
