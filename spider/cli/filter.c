/*
 * filter.c — --kind, --node, --match (filter.h).
 */
#include "filter.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

void kind_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < RACE_KINDS && used < len; k++) {
        char stem[64];
        int n = snprintf(buf + used, len - used, "%s%s", k ? ", " : "",
                         race_kind_stem((race_kind)k, stem, sizeof stem));
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

int filter_parse_kinds(const char *list, unsigned *kinds, char *err,
                       size_t err_len)
{
    unsigned set = 0;
    for (const char *p = list;;) {
        size_t n = strcspn(p, ",");
        race_kind k = race_kind_by_name(p, n);
        if (k == RACE_KINDS) {
            char names[256];
            kind_names(names, sizeof names);
            snprintf(err, err_len, "'%.*s' is not a kind of race (one of: "
                     "%s)", (int)n, p, names);
            return -1;
        }
        set |= 1u << k;
        if (p[n] == '\0')
            break;
        p += n + 1;
    }
    *kinds = set;
    return 0;
}

int group_field_matches(const cJSON *group, const char *name,
                        const char *glob)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(group, name);
    if (cJSON_IsString(f))
        return fnmatch(glob, f->valuestring, 0) == 0;
    if (!cJSON_IsArray(f))
        return 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, f)
        if (cJSON_IsString(item) && fnmatch(glob, item->valuestring, 0) == 0)
            return 1;
    return 0;
}

int filter_keeps(const group_filter *f, race_kind k, const cJSON *group)
{
    if (f->kinds && !(f->kinds & (1u << k)))
        return 0;
    if (f->node && !group_field_matches(group, "node", f->node))
        return 0;
    if (f->match && !group_field_matches(group, "locations", f->match) &&
        !group_field_matches(group, "variable", f->match) &&
        !group_field_matches(group, "variables", f->match))
        return 0;
    return 1;
}
