/*
 * baseline.h — --baseline=REPORT.json: the groups a previous JSON report
 * already had are "known", the others "new" (docs/report.md).
 *
 * A group's identity is its kind and every naming field its kind has in
 * the JSON report: "locations", "variable" or "variables", and "node" —
 * read from the JSON form (report_group_json()), so a new kind needs no
 * edit here.  Counts, instances and timings are not part of it.
 *
 * Ownership: baseline_load() returns an object freed with baseline_free();
 * group_identity() returns a string the caller frees.
 */
#ifndef SPIDER_BASELINE_H
#define SPIDER_BASELINE_H

#include "../spider.h"

#include <cjson/cJSON.h>

typedef struct baseline baseline;

/* Reads a JSON report spider wrote.  Returns NULL with "PATH: what is
 * wrong" in err when it cannot be read, is not JSON, is not a spider report,
 * or has another major format version than REPORT_FORMAT_VERSION. */
baseline *baseline_load(const char *path, char *err, size_t err_len);

/* Whether the baseline has a group of kind k with this identity. */
int baseline_has(const baseline *b, race_kind k, const cJSON *group);

/* The identity of a group of kind k (its JSON form), as one string. */
char *group_identity(race_kind k, const cJSON *group);

void baseline_free(baseline *b);

#endif
