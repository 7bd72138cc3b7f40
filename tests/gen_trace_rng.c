/*
 * gen_trace_rng.c — gen-trace's random numbers (see gen_trace_rng.h).
 */
#include "gen_trace_rng.h"

uint32_t gen_rng_next(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s >> 11);
}

int gen_rng_chance(rng *r, int percent)
{
    return (int)(gen_rng_next(r) % 100) < percent;
}

uint32_t gen_rng_below(rng *r, uint32_t n) { return n ? gen_rng_next(r) % n : 0; }
