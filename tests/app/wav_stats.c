/* wav_stats: a recording's loudest sample and when it sounded.
 *
 *   wav_stats FILE.wav
 *
 * Prints "PEAK FIRST LAST": the largest |sample| over every channel, the
 * time (s) of the first sample above -40 dBFS, and of the last sample that
 * is not exactly 0 (-1 when there is none); then a line with each
 * channel's peak, and the largest difference between channels 1 and 2
 * (0 with one channel); then "gap N AT": the longest run of frames that
 * are exactly 0 on every channel between the first frame that is not and
 * the last (a period a stream lost is one), and where it starts (s).
 * Exit 1 when it cannot read. */
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: wav_stats FILE.wav\n");
        return 2;
    }
    SF_INFO info = {0};
    SNDFILE *sf = sf_open(argv[1], SFM_READ, &info);
    if (!sf) {
        fprintf(stderr, "wav_stats: %s: %s\n", argv[1], sf_strerror(NULL));
        return 1;
    }
    float *frame = malloc((size_t)info.channels * sizeof(float));
    double *each = calloc((size_t)info.channels, sizeof *each);
    double peak = 0, first = -1, last = -1, apart = 0;
    /* The current run of silent frames (after the first sounding one) and
     * the longest that ended in a sounding frame. */
    long long run = 0, gap = 0, gap_at = -1, sounded = 0;
    for (sf_count_t t = 0; frame && sf_readf_float(sf, frame, 1) == 1; t++) {
        int silent = 1;
        for (int c = 0; c < info.channels; c++)
            silent &= frame[c] == 0.0f;
        if (silent && sounded) {
            run++;
        } else if (!silent) {
            if (run > gap) {
                gap = run;
                gap_at = (long long)t - run;
            }
            run = 0;
            sounded = 1;
        }
        for (int c = 0; c < info.channels; c++) {
            const double a = fabs(frame[c]);
            peak = a > peak || a != a ? a : peak;
            if (first < 0 && a > 0.01)
                first = (double)t / info.samplerate;
            if (a != 0)
                last = (double)t / info.samplerate;
            each[c] = a > each[c] ? a : each[c];
            if (c == 1)
                apart = fmax(apart, fabs((double)frame[1] - frame[0]));
        }
    }
    sf_close(sf);
    free(frame);
    printf("%.4f %.4f %.4f\n", peak, first, last);
    for (int c = 0; c < info.channels; c++)
        printf("%.4f ", each[c]);
    printf("%.4f\n", apart);
    printf("gap %lld %.4f\n", gap, gap_at < 0 ? -1.0 : (double)gap_at / info.samplerate);
    free(each);
    return 0;
}
