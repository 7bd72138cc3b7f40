/*
 * check_smt2.c — cross-checks the solver set-ups against each other.
 *
 *   check-smt2 [--floating] [--queries K] [--seed S] TRACE...
 *
 * Builds Φ for the trace and draws K random queries of every shape the
 * analyses ask (O(a) = O(b), O(a) < O(b), O(p) < O(r) < O(c),
 * O(r) < O(p) ∨ O(c) < O(r), and the multi-variable pair: both of bx, by
 * between a1 and a2, and its negation, over random events).  Each is answered three ways:
 * through the Z3 API with spider's fast set-up, through the Z3 API with
 * Z3's default set-up, and by the z3 command on the SMT-LIB2 text that
 * --emit-smt2 writes (one push/check-sat/pop per query).  The exact
 * shortcuts (spider/engine/engine_shortcut.c) answer them too, and must agree
 * wherever they answer — on shapes no analysis asks yet as well (up to
 * four events, any atoms, "and" or "or").  Prints "N agree" and exits 0
 * when all agree, else names each disagreement and exits 1.
 */
#include "../spider/engine/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rng_state = 88172645463325252ULL;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

/* Any query: 2 to 4 events, 1 to 4 atoms of any kind, "and" or "or". */
static hb_query any_query(uint32_t n_events)
{
    hb_query q = {.n_events = (uint8_t)(2 + rnd(3)), .n_atoms = (uint8_t)(1 + rnd(4)),
                  .any = (uint8_t)rnd(2)};
    for (uint32_t i = 0; i < q.n_events; i++)
        q.ev[i] = rnd(n_events);
    for (uint32_t k = 0; k < q.n_atoms; k++)
        q.atoms[k] = (hb_atom){(uint8_t)rnd(3), (uint8_t)rnd(q.n_events),
                               (uint8_t)rnd(q.n_events)};
    return q;
}

/* A random query of each shape the analyses ask, and any other. */
static hb_query random_query(uint32_t n_events)
{
    uint32_t a = rnd(n_events), b = rnd(n_events), c = rnd(n_events);
    uint32_t d = rnd(n_events);
    switch (rnd(7)) {
    case 0:
        return hb_query_simultaneous(a, b);
    case 1:
        return hb_query_before(a, b);
    case 2:
        return hb_query_between(a, b, c);
    case 3:
        return hb_query_outside(a, b, c);
    case 4:
        return hb_query_both_between(a, b, c, d);
    case 5:
        return hb_query_not_both_between(a, b, c, d);
    default:
        return any_query(n_events);
    }
}

/* Answers of the z3 command, in query order; returns how many it gave. */
static size_t z3_answers(const hb_model *m, const trace *t,
                         const hb_query *q, size_t n, hb_answer *out)
{
    char path[] = "/tmp/spider-check-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    FILE *f = fdopen(fd, "w");
    hb_model_write_smt2(m, t, NULL, f, NULL);
    for (size_t i = 0; i < n; i++) {
        fputs("(push)\n", f);
        hb_query_write_smt2(&q[i], f);
        fputs("(check-sat)\n(pop)\n", f);
    }
    fclose(f);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "z3 -smt2 %s", path);
    FILE *p = popen(cmd, "r");
    char line[64];
    size_t k = 0;
    int first = 1; /* the answer for Φ alone */
    while (p && fgets(line, sizeof line, p)) {
        hb_answer a = strncmp(line, "sat", 3) == 0     ? ANSWER_SAT
                    : strncmp(line, "unsat", 5) == 0 ? ANSWER_UNSAT
                                                     : ANSWER_UNKNOWN;
        if (first) {
            first = 0;
            continue;
        }
        if (k < n)
            out[k++] = a;
    }
    if (p)
        pclose(p);
    unlink(path);
    return k;
}

static hb_query query_at(const void *ctx, size_t i)
{
    return ((const hb_query *)ctx)[i];
}

