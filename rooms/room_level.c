/* A room's programme level (room_level.h). */
#include <math.h>
#include <stdio.h>

#include <string.h>

#include "field_layout.h"
#include "library.h"
#include "program_level.h"
#include "room_level.h"

double es_paths_program_power(const float *const *paths, int count, int frames, double rate,
                              int outputs)
{
    double power = 0;
    for (int c = 0; c < count; c++) {
        if (!paths[c])
            continue; /* a matrix's path with no filter */
        const double p = es_program_power(paths[c], frames, rate);
        if (p < 0)
            return -1;
        power += p;
    }
    return outputs > 0 ? power / outputs : 0;
}

static double ir_power(const es_ir *ir)
{
    return es_paths_program_power((const float *const *)ir->taps, ir->inputs * ir->outputs,
                                  ir->length, ir->sample_rate, ir->outputs);
}

/* The gain, in dB, that brings a mean power to 1; or -1 with why. */
static int level_for(double power, double *gain_db, char *err, size_t n)
{
    if (power < 0) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    if (!(power > 0)) {
        snprintf(err, n, "silent (every sample is 0)");
        return -1;
    }
    *gain_db = -10 * log10(power);
    return 0;
}

int es_layout_outputs(const char *layout, int channels)
{
    int ins, outs;
    if (!layout[0])
        layout = es_layout_for_channels(channels);
    if (!strcmp(layout, "true-stereo"))
        return 2;
    if (sscanf(layout, "%dx%d", &ins, &outs) == 2 && outs > 0)
        return outs;
    return channels;
}

int es_channels_level_db(const float *const *ch, int channels, int frames, double rate,
                         const char *layout, double *gain_db, char *err, size_t n)
{
    es_field_layout f;
    if (es_field_layout_parse(layout, &f) && channels == f.inputs * ES_AMBI_CHANNELS(f.order)) {
        /* A field is heard at about its W's level at each ear: W alone
         * (FuMa's at -3 dB) counts, each input's. */
        double power = 0;
        for (int i = 0; i < f.inputs && power >= 0; i++) {
            const double p = es_program_power(ch[i * ES_AMBI_CHANNELS(f.order)], frames, rate);
            power = p < 0 ? -1 : power + p * (f.norm == ES_AMBI_FUMA ? 2 : 1);
        }
        return level_for(power, gain_db, err, n);
    }
    return level_for(es_paths_program_power(ch, channels, frames, rate,
                                            es_layout_outputs(layout, channels)),
                     gain_db, err, n);
}

int es_ir_level_db(const es_ir *ir, double *gain_db, char *err, size_t n)
{
    return level_for(ir_power(ir), gain_db, err, n);
}

int es_sofa_level_db(const es_sofa *set, double *gain_db, char *err, size_t n)
{
    double power = 0;
    for (int k = 0; k < set->count && power >= 0; k++) {
        const double p = ir_power(set->sets[k]);
        power = p < 0 ? -1 : power + p / set->count;
    }
    return level_for(power, gain_db, err, n);
}

void es_ir_scale_db(es_ir *ir, double db)
{
    const float gain = (float)pow(10.0, db / 20);
    for (int r = 0; r < ir->inputs * ir->outputs; r++)
        if (ir->taps[r])
            for (int t = 0; t < ir->length; t++)
                ir->taps[r][t] *= gain;
}

void es_sofa_scale_db(es_sofa *set, double db)
{
    for (int k = 0; k < set->count; k++)
        es_ir_scale_db(set->sets[k], db);
}
