/* The split-complex MAC kernels, written once for any vector width
 * (internal to engines/). Included by cmac_avx2.c and cmac_avx512.c, each
 * compiled for its instruction set, which first define:
 *
 *   V               the vector type (__m256, __m512)
 *   W               floats per vector (8, 16)
 *   LOAD(p)         an aligned load;  STORE(p, v) an aligned store
 *   FMADD(a, b, c)  a * b + c;        FNMADD(a, b, c) c - a * b
 *   CMAC, CMAC_AHEAD  the names of the two kernels defined here
 *
 * Every product takes its two roundings in the same order in both
 * kernels, so a sum does not depend on which one ran or on where a run of
 * partitions was cut. No include guard: each file includes it once. */

#define MAC(ar, ai, xr, xi, hr, hi)  \
    do {                             \
        ar = FMADD(xr, hr, ar);      \
        ar = FNMADD(xi, hi, ar);     \
        ai = FMADD(xr, hi, ai);      \
        ai = FMADD(xi, hr, ai);      \
    } while (0)

/* acc += sum_{q < count} x_q h_q (cmac_kernel.h). Four partitions per
 * pass over the bins: the accumulator is loaded and stored once per four
 * products, which brings the loop close to 2 loads per W complex MACs,
 * the load ports' rate. */
ES_RT void CMAC(float *acc, const float *x, const float *h, int count, int stride)
{
    const size_t step = (size_t)2 * stride;
    int q = 0;
    for (; q + 4 <= count; q += 4) {
        const float *xq = x + q * step, *hq = h + q * step;
        for (int b = 0; b < stride; b += W) {
            V ar = LOAD(acc + b), ai = LOAD(acc + stride + b);
            for (int g = 0; g < 4; g++) {
                const float *xg = xq + g * step, *hg = hq + g * step;
                MAC(ar, ai, LOAD(xg + b), LOAD(xg + stride + b), LOAD(hg + b),
                    LOAD(hg + stride + b));
            }
            STORE(acc + b, ar);
            STORE(acc + stride + b, ai);
        }
    }
    for (; q < count; q++) {
        const float *xq = x + q * step, *hq = h + q * step;
        for (int b = 0; b < stride; b += W) {
            V ar = LOAD(acc + b), ai = LOAD(acc + stride + b);
            MAC(ar, ai, LOAD(xq + b), LOAD(xq + stride + b), LOAD(hq + b),
                LOAD(hq + stride + b));
            STORE(acc + b, ar);
            STORE(acc + stride + b, ai);
        }
    }
}

/* The time-blocked pass (cmac_kernel.h): four ages a group, their x in
 * registers while each sum takes its four products, so every x is read
 * from memory once for all `outs` sums; h_{q+t} for t >= 1 was read a
 * group earlier and comes from the cache. The rest goes one age at a time
 * through CMAC. */
ES_RT void CMAC_AHEAD(float *const *acc, int outs, const float *x, const float *h, int count,
                      int hcount, int stride)
{
    const size_t step = (size_t)2 * stride;
    int q = 0;
    for (; q + 4 <= count && q + 3 + outs - 1 < hcount; q += 4) {
        const float *xq = x + q * step;
        for (int b = 0; b < stride; b += W) {
            V xr[4], xi[4];
            for (int g = 0; g < 4; g++) {
                xr[g] = LOAD(xq + g * step + b);
                xi[g] = LOAD(xq + g * step + stride + b);
            }
            for (int t = 0; t < outs; t++) {
                float *a = acc[t];
                const float *hq = h + (q + t) * step;
                V ar = LOAD(a + b), ai = LOAD(a + stride + b);
                for (int g = 0; g < 4; g++)
                    MAC(ar, ai, xr[g], xi[g], LOAD(hq + g * step + b),
                        LOAD(hq + g * step + stride + b));
                STORE(a + b, ar);
                STORE(a + stride + b, ai);
            }
        }
    }
    for (; q < count; q++)
        for (int t = 0; t < outs && q + t < hcount; t++)
            CMAC(acc[t], x + q * step, h + (q + t) * step, 1, stride);
}

#undef MAC
