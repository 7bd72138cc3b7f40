/*
 * kinds.c — the names users type and read for a kind of race, derived
 * from each kind's title and JSON key (race_kind_title(),
 * race_kind_key() in report.c), so that a new analysis gets them without
 * an edit here: --kind, suppression keywords, SARIF rules, the totals line.
 */
#include "../spider.h"

#include <ctype.h>
#include <string.h>

static void copy_into(char *buf, size_t len, const char *s, size_t n)
{
    if (len == 0)
        return;
    if (n >= len)
        n = len - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
}

/* The first n bytes of the key, '_' as '-'. */
static void dashed(race_kind k, size_t n, char *buf, size_t len)
{
    copy_into(buf, len, race_kind_key(k), n);
    for (char *p = buf; *p; p++)
        if (*p == '_')
            *p = '-';
}

/* The key without its last word (the plural noun every key ends with),
 * '_' as '-'. */
static void short_stem(race_kind k, char *buf, size_t len)
{
    const char *key = race_kind_key(k);
    const char *last = strrchr(key, '_');
    dashed(k, last ? (size_t)(last - key) : strlen(key), buf, len);
}

/* "data_races" -> "data", "multi_variable_violations" -> "multi-variable":
 * the short stem, unless an earlier kind has it (multi_variable_races ->
 * "multi-variable-races"): then the whole key, so that a name means one
 * kind. */
char *race_kind_stem(race_kind k, char *buf, size_t len)
{
    short_stem(k, buf, len);
    for (int j = 0; j < (int)k; j++) {
        char other[64];
        short_stem((race_kind)j, other, sizeof other);
        if (strcmp(other, buf) == 0) {
            dashed(k, strlen(race_kind_key(k)), buf, len);
            break;
        }
    }
    return buf;
}

/* "Data races" -> "data race" / "data races": titles are plural nouns
 * ending in 's'. */
char *race_kind_noun(race_kind k, uint64_t n, char *buf, size_t len)
{
    const char *title = race_kind_title(k);
    size_t tl = strlen(title);
    if (n == 1 && tl > 1 && title[tl - 1] == 's')
        tl--;
    copy_into(buf, len, title, tl);
    if (buf[0] && !isupper((unsigned char)buf[1]))  /* keep acronyms */
        buf[0] = (char)tolower((unsigned char)buf[0]);
    return buf;
}

race_kind race_kind_by_name(const char *name, size_t len)
{
    for (int k = 0; k < RACE_KINDS; k++) {
        char stem[64];
        const char *key = race_kind_key((race_kind)k);
        race_kind_stem((race_kind)k, stem, sizeof stem);
        if (strlen(key) == len && strncmp(name, key, len) == 0)
            return (race_kind)k;
        if (strlen(stem) != len)
            continue;
        size_t i = 0;   /* the stem, '-' and '_' alike */
        while (i < len && (name[i] == stem[i] ||
                           (name[i] == '_' && stem[i] == '-')))
            i++;
        if (i == len)
            return (race_kind)k;
    }
    return RACE_KINDS;
}
