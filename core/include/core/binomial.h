/* The exact binomial test: how likely k or more (or fewer, or as unlikely)
 * successes of n are when each has probability p. A listening test's
 * answers are judged with it: an ABX subject right k times of n at chance
 * (p = 0.5), a preference against no preference. */
#ifndef ES_CORE_BINOMIAL_H
#define ES_CORE_BINOMIAL_H

typedef enum { ES_ALT_GREATER, ES_ALT_LESS, ES_ALT_TWO_SIDED } es_alternative;

/* The exact binomial test's p-value for k successes of n at probability p,
 * as scipy.stats.binomtest(k, n, p, alternative) computes it (1.10):
 * greater P(X >= k), less P(X <= k), two-sided the sum of the
 * probabilities of every outcome no more likely than k (within scipy's
 * relative tolerance, 1 + 1e-7), at most 1. NaN for n < 1, k outside
 * 0..n or p outside [0, 1]. Accurate for n in the thousands. */
double es_binomial_p(int k, int n, double p, es_alternative alt);

/* P(X = k) for X ~ Binomial(n, p); 0 outside 0..n. */
double es_binomial_pmf(int k, int n, double p);

#endif