static const char *name(hb_answer a)
{
    return a == ANSWER_SAT ? "sat" : a == ANSWER_UNSAT ? "unsat" : "unknown";
}

int main(int argc, char **argv)
{
    handler_model hm = HANDLERS_NESTED;
    size_t n = 20;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--floating"))
            hm = HANDLERS_FLOATING;
        else if (!strcmp(argv[i], "--queries") && i + 1 < argc)
            n = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state += (uint64_t)atoll(argv[++i]) * 2654435761ULL;
    }
    if (i >= argc) {
        fputs("usage: check-smt2 [--floating] [--queries K] [--seed S] "
              "TRACE...\n", stderr);
        return 2;
    }
    trace_options o = {.order = ORDER_FILE, .lenient = 1, .warnings = NULL};
    trace *t;
    char err[512];
    if (trace_load((const char *const *)argv + i, (size_t)(argc - i), &o, &t,
                   err, sizeof err) != TRACE_OK) {
        fprintf(stderr, "check-smt2: %s\n", err);
        return 2;
    }
    hb_model *m = hb_model_build(t, NULL, hm);
    hb_model_add_waits(m, t, NULL); /* Z3 and the file read all of Φ */
    hb_query *q = malloc(sizeof *q * (n + 1));
    hb_answer *fast = malloc(sizeof *fast * (n + 1));
    hb_answer *slow = malloc(sizeof *slow * (n + 1));
    hb_answer *cli = malloc(sizeof *cli * (n + 1));
    for (size_t k = 0; k < n; k++)
        q[k] = random_query(t->n_events);
    hb_solver *sf = hb_solver_new(m, &(hb_solver_options){TUNING_FAST, 0, NULL});
    hb_solver *sd = hb_solver_new(m, &(hb_solver_options){TUNING_DEFAULT, 0, NULL});
    int bad = 0;
    if (hb_solver_check_model(sf) != ANSWER_SAT) {
        fprintf(stderr, "check-smt2: the model of an observed run is not "
                "satisfiable\n");
        bad = 1;
    }
    for (size_t k = 0; k < n; k++) {
        fast[k] = hb_solver_check(sf, &q[k]);
        slow[k] = hb_solver_check(sd, &q[k]);
    }
    size_t got = z3_answers(m, t, q, n, cli);
    if (got != n) {
        fprintf(stderr, "check-smt2: z3 gave %zu answers for %zu queries\n",
                got, n);
        bad = 1;
    }
    for (size_t k = 0; k < got; k++)
        if (fast[k] != slow[k] || fast[k] != cli[k] || fast[k] == ANSWER_UNKNOWN) {
            fprintf(stderr, "check-smt2: %s query %zu: fast %s, default %s, "
                    "z3 command %s; the query: ", argv[i], k,
                    name(fast[k]), name(slow[k]), name(cli[k]));
            hb_query_write_smt2(&q[k], stderr);
            bad = 1;
        }
    /* the exact shortcuts: an answer, when they give one, is Z3's */
    hb_answer *cut = malloc(sizeof *cut * (n + 1));
    query_list ql = {query_at, q, n, NULL, NULL};
    shortcut_stats st = {0};
    size_t decided = 0;
    if (shortcut_decide(t, m, &ql, cut, &st) != 0) {
        for (size_t k = 0; k < got; k++) {
            if (cut[k] == ANSWER_UNKNOWN)
                continue;
            decided++;
            if (cut[k] != cli[k]) {
                fprintf(stderr, "check-smt2: %s query %zu: shortcut %s, z3 %s; "
                        "the query: ", argv[i], k, name(cut[k]), name(cli[k]));
                hb_query_write_smt2(&q[k], stderr);
                bad = 1;
            }
        }
    }
    free(cut);
    if (!bad)
        printf("%zu agree (%zu decided by the shortcuts too)\n", n, decided);
    hb_solver_free(sf);
    hb_solver_free(sd);
    free(q);
    free(fast);
    free(slow);
    free(cli);
    hb_model_free(m);
    trace_free(t);
    return bad;
}
