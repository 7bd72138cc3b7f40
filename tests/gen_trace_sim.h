/*
 * gen_trace_sim.h — what gen-trace's simulated nodes do (gen_trace_sim.c):
 * threads that fork, join, read and write, take locks, send and receive
 * UDP and TCP messages, handle them and wait/notify, one random step of a
 * random live thread at a time, each event written as it happens
 * (gen_trace_out.h).
 */
#ifndef SPIDER_GEN_TRACE_SIM_H
#define SPIDER_GEN_TRACE_SIM_H

#include "gen_trace_state.h"

/* Runs the nodes of s (s->n_nodes, knobs, seeds and files set) until every
 * thread has ended, the main threads taking `steps` steps between them,
 * and counts what the trace hit in s->hit.  What it allocates stays in s
 * (gen_trace_state.h). */
void gen_sim_run(sim *s, int steps);

#endif
