/* The preparer's insides, shared by its files (internal to live/):
 * preparer.c (the thread, its mailboxes, rescans, the trash),
 * preparer_build.c (a request's stream built), preparer_sets.c (SOFA
 * rooms, the headphone filter), preparer_prime.c (primings) and
 * preparer_measure.c (the room panel's measurements). */
#ifndef ES_PREPARER_PRIVATE_H
#define ES_PREPARER_PRIVATE_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "field_layout.h"
#include "preparer.h"

#define MEASURE_QUEUE 64
#define TRASH 256
#define PRIMES 8          /* primings under way or waiting to be freed */
#define PRIME_POLL_S 0.001 /* how often an adoption is looked for */
#define RELEASE_POLL_S 0.02
#define LOOK_SECONDS 1.0 /* how often the manifests are looked at */

typedef enum { TRASH_ENGINE, TRASH_PROCESSOR, TRASH_FILE, TRASH_PRIMING } trash_kind;

/* A priming's plan and buffer, never used (its swap was not played). */
typedef struct {
    es_ringing *plan;
    float **out;
    int outputs;
} unused_priming;

typedef struct {
    trash_kind kind;
    void *item;
} trash;

/* A priming: waiting for the processor to adopt its engine, then run,
 * then waiting for the processor to let go of its buffer. */
typedef struct {
    int used, ran;
    es_history *history;
    uint64_t ticket;
    es_ringing *plan;
    float **out;
    int outputs;
    long long asked_ns;
} prime_job;

struct es_preparer {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_cond_t done_cond;  /* a result is done (es_preparer_wait) */
    int started, quit;
    es_room_loader *rooms;
    double rate;

    es_prep_request pending;
    int has_pending;
    uint64_t building;         /* id of the request being built, 0 none */
    char building_what[256];
    uint64_t newest;           /* id of the newest request submitted */
    es_prep_result *done;      /* finished, not yet taken */

    struct {
        es_room *room;          /* a copy that owns its text (es_room_dup) */
        int from, step;         /* the channel asked */
    } measure[MEASURE_QUEUE];
    int measure_count;

    int rescan_asked, rescanning;
    struct timespec looked_at; /* the manifests, last */
    es_library *rescanned;     /* read again, not yet taken */
    es_room_info measured[MEASURE_QUEUE];
    int measured_count;

    trash bin[TRASH];
    int bin_count;

    prime_job primes[PRIMES];  /* appended by others, run and freed by the thread */
    es_prime_report reports[PRIMES];
    int report_count;
};

/* ---- builds (preparer_build.c), on the preparer's thread ---- */

/* Builds the request's stream (unlocked): the engine alone when it fits
 * the stream as it plays (a crossfade), else a new processor around it;
 * what failed in the result's err. NULL: out of memory. */
es_prep_result *es_prep_build(es_preparer *p, const es_prep_request *q);
/* Whether engine e, made for r->fmt, plays in the stream as it is (a
 * crossfade) rather than a new one. */
int es_prep_fits_stream(const es_prep_request *q, const es_prep_result *r, const es_engine *e);
/* The built engine into the result: alone when it fits the stream, else
 * in a new processor that keeps enough input to prime later swaps of a
 * room `length` frames long. */
void es_prep_place(const es_prep_request *q, es_prep_result *r, es_engine *e, int length);
/* Milliseconds since a monotonic time in ns. */
double es_prep_ms_since(long long from_ns);
/* preparer_field.c: 1 and the room's field layout when `ir` (the room
 * `listed`, or q's file) is a room in spherical harmonics; and the room
 * built as one (takes room; the result with an engine, or r->err). */
int es_prep_field_of(es_preparer *p, const es_prep_request *q, const es_room *listed,
                     const es_ir *ir, es_field_layout *f);
es_prep_result *es_prep_build_field(const es_prep_request *q, es_prep_result *r, es_ir *room,
                                    es_field_layout *f, long long started);
/* preparer_sets.c: the room then the headphone filter (takes ir; NULL and
 * why in r->err), and a SOFA room built as an engine of filter sets. */
es_ir *es_prep_with_headphone(const es_prep_request *q, es_ir *ir, es_prep_result *r);
es_prep_result *es_prep_build_sets(const es_prep_request *q, es_prep_result *r, const char *path,
                                  es_file_level level, long long started);

/* ---- the room panel's measurements (preparer_measure.c) ---- */

/* Measures the first room queued (lock held, let go while it works) when
 * the session has room for its result: 1 when it did. */
int es_prep_step_measure(es_preparer *p);
/* Frees the rooms still queued (lock held). */
void es_prep_drop_measures(es_preparer *p);

/* ---- primings (preparer_prime.c), on the preparer's thread ---- */

/* The input a new stream keeps (preparer.h), for this many inputs and
 * the room it starts with (`past`: its length and the engine's latency),
 * frames. */
int es_prep_history_frames(double rate, int inputs, int past);
/* A swap's priming through ir: its plan and buffer, or why there is none
 * in r->prime_note. */
void es_prep_plan_priming(const es_prep_request *q, const es_ir *ir, es_prep_result *r);
/* A priming's plan and buffer, freed (either may be NULL); and an
 * unused_priming (the trash's). */
void es_prep_free_priming(es_ringing *plan, float **out, int outputs);
void es_prep_destroy_unused_priming(void *item);
/* One step (lock held, let go while it works): runs one whose engine was
 * adopted, or frees one the processor let go of. 1 when it did something. */
int es_prep_step_primings(es_preparer *p);
/* How long the thread may sleep with primings under way (lock held). */
double es_prep_priming_poll(const es_preparer *p);
/* At the end, with the thread gone: frees every priming no processor may
 * still read. */
void es_prep_free_primings(es_preparer *p);

#endif
