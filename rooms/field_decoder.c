/* The decoder a field room plays through (ambi_decoder.h): two ears from
 * a SOFA set of HRIRs, or a loudspeaker array. A binaural decoder is made
 * once and kept: for the process's life in memory (a few sets and orders
 * at most: a session plays one head), and in the cache folder
 * ($XDG_CACHE_HOME/earshot/decoders), as prepared rooms are, named by a
 * hash of the set's identity (path, device, inode, size, time), the
 * order, the kind and the rate, so that the next render or play of any
 * field room through that head starts at once. A cached file is written
 * whole or not at all (es_file_replace) and read only when its header
 * fits what is asked; any other is made anew. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ambi_decoder.h"
#include "core/files.h"

/* Bumped whenever the fit changes, so that no older decoder is read. */
#define DECODER_VERSION 2
#define CACHE_MAGIC "ESDEC01"

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

typedef struct {
    char magic[8];
    int32_t channels, outputs, length;
    double rate;
    char note[256];
} cache_header;

static int cache_path(const char *path, const struct stat *st, int order, es_decoder_kind kind,
                      double rate, char *out, size_t n)
{
    char key[1300];
    snprintf(key, sizeof key, "%s|%llu|%llu|%lld|%lld.%09ld|%d|%d|%.3f|%d", path,
             (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
             (long long)st->st_size, (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec, order,
             (int)kind, rate, DECODER_VERSION);
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *c = key; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    char tail[96];
    snprintf(tail, sizeof tail, "earshot/decoders/%016llx.dec", (unsigned long long)h);
    return es_xdg_path(out, n, "XDG_CACHE_HOME", ".cache", tail);
}

/* A cached decoder that fits: its filters, and its note; NULL otherwise. */
static es_ir *cache_read(const char *file, int order, double rate, char *note, size_t nn)
{
    const int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return NULL;
    cache_header h;
    es_ir *ir = NULL;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && es_fd_read_all(fd, &h, sizeof h) == 0 &&
        !memcmp(h.magic, CACHE_MAGIC, 8) && h.channels == ES_AMBI_CHANNELS(order) &&
        h.outputs == 2 && h.length >= 1 && h.length <= 65536 && h.rate == rate &&
        st.st_size == (off_t)(sizeof h + sizeof(float) * (size_t)h.channels * 2 * h.length) &&
        (ir = es_ir_create(h.channels, 2, h.length, rate))) {
        for (int p = 0; p < h.channels * 2; p++) {
            float *row = es_ir_path(ir, p / 2, p % 2);
            if (!row || es_fd_read_all(fd, row, sizeof(float) * (size_t)h.length) != 0) {
                es_ir_destroy(ir);
                ir = NULL;
                break;
            }
        }
        h.note[sizeof h.note - 1] = 0;
        if (ir)
            snprintf(note, nn, "%s (cached)", h.note);
    }
    close(fd);
    return ir;
}

/* The decoder into the cache; a cache that cannot be written is no
 * failure (the next run makes it again). */
static void cache_write(const char *file, const es_ir *ir, const char *note)
{
    cache_header h = {.magic = CACHE_MAGIC, .channels = ir->inputs, .outputs = 2,
                      .length = ir->length, .rate = ir->sample_rate};
    snprintf(h.note, sizeof h.note, "%s", note);
    const size_t row = sizeof(float) * (size_t)ir->length;
    const size_t size = sizeof h + row * (size_t)ir->inputs * 2;
    char *data = calloc(1, size), dir[1100], err[256];
    if (!data)
        return;
    memcpy(data, &h, sizeof h);
    for (int p = 0; p < ir->inputs * 2; p++)
        if (ir->taps[p])
            memcpy(data + sizeof h + row * (size_t)p, ir->taps[p], row);
    es_path_dir(file, dir, sizeof dir);
    char parent[1100];
    es_path_dir(dir, parent, sizeof parent);
    if ((mkdir(parent, 0755) == 0 || errno == EEXIST) && (mkdir(dir, 0755) == 0 || errno == EEXIST))
        es_file_replace(file, data, size, 0644, err, sizeof err);
    free(data);
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
    char file[1200];
    const int cached = cache_path(path, &st, order, kind, rate, file, sizeof file) == 0;
    es_ir *ir = cached ? cache_read(file, order, rate, note, nn) : NULL;
    if (!ir) {
        es_sofa *set = es_sofa_load(path, rate, err, n);
        if (!set)
            return NULL;
        char why[400];
        ir = es_ambi_binaural_decoder(set, order, kind, note, nn, why, sizeof why);
        es_sofa_free(set);
        if (!ir) {
            snprintf(err, n, "%.500s: %s", path, why);
            return NULL;
        }
        if (cached)
            cache_write(file, ir, note);
    }
    es_ir *copy = copy_ir(ir);
    if (!copy) /* nothing kept: the next room makes it again */
        return ir;
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
