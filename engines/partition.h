/* Default partition size for the partitioned engines (internal). */
#ifndef ES_PARTITION_H
#define ES_PARTITION_H

/* Tinier partitions make the delay line longer than it is worth, and every
 * extra partition adds rounding to the float sums. */
#define ES_MIN_DEFAULT_PARTITION 32

/* FFT sizes whose factors are all 2, 3, 5 or 7 are fast; others can be many
 * times slower (seed 004, table 11.1). */
static inline int es_fft_size_is_smooth(int n)
{
    static const int primes[] = {2, 3, 5, 7};
    for (int p = 0; p < 4; p++)
        while (n % primes[p] == 0)
            n /= primes[p];
    return n == 1;
}

/* The host block when 2 * block is a fast FFT size, so calls of max_block
 * frames are plain UPOLS; else the next power of two; at least 32. */
static inline int es_default_partition(int max_block)
{
    if (max_block < ES_MIN_DEFAULT_PARTITION)
        return ES_MIN_DEFAULT_PARTITION;
    if (es_fft_size_is_smooth(2 * max_block))
        return max_block;
    int p = 1;
    while (p < max_block)
        p <<= 1;
    return p;
}

#endif
