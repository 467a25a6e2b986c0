/* The decoder a field room plays through (ambi_decoder.h): two ears from
 * a SOFA set of HRIRs, or a loudspeaker array, made once and kept for
 * the process's life (a few sets and orders at most: a session plays
 * one head). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ambi_decoder.h"

#define KEPT 8

typedef struct {
    char path[1024];
    dev_t dev;
    ino_t ino;
    long long size, mtime;
    int order;
    es_decoder_kind kind;
    double rate;
    es_ir *decoder;
    char note[256];
} kept_decoder;

static kept_decoder kept[KEPT];
static int kept_count, kept_next;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static es_ir *copy_ir(const es_ir *from)
{
    es_ir *ir = es_ir_create(from->inputs, from->outputs, from->length, from->sample_rate);
    for (int p = 0; ir && p < from->inputs * from->outputs; p++) {
        if (!from->taps[p])
            continue;
        float *h = es_ir_path(ir, p / from->outputs, p % from->outputs);
        if (!h) {
            es_ir_destroy(ir);
            return NULL;
        }
        memcpy(h, from->taps[p], sizeof(float) * (size_t)from->length);
    }
    return ir;
}

static int same(const kept_decoder *k, const char *path, const struct stat *st, int order,
                es_decoder_kind kind, double rate)
{
    return !strcmp(k->path, path) && k->dev == st->st_dev && k->ino == st->st_ino &&
           k->size == (long long)st->st_size && k->mtime == (long long)st->st_mtime &&
           k->order == order && k->kind == kind && k->rate == rate;
}

/* The binaural decoder, from what was kept or made now. */
static es_ir *binaural(const char *path, es_decoder_kind kind, int order, double rate,
                       char *note, size_t nn, char *err, size_t n)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, n, "--hrir %.600s: no such file (a SOFA set of HRIRs)", path);
        return NULL;
    }
    pthread_mutex_lock(&kept_lock);
    for (int i = 0; i < kept_count; i++)
        if (same(&kept[i], path, &st, order, kind, rate)) {
            es_ir *ir = copy_ir(kept[i].decoder);
            snprintf(note, nn, "%s (made before)", kept[i].note);
            pthread_mutex_unlock(&kept_lock);
            if (!ir)
                snprintf(err, n, "out of memory");
            return ir;
        }
    pthread_mutex_unlock(&kept_lock);
    es_sofa *set = es_sofa_load(path, rate, err, n);
    if (!set)
        return NULL;
    char why[400];
    es_ir *ir = es_ambi_binaural_decoder(set, order, kind, note, nn, why, sizeof why);
    es_sofa_free(set);
    if (!ir) {
        snprintf(err, n, "%.500s: %s", path, why);
        return NULL;
    }
    es_ir *copy = copy_ir(ir);
    pthread_mutex_lock(&kept_lock);
    kept_decoder *k = &kept[kept_next];
    es_ir_destroy(k->decoder);
    *k = (kept_decoder){.dev = st.st_dev, .ino = st.st_ino, .size = (long long)st.st_size,
                        .mtime = (long long)st.st_mtime, .order = order, .kind = kind,
                        .rate = rate, .decoder = copy};
    snprintf(k->path, sizeof k->path, "%s", path);
    snprintf(k->note, sizeof k->note, "%s", note);
    kept_next = (kept_next + 1) % KEPT;
    kept_count = kept_count < KEPT ? kept_count + 1 : KEPT;
    pthread_mutex_unlock(&kept_lock);
    return ir;
}

int es_field_outputs(const es_field_options *o, char *err, size_t n)
{
    if (!o->speakers)
        return 2;
    es_sofa_pose places[ES_ARRAY_MAX];
    int lfe[ES_ARRAY_MAX];
    return es_array_read(o->speakers, places, lfe, err, n);
}

es_ir *es_field_decoder(const es_field_options *o, int order, double rate, char *note,
                        size_t nn, char *err, size_t n)
{
    note[0] = 0;
    if (!o->speakers)
        return binaural(o->hrir ? o->hrir : ES_FIELD_HRIR_DEFAULT, o->kind, order, rate, note,
                        nn, err, n);
    es_sofa_pose places[ES_ARRAY_MAX];
    int lfe[ES_ARRAY_MAX];
    const int count = es_array_read(o->speakers, places, lfe, err, n);
    if (!count)
        return NULL;
    es_ir *ir = es_ambi_allrad_decoder(places, lfe, count, order, rate, err, n);
    if (ir)
        snprintf(note, nn, "AllRAD order %d to %d loudspeakers (%.60s)", order, count,
                 o->speakers);
    return ir;
}
