/*
 * suppress.h — --suppressions=FILE: groups a user has judged harmless,
 * TSan-style lines `KIND:PATTERN` (docs/report.md):
 *
 *   data:GLOB  message:GLOB  handler:GLOB  atomicity:GLOB  (any kind name
 *   race_kind_by_name() takes, e.g. multi-variable:GLOB) — drops a group of
 *   that kind when any of its locations matches the glob (fnmatch);
 *   variable:GLOB — a group whose variable (or one of its variables) matches;
 *   node:GLOB — a group whose node matches;
 *   blank lines and lines starting with '#' are ignored.
 *
 * A group dropped is counted on the first line that matches it (as TSan
 * does), so that a line which never counts is known to be unused.
 *
 * Ownership: suppressions_load() returns an object the caller frees with
 * suppressions_free(); suppressions_uses() points into it.
 */
#ifndef SPIDER_SUPPRESS_H
#define SPIDER_SUPPRESS_H

#include "../spider.h"

#include <cjson/cJSON.h>

typedef struct suppressions suppressions;

/* Reads path.  Returns NULL with "PATH:LINE: what is wrong" (or "PATH:
 * cannot read ...") in err. */
suppressions *suppressions_load(const char *path, char *err, size_t err_len);

/* Whether a line drops the group of kind k (its JSON form); counts it. */
int suppressions_match(suppressions *s, race_kind k, const cJSON *group);

/* The lines, in file order, with what each dropped. */
const suppression_use *suppressions_uses(const suppressions *s, size_t *n);

void suppressions_free(suppressions *s);

#endif
