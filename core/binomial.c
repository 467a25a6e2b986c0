/* The exact binomial test (binomial.h), following scipy.stats.binomtest
 * 1.10 step by step, its search for the far tail included, so that the
 * p-values are the ones a reader checks with scipy.
 *
 * The probabilities are computed in log space: C(1000, 500) is 2.7e299
 * and 0.5^1000 is 9.3e-302, so the product of the factors overflows or
 * underflows long before n = 1000, while the sum of their logs is exact
 * to about 1e-13 relative. lgamma_r, not lgamma: lgamma writes the global
 * signgam, a race when two threads test at once. A tail is a sum of
 * positive terms (never 1 minus the other tail, which loses every digit
 * of a small p-value), added with Neumaier's compensation. */
#define _DEFAULT_SOURCE /* lgamma_r */
#include <math.h>

#include "core/binomial.h"

double es_binomial_pmf(int k, int n, double p)
{
    if (k < 0 || k > n)
        return 0;
    /* The ends, where a log would be of 0. */
    if (p <= 0)
        return k == 0 ? 1 : 0;
    if (p >= 1)
        return k == n ? 1 : 0;
    int sign;
    const double log_choose =
        lgamma_r(n + 1.0, &sign) - lgamma_r(k + 1.0, &sign) - lgamma_r(n - k + 1.0, &sign);
    return exp(log_choose + k * log(p) + (n - k) * log1p(-p));
}

/* The sum of pmf(i) for i in lo..hi (empty: 0), compensated. */
static double pmf_sum(int lo, int hi, int n, double p)
{
    if (lo < 0)
        lo = 0;
    if (hi > n)
        hi = n;
    double sum = 0, comp = 0;
    for (int i = lo; i <= hi; i++) {
        const double term = es_binomial_pmf(i, n, p);
        const double t = sum + term;
        comp += fabs(sum) >= fabs(term) ? (sum - t) + term : (term - t) + sum;
        sum = t;
    }
    return sum + comp;
}

/* scipy's cdf(x) = P(X <= x) and sf(x) = P(X > x). */
static double cdf(double x, int n, double p)
{
    return x < 0 ? 0 : pmf_sum(0, (int)floor(x), n, p);
}

static double sf(double x, int n, double p)
{
    return x < 0 ? 1 : pmf_sum((int)floor(x) + 1, n, n, p);
}

/* scipy's _binary_search_for_binom_tst as written, quirks and all: over
 * lo..hi where a() ascends, the i with a(i) <= d < a(i+1). `sign` is +1 for
 * a = pmf, -1 for a = -pmf. */
static double search(int sign, double d, double lo, double hi, int n, double p)
{
    while (lo < hi) {
        const double mid = lo + floor((hi - lo) / 2);
        const double midval = sign * es_binomial_pmf((int)mid, n, p);
        if (midval < d)
            lo = mid + 1;
        else if (midval > d)
            hi = mid - 1;
        else
            return mid;
    }
    return sign * es_binomial_pmf((int)lo, n, p) <= d ? lo : lo - 1;
}

double es_binomial_p(int k, int n, double p, es_alternative alt)
{
    if (n < 1 || k < 0 || k > n || !(p >= 0 && p <= 1))
        return NAN;
    double pval;
    switch (alt) {
    case ES_ALT_LESS: pval = cdf(k, n, p); break;
    case ES_ALT_GREATER: pval = sf(k - 1, n, p); break;
    case ES_ALT_TWO_SIDED: {
        const double d = es_binomial_pmf(k, n, p);
        const double rerr = 1 + 1e-7;
        if (k == p * n) {
            pval = 1;
        } else if (k < p * n) {
            /* The far tail above the mode: the terms no likelier than k's. */
            const double ix = search(-1, -d * rerr, ceil(p * n), n, n, p);
            const double y = n - ix + (d * rerr == es_binomial_pmf((int)ix, n, p));
            pval = cdf(k, n, p) + sf(n - y, n, p);
        } else {
            const double ix = search(1, d * rerr, 0, floor(p * n), n, p);
            const double y = ix + 1;
            pval = cdf(y - 1, n, p) + sf(k - 1, n, p);
        }
        break;
    }
    default: return NAN;
    }
    /* A sum of rounded terms may pass 1 by an ulp or two. */
    return pval < 0 ? 0 : pval > 1 ? 1 : pval;
}
