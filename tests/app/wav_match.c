/* wav_match: finds where a reference (a render) sits in a recording and
 * how closely the recording follows it there, sample by sample.
 *
 *   wav_match REC.wav REF.wav MAXLAG [CLEAN [GAIN_DB]]
 *
 * The delay is the lag, 0..MAXLAG frames, at which the recording's first
 * 4096 frames after it differ least (largest difference, all channels)
 * from the reference's first 4096: on noise only the true lag comes close.
 * At that lag every frame of the reference is compared, and every frame of
 * the recording outside it must be silent (the recording should hold the
 * reference and nothing else: a glitch before or after shows there). Says
 *   delay D frames, worst W dB, outside O dB, peak P
 * W and O relative to the reference's peak, -300 for exactly nothing.
 * CLEAN judges only the recording's first CLEAN frames: a recorder that saw
 * the machine lose a cycle after them (a stalled host drops a cycle's
 * frames, and everything after comes back shifted) still shows the path
 * sample by sample where it was whole. The line then ends "judged on the
 * first CLEAN frames"; at least a window's worth of the reference must lie
 * in them (-1: all of it). GAIN_DB scales the recording first: a peer's
 * output against a library room's, which is levelled by that gain; "fit"
 * scales it by the least-squares gain at the lag found (the level's own
 * rounding is then not what is judged, the shape is).
 * Exit 0 when it could measure, 1 when not (files, channels, lengths). */
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 4096

static float *load(const char *path, int *channels, long *frames)
{
    SF_INFO info = {0};
    SNDFILE *sf = sf_open(path, SFM_READ, &info);
    if (!sf) {
        fprintf(stderr, "wav_match: %s: %s\n", path, sf_strerror(NULL));
        return NULL;
    }
    float *x = malloc((size_t)info.frames * (size_t)info.channels * sizeof(float) + 1);
    if (!x || sf_readf_float(sf, x, info.frames) != info.frames) {
        fprintf(stderr, "wav_match: %s: cannot read it\n", path);
        free(x);
        sf_close(sf);
        return NULL;
    }
    sf_close(sf);
    *channels = info.channels;
    *frames = (long)info.frames;
    return x;
}

static double db(double v, double peak)
{
    return v > 0 && peak > 0 ? 20 * log10(v / peak) : -300;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 6) {
        fprintf(stderr, "usage: wav_match REC.wav REF.wav MAXLAG [CLEAN [GAIN_DB]]\n");
        return 1;
    }
    int rc, fc;
    long rn, fn;
    float *rec = load(argv[1], &rc, &rn), *ref = load(argv[2], &fc, &fn);
    const long maxlag = atol(argv[3]);
    int status = 1;
    if (!rec || !ref)
        goto out;
    if (rc != fc) {
        fprintf(stderr, "wav_match: %d channels recorded, %d in the reference\n", rc, fc);
        goto out;
    }
    const long clean = argc >= 5 ? atol(argv[4]) : -1;
    const int fit = argc == 6 && !strcmp(argv[5], "fit");
    if (argc == 6 && !fit) {
        const float gain = (float)pow(10.0, atof(argv[5]) / 20);
        for (long k = 0; k < rn * rc; k++)
            rec[k] *= gain;
    }
    const int limited = clean >= 0 && clean < rn;
    if (limited)
        rn = clean; /* what follows the first lost cycle is not judged */
    const long window = fn < WINDOW ? fn : WINDOW;
    long lag = -1;
    double best = INFINITY;
    for (long d = 0; d <= maxlag && d + window <= rn; d++) {
        double worst = 0;
        for (long k = 0; k < window * rc && worst < best; k++) {
            const double e = fabs((double)rec[d * rc + k] - ref[k]);
            worst = e > worst ? e : worst;
        }
        if (worst < best) {
            best = worst;
            lag = d;
        }
    }
    const long judged = limited && lag >= 0 && lag + fn > rn ? rn - lag : fn;
    if (lag < 0 || lag + judged > rn || judged < window) {
        fprintf(stderr, "wav_match: the recording (%ld frames) cannot hold the reference "
                "(%ld) after a lag of %ld\n", rn, fn, lag);
        goto out;
    }
    if (fit) { /* the scale that brings REC nearest REF where it is judged */
        double cross = 0, power = 0;
        for (long k = 0; k < judged * rc; k++) {
            cross += (double)rec[lag * rc + k] * ref[k];
            power += (double)rec[lag * rc + k] * rec[lag * rc + k];
        }
        const double gain = power > 0 ? cross / power : 1;
        for (long k = 0; k < rn * rc; k++)
            rec[k] = (float)(rec[k] * gain);
        printf("gain %+.3f dB, ", 20 * log10(fabs(gain) + 1e-300));
    }
    double worst = 0, outside = 0, peak = 0;
    for (long k = 0; k < fn * rc; k++)
        peak = fabs(ref[k]) > peak ? fabs(ref[k]) : peak;
    for (long k = 0; k < judged * rc; k++) {
        const double e = fabs((double)rec[lag * rc + k] - ref[k]);
        worst = e > worst ? e : worst;
    }
    for (long k = 0; k < rn * rc; k++)
        if (k < lag * rc || k >= (lag + fn) * rc)
            outside = fabs(rec[k]) > outside ? fabs(rec[k]) : outside;
    printf("delay %ld frames, worst %.1f dB, outside %.1f dB, peak %.4f", lag, db(worst, peak),
           db(outside, peak), peak);
    if (limited)
        printf(", judged on the first %ld frames", rn);
    printf("\n");
    status = 0;
out:
    free(rec);
    free(ref);
    return status;
}
