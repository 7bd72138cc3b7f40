/*
 * clock.h — the one way every module reads time: seconds on the
 * monotonic clock (timings, deadlines), the end of a timed wait, and a
 * ticker (a thread that calls a function every so many milliseconds: the
 * progress line, the Z3 watcher).  Nothing here fails but
 * ticker_start(), which says so.
 */
#ifndef SPIDER_CLOCK_H
#define SPIDER_CLOCK_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC: differences are elapsed time. */
static inline double clock_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The time on `clock` ms milliseconds from now: the end of a
 * pthread_cond_timedwait on a condition variable of that clock
 * (CLOCK_REALTIME unless set with pthread_condattr_setclock). */
static inline struct timespec clock_after_ms(clockid_t clock, unsigned ms)
{
    struct timespec t;
    clock_gettime(clock, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

/* A thread calling tick(arg) every period_ms milliseconds, the first
 * time one period after ticker_start(), until ticker_stop().  tick runs
 * under no lock of the caller's: it takes what it needs. */
typedef struct ticker ticker;

/* NULL when no thread could be started (nothing is ticked then). */
ticker *ticker_start(unsigned period_ms, void (*tick)(void *), void *arg);
/* Stops and frees t (NULL: nothing): once it returns, tick runs no more. */
void ticker_stop(ticker *t);

#endif
