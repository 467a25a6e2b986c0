/* The play spec (play_spec.h): compared part by part, and said in words. */
#include <stdio.h>
#include <string.h>

#include "play_spec.h"

static int same_gpus(const es_gpu_list *a, const es_gpu_list *b)
{
    if (a->count != b->count)
        return 0;
    for (int k = 0; k < a->count && k < ES_GPUS_MAX; k++)
        if (a->device[k] != b->device[k])
            return 0;
    return 1;
}

unsigned es_play_spec_diff(const es_play_spec *a, const es_play_spec *b)
{
    unsigned d = 0;
    d |= strcmp(a->room, b->room) != 0 ? ES_SPEC_ROOM : 0;
    d |= a->engine != b->engine ? ES_SPEC_ENGINE : 0;
    d |= a->options.partition != b->options.partition ? ES_SPEC_PARTITION : 0;
    d |= a->options.gpu_pipelined != b->options.gpu_pipelined ? ES_SPEC_PIPELINED : 0;
    d |= !same_gpus(&a->options.gpu.list, &b->options.gpu.list) ? ES_SPEC_GPUS : 0;
    d |= a->block != b->block ? ES_SPEC_BLOCK : 0;
    d |= a->source != b->source ? ES_SPEC_SOURCE : 0;
    d |= a->raw != b->raw ? ES_SPEC_RAW : 0;
    d |= a->level_db != b->level_db ? ES_SPEC_LEVEL : 0;
    return d;
}

es_spec_cost es_play_spec_cost(const es_play_spec *from, const es_play_spec *to)
{
    const unsigned d = es_play_spec_diff(from, to);
    if (d & (ES_SPEC_BLOCK | ES_SPEC_SOURCE))
        return ES_COST_REOPEN;
    return d ? ES_COST_SWAP : ES_COST_NOTHING;
}

void es_play_spec_take(es_play_spec *to, const es_play_spec *from, unsigned parts)
{
    if (parts & ES_SPEC_ROOM)
        memcpy(to->room, from->room, sizeof to->room);
    if (parts & ES_SPEC_ENGINE)
        to->engine = from->engine;
    if (parts & ES_SPEC_PARTITION)
        to->options.partition = from->options.partition;
    if (parts & ES_SPEC_PIPELINED)
        to->options.gpu_pipelined = from->options.gpu_pipelined;
    if (parts & ES_SPEC_GPUS)
        to->options.gpu.list = from->options.gpu.list;
    if (parts & ES_SPEC_BLOCK)
        to->block = from->block;
    if (parts & ES_SPEC_SOURCE)
        to->source = from->source;
    if (parts & ES_SPEC_RAW)
        to->raw = from->raw;
    if (parts & ES_SPEC_LEVEL)
        to->level_db = from->level_db;
}

void es_play_spec_set_room(es_play_spec *spec, const char *room)
{
    snprintf(spec->room, sizeof spec->room, "%s", room);
}

const char *es_source_word(es_source_kind k)
{
    return k == ES_SOURCE_MIC ? "microphone" : k == ES_SOURCE_FILE ? "file" : "test signal";
}

void es_play_spec_describe(const es_play_spec *to, unsigned changed, const char *file,
                           char *out, size_t n)
{
    size_t used = 0;
    if (n)
        out[0] = 0;
#define ADD(...)                                                                   \
    do {                                                                           \
        if (used < n)                                                              \
            used += (size_t)snprintf(out + used, n - used, __VA_ARGS__);           \
    } while (0)
#define SEP (used ? ", " : "")
    if (changed & ES_SPEC_ROOM)
        ADD("%sroom %s", SEP, to->room);
    if (changed & ES_SPEC_RAW)
        ADD("%s%s", SEP, to->raw ? "raw (the file's own level)" : "levelled");
    if (changed & ES_SPEC_LEVEL)
        ADD("%slevel %+.1f dB", SEP, to->level_db);
    if (changed & ES_SPEC_ENGINE)
        ADD("%sengine %s", SEP, to->engine->name);
    if (changed & ES_SPEC_PARTITION)
        ADD("%spartition %d", SEP, to->options.partition);
    if (changed & ES_SPEC_PIPELINED)
        ADD("%spipelined %s", SEP, to->options.gpu_pipelined ? "on" : "off");
    if (changed & ES_SPEC_GPUS) {
        char gpus[64];
        ADD("%sgpu %s", SEP, es_gpu_list_text(&to->options.gpu.list, gpus, sizeof gpus));
    }
    if (changed & ES_SPEC_SOURCE) {
        const char *slash = file ? strrchr(file, '/') : NULL;
        ADD("%ssource: %s", SEP,
            to->source == ES_SOURCE_FILE && file ? (slash ? slash + 1 : file)
                                                 : es_source_word(to->source));
    }
    if (changed & ES_SPEC_BLOCK)
        ADD("%sblock %d", SEP, to->block);
#undef SEP
#undef ADD
}
