/* "Did you mean": the nearest of some words to a word that matched none
 * (a mistyped option, command, engine or room), as git and cargo offer. */
#ifndef ES_CORE_SUGGEST_H
#define ES_CORE_SUGGEST_H

#include <stddef.h>

typedef struct {
    const char *best;          /* the nearest candidate close enough, or NULL */
    int distance;
} es_suggestion;

/* How far apart two words are, ignoring case: the fewest insertions,
 * deletions, substitutions and swaps of two neighbours that turn one
 * into the other (optimal string alignment). Words past 63 bytes are
 * compared on their first 63. */
int es_word_distance(const char *a, const char *b);

/* Weighs `candidate` for `word`: kept in *s when it is the nearest so far
 * and close enough to be what was meant (a third of the word's length,
 * at least 1, at most 3; or the word is the start of it, of 3 letters or
 * more). Start with *s = (es_suggestion){0}. */
void es_suggest_consider(es_suggestion *s, const char *word, const char *candidate);

/* " (did you mean X?)" in out[n] for a suggestion, or "" for none. */
const char *es_suggest_text(const es_suggestion *s, const char *prefix, char *out, size_t n);

#endif
