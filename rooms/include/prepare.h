/* Turning a library room into what an engine plays, off the audio thread:
 * read (libsndfile), check, resample to the stream rate (libsamplerate,
 * best sinc), check the layout, trim the silent tail (-120 dB), add the pre-delay,
 * and normalise by the gain for programme material (program_level.h) so
 * that rooms change character, not loudness,
 * when swapped. Prepared rooms are cached per sample rate: a swap back to
 * a room already heard costs no file reading. */
#ifndef ES_PREPARE_H
#define ES_PREPARE_H

#include <stddef.h>

#include "engine.h"
#include "library.h"

/* The silent tail cut from a room changes no output sample by more than
 * this below the largest the room can give: per channel, the tail cut is
 * the longest whose sum of |samples| is under 10^(-ES_TRIM_DB / 20) of the
 * channel's (a worst-case input of full-scale samples of the right signs
 * meets every tap at once). */
#define ES_TRIM_DB 120.0

typedef struct {
    char name[ES_ROOM_NAME_MAX];
    double rate;
    float **ch;          /* prepared channels; a matrix room's path with
                          * no filter is NULL */
    int channels, frames;
    double gain_db;      /* applied: the normalisation plus the manifest's gain */
    double trimmed_s;    /* silent tail removed */
    double file_rate;    /* the file's own rate (resampled when != rate) */
    char layout[16];     /* the manifest's (a matrix room's: its sides), or "" */
} es_prepared_room;

/* At `rate`, or the room's own rate when it is 0. 0, or -1 with one line
 * naming the room and the problem. */
int es_room_prepare(const es_room *room, double rate, es_prepared_room *out, char *err,
                    size_t n);
void es_prepared_room_free(es_prepared_room *p);

/* The engine's IR matrix for `inputs` input channels (see
 * es_ir_from_channels). NULL with a message naming the room. */
es_ir *es_prepared_room_ir(const es_prepared_room *p, int inputs, char *err, size_t n);

typedef struct {
    es_prepared_room **items; /* each allocated once: pointers handed out stay valid */
    int count, capacity;
    es_prepared_room *passing; /* a room too large to keep: until released */
    size_t keep_max;           /* bytes a kept room may hold; 0: ES_ROOM_CACHE_ROOM_MAX_BYTES */
} es_room_cache;

/* A prepared room larger than this is not kept: a swap back to it prepares
 * it again (a second or so for a large matrix) rather than hold it beside
 * the engine that holds it already, twice its size, for the whole session
 * (jconvolver's stress3, 64 x 64 paths of 4.3 s: 52 MB). */
#define ES_ROOM_CACHE_ROOM_MAX_BYTES ((size_t)16 << 20)

/* The room prepared at `rate`, from the cache or prepared now and kept
 * (up to ES_ROOM_CACHE_ROOM_MAX_BYTES). NULL with a message. A kept room's
 * pointer stays valid until the cache is freed; one too large to keep,
 * until es_room_cache_release (or the next get). */
const es_prepared_room *es_room_cache_get(es_room_cache *c, const es_room *room, double rate,
                                          char *err, size_t n);
/* Done with `p`: a room too large to keep is freed now (kept ones stay). */
void es_room_cache_release(es_room_cache *c, const es_prepared_room *p);
void es_room_cache_free(es_room_cache *c);

#endif
