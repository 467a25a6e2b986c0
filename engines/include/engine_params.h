/* The engine knobs as option-table entries (core/param.h), so that render,
 * play, bench, play's commands and the workstation's keys take the same
 * names, the same limits (engine.h's ES_BLOCK_* and ES_PARTITION_*) and
 * the same help. Each macro is one table entry for field `f` of struct
 * type `T`. */
#ifndef ES_ENGINE_PARAMS_H
#define ES_ENGINE_PARAMS_H

#include <stddef.h>

#include "core/param.h"
#include "engine.h"

/* CUSTOM parser: an engine name into a const es_engine_class *. */
int es_engine_param_parse(const char *text, void *dst, char *why, size_t n);

#define ES_PARAM_ENGINE(T, f)                                                          \
    {"engine", ES_PARAM_CUSTOM, 0, 0, "cpu-partitioned", "NAME",                       \
     "convolution engine (earshot engines lists them)", offsetof(T, f), NULL,          \
     es_engine_param_parse}
#define ES_PARAM_BLOCK(T, f)                                                           \
    {"block", ES_PARAM_INT, ES_BLOCK_MIN, ES_BLOCK_MAX,                                \
     ES_PARAM_DEFAULT_OF(ES_BLOCK_DEFAULT), "N", "frames per block", offsetof(T, f),   \
     NULL, NULL}
/* No default: 0 asks each engine for its own, from the block. */
#define ES_PARAM_PARTITION(T, f)                                                       \
    {"partition", ES_PARAM_INT, ES_PARTITION_MIN, ES_PARTITION_MAX, NULL, "P",         \
     "partition size of the engines that take one (default: from\n"                   \
     "the block)", offsetof(T, f), NULL, NULL}
#define ES_PARAM_PIPELINED(T, f)                                                       \
    {"pipelined", ES_PARAM_FLAG, 0, 1, NULL, NULL,                                     \
     "GPU engines: result one block later (+1 block of latency)", offsetof(T, f), NULL, \
     NULL}
/* CUSTOM parser: --gpu's list into an es_gpu_list. */
int es_gpu_list_param_parse(const char *text, void *dst, char *why, size_t n);

/* No default: a list given to a CPU engine is refused, and none is GPU 0. */
#define ES_PARAM_GPU(T, f)                                                             \
    {"gpu", ES_PARAM_CUSTOM, 0, 0, NULL, "LIST",                                       \
     "GPU engines: the CUDA device (0 when not given); a list\n"                      \
     "N,M,... or all splits the matrix by outputs, a shard a GPU\n"                    \
     "(an entry may repeat: 0,0 is two shards on GPU 0)", offsetof(T, f), NULL,        \
     es_gpu_list_param_parse}

#endif
