/*
 * fuzz_load.c — libFuzzer target for the loader and everything that reads
 * its output without a solver: trace_load_buffer (strict and lenient),
 * pruning, the model and its slices.  `make fuzz` runs it.
 */
#include "../encode/encode.h"
#include "../prune/prune.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int lenient = 0; lenient <= 1; lenient++) {
        trace_options o = {.order = size && data[0] & 1 ? ORDER_TIMESTAMP : ORDER_FILE,
                           .lenient = lenient, .warnings = NULL};
        trace *t;
        char err[512];
        if (trace_load_buffer("fuzz.log", (const char *)data, size, &o, &t,
                              err, sizeof err) != TRACE_OK)
            continue;
        for (int hm = 0; hm <= 1; hm++) {
            prune_stats st;
            prune_options po = {.atomicity = hm};
            hb_model *m = hb_model_build(t, NULL, (handler_model)hm);
            uint8_t *keep = prune_trace(t, m, &po, &st);
            if (hb_model_project(m, t, keep) != 0)
                abort(); /* pruning broke its invariant */
            hb_model_add_waits(m, t, NULL); /* the slicer reads them */
            free(hb_model_slices(m));
            hb_model_free(m);
            free(keep);
        }
        trace_free(t);
    }
    return 0;
}
