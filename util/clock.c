/*
 * clock.c — the ticker of clock.h.
 */
#include "clock.h"

#include "alloc.h"

#include <pthread.h>

struct ticker {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;     /* CLOCK_MONOTONIC: a clock change is no tick */
    int stopping;            /* under lock */
    unsigned period_ms;
    void (*tick)(void *);
    void *arg;
};

static void *run(void *arg)
{
    ticker *t = arg;
    pthread_mutex_lock(&t->lock);
    while (!t->stopping) {
        struct timespec until = clock_after_ms(CLOCK_MONOTONIC, t->period_ms);
        while (!t->stopping &&
               pthread_cond_timedwait(&t->wake, &t->lock, &until) == 0)
            ; /* woken early, not stopped: wait out the period */
        if (t->stopping)
            break;
        pthread_mutex_unlock(&t->lock); /* tick takes its own locks */
        t->tick(t->arg);
        pthread_mutex_lock(&t->lock);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

ticker *ticker_start(unsigned period_ms, void (*tick)(void *), void *arg)
{
    ticker *t = xcalloc(1, sizeof *t);
    *t = (ticker){.period_ms = period_ms, .tick = tick, .arg = arg};
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0) {
        free(t);
        return NULL;
    }
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (pthread_create(&t->thread, NULL, run, t) != 0) {
        pthread_cond_destroy(&t->wake);
        pthread_mutex_destroy(&t->lock);
        free(t);
        return NULL;
    }
    return t;
}

void ticker_stop(ticker *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->lock);
    t->stopping = 1;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->thread, NULL);
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->lock);
    free(t);
}
