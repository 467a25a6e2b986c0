/* Interleaving both ways against the plain loop, on every channel count
 * from 1 to 70 (the 8 x 8 register blocks, the channels past a multiple
 * of 8, the scalar tiles) and frame counts 0 to 41 (the last frames past
 * a block), at an offset into the planar buffers: every sample where it
 * belongs, and nothing written outside the frames asked for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interleave.h"
#include "reference.h"

#define MAX_CH 70
#define MAX_FR 41
#define AT 5

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    uint64_t rng = 7;
    static float inter[MAX_CH * (MAX_FR + 1)], back[MAX_CH * (MAX_FR + 1)];
    float *planar[MAX_CH];
    for (int c = 0; c < MAX_CH; c++)
        planar[c] = malloc((AT + MAX_FR + 3) * sizeof(float));
    int wrong = 0, cases = 0;
    for (int ch = 1; ch <= MAX_CH; ch++)
        for (int fr = 0; fr <= MAX_FR; fr++) {
            for (int k = 0; k < ch * fr; k++)
                inter[k] = (float)es_test_uniform(&rng);
            for (int c = 0; c < ch; c++)
                for (int t = 0; t < AT + MAX_FR + 3; t++)
                    planar[c][t] = -7.0f; /* a sentinel outside the frames */
            es_deinterleave(inter, ch, planar, AT, fr);
            for (int c = 0; c < ch; c++)
                for (int t = 0; t < AT + MAX_FR + 3; t++) {
                    const float want = t >= AT && t < AT + fr ? inter[(t - AT) * ch + c] : -7.0f;
                    wrong += planar[c][t] != want;
                }
            back[ch * fr] = 9.0f; /* just past the frames */
            es_interleave((const float *const *)planar, AT, ch, back, fr);
            wrong += memcmp(back, inter, (size_t)(ch * fr) * sizeof(float)) != 0;
            wrong += back[ch * fr] != 9.0f;
            cases++;
        }
    char line[120];
    snprintf(line, sizeof line, "%d channel and frame counts: %d samples or cases wrong", cases,
             wrong);
    es_test_check(wrong == 0, line);
    for (int c = 0; c < MAX_CH; c++)
        free(planar[c]);
    printf("interleave: %s\n", es_test_failures ? "FAIL" : "ok");
    return es_test_failures ? 1 : 0;
}
