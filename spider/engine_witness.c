/* engine_witness.c — placeholder while issue 12's witnesses are written. */
#include "engine.h"

#include "../traces/alloc.h"

struct witness_finder { int unused; };

witness_finder *witness_finder_new(const trace *t, const hb_model *m,
                                   solver_tuning tuning, unsigned timeout_ms)
{
    (void)t; (void)m; (void)tuning; (void)timeout_ms;
    return xcalloc(1, sizeof(witness_finder));
}

int witness_find(witness_finder *w, race_kind kind, const uint32_t *inst,
                 race_group *g, char *err, size_t err_len)
{
    (void)w; (void)kind; (void)inst; (void)g; (void)err; (void)err_len;
    return 1;
}

void witness_finder_free(witness_finder *w)
{
    free(w);
}
