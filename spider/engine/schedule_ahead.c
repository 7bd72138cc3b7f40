/*
 * schedule_ahead.c — one scheduler run ahead of the caller (see the
 * header for why the answers stay the caller's own).
 */
#include "schedule_ahead.h"

#include "../../util/alloc.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

enum state { IDLE, QUEUED, RUNNING, DONE };

struct schedule_ahead {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pthread_t thread;
    scheduler *twin;
    enum state state;
    int dropped, quit;
    atomic_int cancel;          /* the twin's run ends (dropped, or quit) */
    uint64_t tag;
    hb_query q;
    int found;
    uint64_t steps;             /* what the run cost */
    uint32_t *value;            /* its steps by event */
};

/* The thread: runs each query queued, until told to quit. */
static void *run_ahead(void *arg)
{
    schedule_ahead *a = arg;
    pthread_mutex_lock(&a->lock);
    for (;;) {
        while (a->state != QUEUED && !a->quit)
            pthread_cond_wait(&a->changed, &a->lock);
        if (a->quit)
            break;
        a->state = RUNNING;
        hb_query q = a->q;
        uint32_t *value = a->value; /* swapped only while DONE */
        pthread_mutex_unlock(&a->lock);
        uint64_t before = scheduler_steps(a->twin);
        int found = scheduler_run(a->twin, &q, value);
        pthread_mutex_lock(&a->lock);
        a->found = found;
        a->steps = scheduler_steps(a->twin) - before;
        a->state = a->dropped ? IDLE : DONE;
        pthread_cond_broadcast(&a->changed);
    }
    pthread_mutex_unlock(&a->lock);
    return NULL;
}

schedule_ahead *schedule_ahead_new(const scheduler *s, uint32_t n_events)
{
    schedule_ahead *a = xcalloc(1, sizeof *a);
    pthread_mutex_init(&a->lock, NULL);
    pthread_cond_init(&a->changed, NULL);
    atomic_init(&a->cancel, 0);
    a->twin = scheduler_twin(s, &a->cancel);
    a->value = xmalloc_array((size_t)n_events + 1, sizeof *a->value);
    if (pthread_create(&a->thread, NULL, run_ahead, a) != 0) {
        scheduler_free(a->twin);
        free(a->value);
        pthread_cond_destroy(&a->changed);
        pthread_mutex_destroy(&a->lock);
        free(a);
        return NULL;
    }
    return a;
}

int schedule_ahead_idle(schedule_ahead *a)
{
    pthread_mutex_lock(&a->lock);
    int idle = a->state == IDLE;
    pthread_mutex_unlock(&a->lock);
    return idle;
}

void schedule_ahead_start(schedule_ahead *a, const hb_query *q, uint64_t tag)
{
    pthread_mutex_lock(&a->lock);
    assert(a->state == IDLE);
    a->q = *q;
    a->tag = tag;
    a->dropped = 0;
    atomic_store(&a->cancel, 0);
    a->state = QUEUED;
    pthread_cond_broadcast(&a->changed);
    pthread_mutex_unlock(&a->lock);
}

int schedule_ahead_has(schedule_ahead *a, uint64_t tag)
{
    pthread_mutex_lock(&a->lock);
    int has = a->state != IDLE && !a->dropped && a->tag == tag;
    pthread_mutex_unlock(&a->lock);
    return has;
}

int schedule_ahead_take(schedule_ahead *a, uint32_t **value, uint64_t *spent)
{
    pthread_mutex_lock(&a->lock);
    assert(a->state != IDLE && !a->dropped);
    while (a->state != DONE)
        pthread_cond_wait(&a->changed, &a->lock);
    uint32_t *mine = a->value;
    a->value = *value;
    *value = mine;
    *spent += a->steps;
    a->state = IDLE;
    int found = a->found;
    pthread_mutex_unlock(&a->lock);
    return found;
}

void schedule_ahead_drop(schedule_ahead *a)
{
    pthread_mutex_lock(&a->lock);
    a->dropped = 1;
    atomic_store(&a->cancel, 1);
    if (a->state == QUEUED || a->state == DONE)
        a->state = IDLE;
    pthread_mutex_unlock(&a->lock);
}

void schedule_ahead_free(schedule_ahead *a)
{
    if (!a)
        return;
    pthread_mutex_lock(&a->lock);
    a->quit = 1;
    atomic_store(&a->cancel, 1);
    pthread_cond_broadcast(&a->changed);
    pthread_mutex_unlock(&a->lock);
    pthread_join(a->thread, NULL);
    scheduler_free(a->twin);
    free(a->value);
    pthread_cond_destroy(&a->changed);
    pthread_mutex_destroy(&a->lock);
    free(a);
}
