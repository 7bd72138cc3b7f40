/*
 * suppress.c — --suppressions=FILE (suppress.h).
 */
#include "suppress.h"

#include "../../util/alloc.h"
#include "filter.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* What a line's keyword selects: a kind's locations, or a field. */
enum { ON_VARIABLE = RACE_KINDS, ON_NODE };

typedef struct rule {
    int on;                          /* race_kind, ON_VARIABLE or ON_NODE */
    char *glob;
} rule;

struct suppressions {
    rule *rules;
    suppression_use *uses;           /* by rule: text, line, count */
    size_t n, cap, use_cap;
};

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* The keyword before ':', or -1. */
static int keyword(const char *s, size_t n)
{
    if (n == 8 && strncmp(s, "variable", 8) == 0)
        return ON_VARIABLE;
    if (n == 4 && strncmp(s, "node", 4) == 0)
        return ON_NODE;
    race_kind k = race_kind_by_name(s, n);
    return k == RACE_KINDS ? -1 : (int)k;
}

/* Parses one non-blank, non-comment line; -1 with a message in err. */
static int add_line(suppressions *s, char *text, unsigned line, char *err,
                    size_t err_len)
{
    char *colon = strchr(text, ':');
    int on = colon ? keyword(text, (size_t)(colon - text)) : -1;
    if (on < 0) {
        char names[256];
        kind_names(names, sizeof names);
        snprintf(err, err_len, "%u: '%.60s' is not KIND:PATTERN (KIND one "
                 "of %s, variable, node)", line, text, names);
        return -1;
    }
    char *glob = trim(colon + 1);
    if (!*glob) {
        snprintf(err, err_len, "%u: '%.60s' has no pattern after ':'", line,
                 text);
        return -1;
    }
    ALLOC_GROW(s->rules, s->n + 1, s->cap);
    ALLOC_GROW(s->uses, s->n + 1, s->use_cap);
    s->rules[s->n] = (rule){.on = on, .glob = xstrdup(glob)};
    s->uses[s->n] = (suppression_use){.text = xstrdup(text), .line = line};
    s->n++;
    return 0;
}

suppressions *suppressions_load(const char *path, char *err, size_t err_len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_len, "%s: cannot read the suppressions: %s", path,
                 strerror(errno));
        return NULL;
    }
    suppressions *s = xcalloc(1, sizeof *s);
    char *buf = NULL, why[384];
    size_t cap = 0;
    unsigned line = 0;
    int bad = 0;
    while (!bad && getline(&buf, &cap, f) != -1) {
        char *text = trim(buf);
        line++;
        if (*text && *text != '#' && add_line(s, text, line, why, sizeof why))
            bad = 1;
    }
    if (!bad && ferror(f)) {
        snprintf(why, sizeof why, "%u: read error", line);
        bad = 1;
    }
    free(buf);
    fclose(f);
    if (bad) {
        snprintf(err, err_len, "%s:%s", path, why);
        suppressions_free(s);
        return NULL;
    }
    return s;
}

static int rule_matches(const rule *r, race_kind k, const cJSON *group)
{
    if (r->on == ON_VARIABLE)
        return group_field_matches(group, "variable", r->glob) ||
               group_field_matches(group, "variables", r->glob);
    if (r->on == ON_NODE)
        return group_field_matches(group, "node", r->glob);
    return r->on == (int)k && group_field_matches(group, "locations", r->glob);
}

int suppressions_match(suppressions *s, race_kind k, const cJSON *group)
{
    for (size_t i = 0; i < s->n; i++)
        if (rule_matches(&s->rules[i], k, group)) {
            s->uses[i].groups++;
            return 1;
        }
    return 0;
}

const suppression_use *suppressions_uses(const suppressions *s, size_t *n)
{
    *n = s->n;
    return s->uses;
}

void suppressions_free(suppressions *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->rules[i].glob);
        free((char *)s->uses[i].text);
    }
    free(s->rules);
    free(s->uses);
    free(s);
}
