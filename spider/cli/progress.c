/*
 * progress.c — the progress line (progress.h).
 */
#include "progress.h"

#include "../../util/alloc.h"
#include "../../util/clock.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>

struct progress {
    FILE *out;
    ticker *redraw;
    pthread_mutex_t lock;
    _Atomic int phase;               /* progress_phase */
    uint64_t events;                 /* the phase's (progress_phase_set), under lock */
    uint64_t bytes, total_bytes;     /* bytes: atomic, by the loader */
    run_progress counts;
    double phase_start;              /* under lock */
    uint64_t last_key;               /* what the line counted at its last */
    double last_change;              /* change (draw(), under lock) */
    FILE *held, *held_to;            /* progress_hold() */
    char *held_text;
    size_t held_len;
};

/* A file's size, or the sizes of a directory's regular files (what the
 * loader reads). */
static uint64_t input_size(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    if (!S_ISDIR(st.st_mode))
        return S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    DIR *d = opendir(path);
    uint64_t sum = 0;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", path, de->d_name);
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
            sum += (uint64_t)st.st_size;
    }
    if (d)
        closedir(d);
    return sum;
}

static void human_time(double s, char *buf, size_t len)
{
    if (s < 1)
        snprintf(buf, len, "under 1 s");
    else if (s < 60)
        snprintf(buf, len, "%.0f s", s);
    else if (s < 3600)
        snprintf(buf, len, "%d min %02d s", (int)s / 60, (int)s % 60);
    else
        snprintf(buf, len, "%.1f h", s / 3600);
}

static void human_bytes(uint64_t b, char *buf, size_t len)
{
    if (b < 1000000)
        snprintf(buf, len, "%.1f kB", b / 1e3);
    else
        snprintf(buf, len, "%.1f MB", b / 1e6);
}

/* What the line of the current phase counts (bytes, candidates found or
 * decided, a step's items), with the phase and step: when it stays the
 * same, the line says for how long instead (describe()). */
static uint64_t progress_key(progress *p)
{
    uint64_t phase = (uint64_t)atomic_load(&p->phase), counter = 0, what = 0;
    const char *step = atomic_load(&p->counts.step);
    if (phase == PHASE_LOAD) { /* as shown: 0.1 kB, or 0.1 MB from 1 MB */
        uint64_t b = __atomic_load_n(&p->bytes, __ATOMIC_RELAXED);
        counter = b < 1000000 ? b / 100 : b / 100000;
    } else if (phase == PHASE_SOLVE && step) {
        counter = atomic_load(&p->counts.step_done) ^ (uint64_t)(uintptr_t)step;
        what = 1;
    } else if (phase == PHASE_SOLVE && atomic_load(&p->counts.total) == 0) {
        counter = atomic_load(&p->counts.found);
        what = 2;
    } else if (phase == PHASE_SOLVE) {
        counter = atomic_load(&p->counts.done);
        what = 3;
    }
    return counter << 5 | what << 3 | phase;
}

/* ", none for N s" (into buf) once the count has stood still for a second:
 * a long step (a Z3 call, building the model) still moves the line, so
 * that a user tells a long run from a hung one. */
static void standing(double stalled, const char *what, char *buf, size_t len)
{
    if (stalled >= 1)
        snprintf(buf, len, "%s%.0f s", what, stalled);
    else
        buf[0] = '\0';
}

/* The line of the current phase, into buf: t seconds into the phase, the
 * count unchanged for `stalled` seconds. */
