/* The engine classes, one per engine file (internal to engines/; users go
 * through es_engines[] and es_engine_find()). */
#ifndef ES_CLASSES_H
#define ES_CLASSES_H

#include "engine.h"

extern const es_engine_class es_engine_cpu_direct;
extern const es_engine_class es_engine_cpu_partitioned;
extern const es_engine_class es_engine_cpu_nonuniform;
extern const es_engine_class es_engine_cuda_circular;
extern const es_engine_class es_engine_cuda_partitioned;
extern const es_engine_class es_engine_cuda_nonuniform;

/* The class of an engine composed of others (a matrix split over GPUs, a
 * room split in time): what a host sees of `of` (its name, summary, caps,
 * probe and fallback) over the calls of `calls` alone, every one of them
 * (NULL where the composition has none: no call of `of`'s reaches the
 * composition's own struct). */
es_engine_class es_engine_class_over(const es_engine_class *of, const es_engine_class *calls);

/* Counts an engine made by a composition of others (split_room.c), as
 * es_engine_create counts its own: es_engine_destroy counts it undone. */
void es_engine_count_created(void);

#endif
