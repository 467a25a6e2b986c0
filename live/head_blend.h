/* The head tracker's blender (head_blend.c): directions between the
 * measured ones, blended on a thread of its own and loaded into one of
 * two sets the room's engine keeps for them. Internal to live. */
#ifndef ES_HEAD_BLEND_H
#define ES_HEAD_BLEND_H

#include <pthread.h>
#include <stdint.h>

#include "processor.h"
#include "sofa.h"

typedef struct es_head_blend es_head_blend;

/* What the blender did. */
typedef struct {
    uint64_t rooms;      /* rooms it blended for */
    uint64_t blends;     /* blends made and asked for */
    uint64_t measured;   /* measured sets asked for (a direction measured) */
    uint64_t replaced;   /* orientations a newer one replaced before blending */
    uint64_t failed;     /* blends that could not be made or loaded */
    char last_failure[256];
    es_sofa_blend last;  /* the last asked for */
} es_head_blend_stats;

/* requests: the stream's; it must outlive the blender. */
es_head_blend *es_head_blend_create(es_set_requests *requests);
/* Stops its thread and lets go of the engine. NULL-safe. */
void es_head_blend_destroy(es_head_blend *b);
/* The room to blend for: its engine (a split room, es_engine_create_split,
 * whose sets `kept` and kept + 1 are kept for blends), its sets as they
 * play (`heads`, which it takes: their poses, and their filters to blend)
 * and the set it starts on. NULL e: blend for none (heads freed). 0, or
 * -1 when its thread could not start (then it blends for none). */
int es_head_blend_room(es_head_blend *b, es_engine *e, es_sofa *heads, int kept, int first);
/* The newest orientation (degrees), to be blended and asked for: 1 when
 * taken, 0 when there is no room to blend for. Waits at most for a blend
 * being made (about a millisecond), never for the stream. */
int es_head_blend_aim(es_head_blend *b, float yaw, float pitch, float roll, long long arrival_ns);
void es_head_blend_stats_get(es_head_blend *b, es_head_blend_stats *st);

#endif
