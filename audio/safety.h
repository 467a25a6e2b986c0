/* What keeps the sound safe (internal to audio/): non-finite or absurd
 * samples taken out before they reach an engine, the device, a recording
 * or a render, and a runaway (a feedback loop) muted before it hurts.
 * Real-time safe; the processor calls these once a block. */
#ifndef ES_SAFETY_H
#define ES_SAFETY_H

#include <stdint.h>

#include "core/rt.h"

/* An input sample beyond this is no signal a microphone or a file holds
 * (+60 dBFS): it is counted and played as silence, as NaN and infinity
 * are. The trim's +24 dB on a full-scale input stays well inside it. */
#define ES_INPUT_MAX 1000.0f

/* Replaces every sample of x[0..frames) that is not finite or beyond
 * `limit` with 0. Returns how many it replaced. */
ES_RT uint64_t es_sanitize(float *x, int frames, float limit);
/* 1 when every sample of x[0..frames) is finite and within `limit`. */
ES_RT int es_all_within(const float *x, int frames, float limit);
/* The output's check: 1 when every sample of x[0..frames) is finite, and
 * in *clipped how many are past full scale (|x| > 1), as
 * es_count_clipped() counts them when all are finite. */
ES_RT int es_scan_output(const float *x, int frames, uint32_t *clipped);
/* The same with the limit of es_all_within(): 1 when every sample is
 * finite and within `limit` (> 0), the clipped ones counted alike. */
ES_RT int es_scan_within(const float *x, int frames, float limit, uint32_t *clipped);

/* The runaway detector: a feedback loop grows until it rides far above
 * full scale. It watches the output before the limiter (the limiter hides
 * the loop in what leaves, not in what feeds it) and trips on either
 *   - sustained overload: blocks peaking above full scale for more than
 *     ES_RUNAWAY_OVER_S of the last ES_RUNAWAY_WINDOW_S, or
 *   - a swell: the RMS of ES_RUNAWAY_STEP_S windows rising by at least
 *     ES_RUNAWAY_RISE_DB each, ES_RUNAWAY_RISES times in a row, to above
 *     ES_RUNAWAY_LOUD_DB: 8 dB in 0.4 s and still climbing, which music's
 *     swells and a drum's attack do not do, and a loop at a gain above 1
 *     does. A sweep does too, through a room's rising response: the
 *     built-in signal's (-18 dBFS) through a binaural room's thin low end
 *     climbed to -9 dBFS RMS at a resonance and was taken for a loop at a
 *     threshold of -12; at -6 (a tone peaking at -3 dBFS) it is not, and a
 *     loop is still caught before full scale;
 *   - or at once: a sample beyond ES_RUNAWAY_HARD (+6 dBFS), which no
 *     sound card plays and only a loop or a broken chain of gains makes;
 *     then `hard` says the block is to be silenced whole, not ramped, so
 *     that nothing beyond it ever leaves (a loop at a gain of 2 a period
 *     gains 6 dB every few milliseconds: a ramp would let it through).
 * Once it trips it stays tripped until reset. The processor watches live
 * streams only: a render has no loop to run away in. */
#define ES_RUNAWAY_OVER_S 0.25
#define ES_RUNAWAY_WINDOW_S 0.4
#define ES_RUNAWAY_STEP_S 0.05
#define ES_RUNAWAY_RISE_DB 1.0
#define ES_RUNAWAY_RISES 8
#define ES_RUNAWAY_LOUD_DB -6.0
#define ES_RUNAWAY_HARD 2.0f /* +6 dBFS */

#define ES_RUNAWAY_BLOCKS 64 /* per-block overloads kept (the window, in blocks) */

typedef struct {
    double rate;
    /* sustained overload: the frames of the last blocks, and whether each
     * peaked above full scale, newest last */
    int frames[ES_RUNAWAY_BLOCKS];
    unsigned char over[ES_RUNAWAY_BLOCKS];
    int at;
    /* the swell: the current step's energy, and the last steps' levels */
    double energy;
    int energy_frames;
    double last_db;
    int rises;
    int tripped;
    int hard;                  /* tripped by a sample beyond ES_RUNAWAY_HARD */
    int swelled;               /* tripped by the swell */
    float peak;                /* the peak of the block that tripped it (linear) */
    const char *why;           /* what tripped it, in words (a literal) */
} es_runaway;

void es_runaway_init(es_runaway *r, double rate);
/* One block of output (before the limiter): 1 when this block trips it. */
ES_RT int es_runaway_watch(es_runaway *r, const float *const *out, int channels, int frames);
void es_runaway_reset(es_runaway *r);

#endif
