/* What plays: one value that names a stream's room, engine (with its
 * options), block and source. The A/B slots hold one each, a change asks
 * for one, the preparer builds one, the settings file keeps them and the
 * report shows them; nothing else in the live layer describes a stream.
 * The levels (processor.h's es_mix) go beside it: they change without a
 * new engine or stream. */
#ifndef ES_PLAY_SPEC_H
#define ES_PLAY_SPEC_H

#include <stddef.h>

#include "engine.h"

typedef enum { ES_SOURCE_SIGNAL, ES_SOURCE_FILE, ES_SOURCE_MIC } es_source_kind;

#define ES_ROOM_TEXT_MAX 1024

typedef struct {
    char room[ES_ROOM_TEXT_MAX]; /* a library room's name or an IR file's path */
    const es_engine_class *engine;
    es_options options;        /* partition, GPU pipelining, the GPUs */
    int block;                 /* frames a callback */
    es_source_kind source;
    int raw;                   /* 1: a room given by its file plays as the file
                                * has it; 0: levelled as the library's rooms are */
    /* dB on the room's filters (0: as levelled): a stimulus's level in a
     * listening test, carried by its slot, so that an A/B switch changes
     * the level inside the same primed crossfade as the room. */
    double level_db;
} es_play_spec;

/* The levels a spec's room may be given (dB). */
#define ES_SPEC_LEVEL_DB_MIN -60.0
#define ES_SPEC_LEVEL_DB_MAX 24.0

/* The parts of a spec, as bits: what two specs differ in, and which parts
 * a settings file held. */
enum {
    ES_SPEC_ROOM = 1u << 0,
    ES_SPEC_ENGINE = 1u << 1,
    ES_SPEC_PARTITION = 1u << 2,
    ES_SPEC_PIPELINED = 1u << 3,
    ES_SPEC_GPUS = 1u << 4,
    ES_SPEC_BLOCK = 1u << 5,
    ES_SPEC_SOURCE = 1u << 6,
    ES_SPEC_RAW = 1u << 7,
    ES_SPEC_LEVEL = 1u << 8,
    /* the parts an A/B slot holds (its source is the stream's) */
    ES_SPEC_SLOT = ES_SPEC_ROOM | ES_SPEC_ENGINE | ES_SPEC_PARTITION | ES_SPEC_PIPELINED |
                   ES_SPEC_GPUS | ES_SPEC_BLOCK | ES_SPEC_RAW | ES_SPEC_LEVEL,
    ES_SPEC_ALL = ES_SPEC_SLOT | ES_SPEC_SOURCE,
};

/* Which parts differ (ES_SPEC_* bits; 0: the same stream). */
unsigned es_play_spec_diff(const es_play_spec *a, const es_play_spec *b);

/* What going from one spec to another costs. */
typedef enum {
    ES_COST_NOTHING,  /* the same spec */
    ES_COST_SWAP,     /* a new engine, crossfaded in (room, engine, options); a
                       * swap whose engine needs more latency than the stream
                       * has becomes a reopen once the engine is built */
    ES_COST_REOPEN,   /* a new stream (block, source): the device reopens */
} es_spec_cost;

es_spec_cost es_play_spec_cost(const es_play_spec *from, const es_play_spec *to);

/* The parts of `from` named in `parts` (ES_SPEC_* bits) into `to`. */
void es_play_spec_take(es_play_spec *to, const es_play_spec *from, unsigned parts);
/* Copies `room` into spec->room (clipped at ES_ROOM_TEXT_MAX - 1). */
void es_play_spec_set_room(es_play_spec *spec, const char *room);

/* The source as a person names it: "test signal", "microphone", "file". */
const char *es_source_word(es_source_kind k);

/* "room cathedral, engine cpu-nonuniform, block 512": the parts of `to`
 * in `changed` (ES_SPEC_* bits), in words, for a line that says what a
 * change did. `file` names the file source (NULL: "file"). */
void es_play_spec_describe(const es_play_spec *to, unsigned changed, const char *file,
                           char *out, size_t n);

#endif
