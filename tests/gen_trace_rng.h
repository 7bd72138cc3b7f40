/*
 * gen_trace_rng.h — gen-trace's random numbers (gen_trace_rng.c): a
 * xorshift generator whose whole state is one uint64_t, so that the same
 * seed gives the same trace.  Nothing to free.
 */
#ifndef SPIDER_GEN_TRACE_RNG_H
#define SPIDER_GEN_TRACE_RNG_H

#include <stdint.h>

typedef struct rng { uint64_t s; } rng;

/* The next number. */
uint32_t gen_rng_next(rng *r);
/* 1 with probability percent/100 (one draw). */
int gen_rng_chance(rng *r, int percent);
/* next % n, in [0, n) (one draw); 0 for n 0 (no draw). */
uint32_t gen_rng_below(rng *r, uint32_t n);

#endif
