/*
 * filter.h — narrowing a decided report: --kind, --node, --match.
 *
 * Filters read a group through its JSON form (report_group_json()), so
 * they see every field a kind has ("variable", or "variables" of a
 * multi-variable violation) without knowing the kind.  They change what is
 * shown and the exit status, never what was decided.
 *
 * Ownership: a group_filter borrows its strings (from argv).
 */
#ifndef SPIDER_FILTER_H
#define SPIDER_FILTER_H

#include "../spider.h"

#include <cjson/cJSON.h>

typedef struct group_filter {
    unsigned kinds;                  /* bit 1 << race_kind; 0 = every kind */
    const char *node;                /* glob on the group's node, or NULL */
    const char *match;               /* glob on its locations and variables */
} group_filter;

/* "data,message" (kind names as race_kind_by_name() takes them) as a bit
 * set in *kinds.  Returns -1 with the bad name in err. */
int filter_parse_kinds(const char *list, unsigned *kinds, char *err,
                       size_t err_len);

/* Whether the filter keeps a group of kind k (group: its JSON form). */
int filter_keeps(const group_filter *f, race_kind k, const cJSON *group);

/* Whether the glob matches the group's field `name`: a string, or any
 * string of an array ("locations", "variables").  0 if it has no such
 * field. */
int group_field_matches(const cJSON *group, const char *name,
                        const char *glob);

/* The kind names a user may type, for messages: "data, message, ...". */
void kind_names(char *buf, size_t len);

#endif
