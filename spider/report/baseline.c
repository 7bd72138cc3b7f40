/*
 * baseline.c — --baseline=REPORT.json (baseline.h).
 */
#include "baseline.h"

#include "../../util/alloc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct baseline {
    char **ids;                      /* sorted identities */
    size_t n;
};

/* The naming fields of a group, in a fixed order. */
static const char *const identity_fields[] = {"locations", "variable",
                                              "variables", "node", NULL};

char *group_identity(race_kind k, const cJSON *group)
{
    cJSON *id = cJSON_CreateArray();
    cJSON_AddItemToArray(id, cJSON_CreateString(race_kind_key(k)));
    for (int i = 0; identity_fields[i]; i++) {
        const cJSON *f =
            cJSON_GetObjectItemCaseSensitive(group, identity_fields[i]);
        cJSON_AddItemToArray(id, f ? cJSON_Duplicate(f, 1) : cJSON_CreateNull());
    }
    char *text = cJSON_PrintUnformatted(id);
    cJSON_Delete(id);
    if (!text)
        alloc_fail(0, "a group identity");
    return text;
}

static int cmp_ids(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The file's text, or NULL with a message. */
static char *read_all(const char *path, char *err, size_t err_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "%s: cannot read the baseline: %s", path,
                 strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    do {
        ALLOC_GROW(buf, n + 65536 + 1, cap);
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, err_len, "%s: read error on the baseline", path);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* Refuses what is not a spider JSON report of our major format version. */
static int check_version(const cJSON *root, const char *path, char *err,
                         size_t err_len)
{
    if (!cJSON_IsObject(root) ||
        !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "summary"))) {
        snprintf(err, err_len, "%s: not a spider JSON report (write one with "
                 "--format=json)", path);
        return -1;
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "format_version");
    const char *want = REPORT_FORMAT_VERSION;
    size_t major = strcspn(want, ".");
    if (!cJSON_IsString(v) || strncmp(v->valuestring, want, major) != 0 ||
        (v->valuestring[major] != '.' && v->valuestring[major] != '\0')) {
        snprintf(err, err_len, "%s: the baseline's report format is %s, this "
                 "spider %s writes %s: write the baseline again with this "
                 "version", path, cJSON_IsString(v) ? v->valuestring
                 : "older (no format_version)", SPIDER_VERSION, want);
        return -1;
    }
    return 0;
}

/* Adds the identities of the groups of one kind's array. */
static int add_kind(baseline *b, size_t *cap, race_kind k, const cJSON *arr,
                    const char *path, char *err, size_t err_len)
{
    if (!arr)
        return 0;        /* the kind did not run then */
    if (!cJSON_IsArray(arr)) {
        snprintf(err, err_len, "%s: \"%s\" is not an array", path,
                 race_kind_key(k));
        return -1;
    }
    const cJSON *g;
    cJSON_ArrayForEach(g, arr) {
        if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(g, "locations"))) {
            snprintf(err, err_len, "%s: a group of \"%s\" has no "
                     "\"locations\"", path, race_kind_key(k));
            return -1;
        }
        ALLOC_GROW(b->ids, b->n + 1, *cap);
        b->ids[b->n++] = group_identity(k, g);
    }
    return 0;
}

baseline *baseline_load(const char *path, char *err, size_t err_len)
{
    char *text = read_all(path, err, err_len);
    if (!text)
        return NULL;
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root) {
        snprintf(err, err_len, "%s: the baseline is not JSON (a report "
                 "written with --format=json)", path);
        return NULL;
    }
    baseline *b = xcalloc(1, sizeof *b);
    size_t cap = 0;
    int rc = check_version(root, path, err, err_len);
    for (int k = 0; k < RACE_KINDS && rc == 0; k++)
        rc = add_kind(b, &cap, (race_kind)k,
                      cJSON_GetObjectItemCaseSensitive(root,
                                                       race_kind_key((race_kind)k)),
                      path, err, err_len);
    cJSON_Delete(root);
    if (rc) {
        baseline_free(b);
        return NULL;
    }
    if (b->n)
        qsort(b->ids, b->n, sizeof *b->ids, cmp_ids);
    return b;
}

int baseline_has(const baseline *b, race_kind k, const cJSON *group)
{
    char *id = group_identity(k, group);
    int found = b->n && bsearch(&id, b->ids, b->n, sizeof *b->ids, cmp_ids);
    free(id);
    return found;
}

void baseline_free(baseline *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n; i++)
        free(b->ids[i]);
    free(b->ids);
    free(b);
}
