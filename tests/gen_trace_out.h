/*
 * gen_trace_out.h — writing gen-trace's events (gen_trace_out.c): one JSON
 * object an event, in the layout of its node's file, with a loc, the
 * spellings of the knob `spelling`, and the names of variables, locks and
 * conditions (shared by the nodes or not).
 *
 * The files are the sim's (gen_trace_state.h): main opens and closes them.
 * gen_out_name returns one of four static buffers, valid until the fourth
 * call after it: nothing to free.
 */
#ifndef SPIDER_GEN_TRACE_OUT_H
#define SPIDER_GEN_TRACE_OUT_H

#include "gen_trace_state.h"

/* Event types, numbered as the trace format's integer codes. */
enum { CREATE = 1, START, END, JOIN, LOG, R, W, SND, RCV, CLOSE, CONNECT,
       ACCEPT, SHUTDOWN, HANDLERBEGIN, HANDLEREND, LOCK, UNLOCK, WAIT, NOTIFY,
       NOTIFYALL };

/* Kinds of names, for gen_out_name. */
enum { NAME_VAR, NAME_LOCK, NAME_COND };

/* Writes an event of thread `thread` of node `node` to the node's file:
 * the fields fmt gives (each ",\"key\":value"), then a loc (s->force_loc
 * if set, else a random one, or none with the knob no-loc). */
void gen_out_emit(sim *s, int node, int thread, int type, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The name of variable, lock or condition k (kind NAME_*) on node `node`. */
const char *gen_out_name(sim *s, int node, int kind, int k);

#endif
