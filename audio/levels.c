/* The levels' arithmetic and limits, shared by the processor (which
 * refuses a mix outside them), the session (which says each change in dB)
 * and the screen. */
#include <math.h>
#include <stdio.h>

#include "processor.h"

double es_db_to_gain(double db)
{
    return db == -INFINITY ? 0.0 : pow(10.0, db / 20.0);
}

void es_level_text(double linear, int digits, char *out, size_t n)
{
    if (linear <= 0)
        snprintf(out, n, "off");
    else
        snprintf(out, n, "%+.*f dB", digits, 20.0 * log10(linear));
}

int es_mix_check(const es_mix *mix, char *err, size_t n)
{
    static const struct {
        const char *name;
        float max;
    } limit[3] = {{"wet", ES_MIX_WET_MAX}, {"dry", ES_MIX_DRY_MAX}, {"gain", ES_MIX_GAIN_MAX}};
    const float v[3] = {mix->wet, mix->dry, mix->gain};
    for (int k = 0; k < 3; k++)
        /* Written so that NaN fails too. */
        if (!(v[k] >= 0.0f && v[k] <= limit[k].max)) {
            if (err)
                snprintf(err, n, "mix: %s %g is outside 0..%g", limit[k].name, (double)v[k],
                         (double)limit[k].max);
            return 0;
        }
    if (!(mix->trim_db >= ES_TRIM_DB_MIN && mix->trim_db <= ES_TRIM_DB_MAX)) {
        if (err)
            snprintf(err, n, "mix: trim %g dB is outside %g..%+g dB", (double)mix->trim_db,
                     ES_TRIM_DB_MIN, ES_TRIM_DB_MAX);
        return 0;
    }
    if (!(mix->ceiling_db >= ES_CEILING_DB_MIN && mix->ceiling_db <= ES_CEILING_DB_MAX)) {
        if (err)
            snprintf(err, n, "mix: limiter ceiling %g dBFS is outside %g..%g dBFS",
                     (double)mix->ceiling_db, ES_CEILING_DB_MIN, ES_CEILING_DB_MAX);
        return 0;
    }
    if ((mix->bypass != 0 && mix->bypass != 1) || (mix->limiter != 0 && mix->limiter != 1)) {
        if (err)
            snprintf(err, n, "mix: bypass and limiter are 0 or 1");
        return 0;
    }
    return 1;
}