static void describe(progress *p, double t, double stalled, char *buf, size_t len)
{
    int phase = atomic_load(&p->phase);
    char still[48];
    if (phase == PHASE_LOAD) {
        uint64_t b = __atomic_load_n(&p->bytes, __ATOMIC_RELAXED);
        char done[32], total[32];
        human_bytes(b, done, sizeof done);
        human_bytes(p->total_bytes, total, sizeof total);
        standing(stalled, " (none more for ", still, sizeof still);
        if (p->total_bytes && p->total_bytes >= b) /* else a pipe, or grew */
            snprintf(buf, len, "spider: loading %s of %s%s%s", done, total,
                     still, *still ? ")" : "");
        else
            snprintf(buf, len, "spider: loading %s%s%s", done, still,
                     *still ? ")" : "");
        return;
    }
    if (phase == PHASE_CORRELATE || phase == PHASE_MODEL ||
        phase == PHASE_PRUNE) {
        standing(t, " (", still, sizeof still);
        snprintf(buf, len, "spider: %s %llu events%s%s",
                 phase == PHASE_CORRELATE ? "mining correlated variables of"
                 : phase == PHASE_MODEL   ? "building the model of"
                                          : "pruning",
                 (unsigned long long)p->events, still, *still ? ")" : "");
        return;
    }
    uint64_t done = atomic_load(&p->counts.done);
    uint64_t total = atomic_load(&p->counts.total);
    char pruned[48] = ""; /* PHASE_SOLVE's events: those pruning dropped */
    if (p->events)
        snprintf(pruned, sizeof pruned, "%llu events pruned; ",
                 (unsigned long long)p->events);
    const char *step = atomic_load(&p->counts.step);
    if (step) {
        uint64_t sd = atomic_load(&p->counts.step_done);
        uint64_t st = atomic_load(&p->counts.step_total);
        standing(stalled, ", none more for ", still, sizeof still);
        snprintf(buf, len, "spider: %s%s: %llu of %llu (%.0f%%%s)", pruned, step,
                 (unsigned long long)sd, (unsigned long long)st,
                 st ? 100.0 * sd / st : 100.0, still);
        return;
    }
    if (total == 0) { /* the analyses are still generating */
        uint64_t found = atomic_load(&p->counts.found);
        standing(stalled, ", none more for ", still, sizeof still);
        snprintf(buf, len, "spider: %sfinding candidates: %llu so far "
                 "(%.0f/s%s)", pruned, (unsigned long long)found,
                 t > 0 ? found / t : 0, still);
        return;
    }
    double rate = t > 0 ? done / t : 0;
    int n = snprintf(buf, len, "spider: %s%llu of %llu candidates decided "
                     "(%.0f%%, %.0f/s", pruned, (unsigned long long)done,
                     (unsigned long long)total,
                     total ? 100.0 * done / total : 100.0, rate);
    if (n < 0 || (size_t)n >= len)
        return;
    standing(stalled, ", none more for ", still, sizeof still);
    if (*still && done < total) { /* an estimate from the rate would say
                                     "0 s left" while Z3 works for minutes */
        snprintf(buf + n, len - (size_t)n, "%s)", still);
    } else if (rate > 0 && done < total) {
        char left[32];
        human_time((total - done) / rate, left, sizeof left);
        snprintf(buf + n, len - (size_t)n, ", %s left)", left);
    } else {
        snprintf(buf + n, len - (size_t)n, ")");
    }
}

/* Under p->lock. */
static void draw(progress *p)
{
    char line[192];
    double now = clock_seconds();
    uint64_t key = progress_key(p);
    if (key != p->last_key) {
        p->last_key = key;
        p->last_change = now;
    }
    describe(p, now - p->phase_start, now - p->last_change, line, sizeof line);
    fprintf(p->out, "\r\033[K%s", line);
    fflush(p->out);
}

/* The ticker's redraw, every 100 ms (the first line is drawn by
 * progress_start()). */
static void redraw(void *arg)
{
    progress *p = arg;
    pthread_mutex_lock(&p->lock);
    draw(p);
    pthread_mutex_unlock(&p->lock);
}

progress *progress_start(FILE *out, const char *const *paths, size_t n)
{
    progress *p = xcalloc(1, sizeof *p);
    p->out = out;
    for (size_t i = 0; i < n; i++)
        p->total_bytes += input_size(paths[i]);
    atomic_init(&p->phase, PHASE_LOAD);
    atomic_init(&p->counts.done, 0);
    atomic_init(&p->counts.total, 0);
    atomic_init(&p->counts.found, 0);
    atomic_init(&p->counts.step, NULL);
    atomic_init(&p->counts.step_done, 0);
    atomic_init(&p->counts.step_total, 0);
    p->phase_start = p->last_change = clock_seconds();
    pthread_mutex_init(&p->lock, NULL);
    draw(p); /* at once: even a short run shows that it started */
    p->redraw = ticker_start(100, redraw, p);
    if (!p->redraw) {
        pthread_mutex_destroy(&p->lock);
        fputs("\r\033[K", out);
        free(p);
        return NULL;
    }
    return p;
}

uint64_t *progress_bytes(progress *p) { return p ? &p->bytes : NULL; }

run_progress *progress_counts(progress *p) { return p ? &p->counts : NULL; }

void progress_phase_set(progress *p, progress_phase phase, uint64_t events)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->events = events;
    p->phase_start = clock_seconds();
    atomic_store(&p->phase, phase);
    pthread_mutex_unlock(&p->lock);
}

FILE *progress_hold(progress *p, FILE *to)
{
    if (!p || !to || p->held)
        return to;
    p->held = open_memstream(&p->held_text, &p->held_len);
    if (!p->held)
        return to;
    p->held_to = to;
    return p->held;
}

void progress_end(progress **pp)
{
    progress *p = *pp;
    if (!p)
        return;
    *pp = NULL;
    ticker_stop(p->redraw);
    fputs("\r\033[K", p->out); /* the report starts on a clean line */
    fflush(p->out);
    pthread_mutex_destroy(&p->lock);
    if (p->held && fclose(p->held) == 0 && p->held_len)
        fwrite(p->held_text, 1, p->held_len, p->held_to);
    free(p->held_text);
    free(p);
}
