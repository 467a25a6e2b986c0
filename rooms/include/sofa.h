/* SOFA (AES69) filter sets, read through libmysofa: a set is one filter
 * matrix per measurement, and each measurement is either a direction of a
 * source around a fixed head (a head-related set, SimpleFreeFieldHRIR) or
 * an orientation of the listener's head in a room (SingleRoomSRIR,
 * SingleRoomMIMOSRIR, MultiSpeakerBRIR: ListenerView varies). Data.Delay
 * is honoured (the filter starts that many samples late), and the set is
 * resampled to the stream's rate, delays with it. Off the audio thread. */
#ifndef ES_SOFA_H
#define ES_SOFA_H

#include <stddef.h>

#include "ambisonic.h"
#include "engine.h"

/* A set: 60 s at 192 kHz a filter, and 2^31 samples in all (8 GB). */
#define ES_SOFA_TAPS_MAX (60 * 192000)
#define ES_SOFA_SAMPLES_MAX 2147483648.0

/* What varies from one measurement to the next. */
typedef enum {
    ES_SOFA_SOURCE, /* SourcePosition: a source direction around the head */
    ES_SOFA_VIEW,   /* ListenerView: the head's orientation in the room */
    ES_SOFA_FIXED,  /* one measurement */
    ES_SOFA_REFITTED, /* the same measurement again, headphones fitted anew
                       * (SimpleHeadphoneIR): a set to average, not choose */
} es_sofa_varies;

typedef struct {
    float azimuth, elevation; /* degrees: azimuth counter-clockwise from ahead (90 is left) */
    float distance;           /* metres (1 where the file gives a view with no length) */
} es_sofa_pose;

typedef struct {
    char convention[48];  /* the file's SOFAConventions */
    es_sofa_varies varies;
    int count;            /* measurements (M) */
    int inputs, outputs;  /* emitters (E) and receivers (R): each set is inputs x outputs */
    int taps;             /* at the stream rate, the longest delay included */
    double file_rate, rate;
    double max_delay;     /* the largest Data.Delay, in samples at the stream rate */
    es_sofa_pose *pose;   /* [count] */
    /* [inputs]: where each emitter (a MultiSpeakerBRIR's loudspeakers) is
     * seen from the listener; NULL for one emitter, or none given. */
    es_sofa_pose *emitter;
    es_ir **sets;         /* [count], each inputs x outputs, `taps` long */
    /* AmbisonicsDRIR (a room in spherical harmonics, field_layout.h):
     * its order (0: not one) and its channels' normalisation; each set's
     * outputs are its SH channels in ACN order (FuMa's W X Y Z at first
     * order). */
    int field_order;
    es_ambi_norm field_norm;
} es_sofa;

/* Reads `path` (rate: the stream's; 0 keeps the file's). NULL and one
 * line naming the file and what is wrong or missing: not SOFA, damaged,
 * a convention or data type it does not read, sizes that do not agree, a
 * sample or delay that is not a finite number, or a file libmysofa could
 * not finish reading in time or crashed on (sofa_guard.c: it reads in a
 * child process, as libmysofa 1.3 loops for ever on some damaged files). */
es_sofa *es_sofa_load(const char *path, double rate, char *err, size_t n);
/* The same in this process, with no time limit: the child's reader, and
 * the fuzz target's (which runs libFuzzer's own limits). */
es_sofa *es_sofa_read(const char *path, double rate, char *err, size_t n);
/* The size of `path` when it is a regular file (a FIFO would block the
 * reader); -1 and one line naming it otherwise. */
long long es_sofa_regular(const char *path, char *err, size_t n);
/* How long es_sofa_load lets a file of `bytes` take: 10 s, and 1 s more
 * for each 20 MB (a large set reads at well over 100 MB/s). */
double es_sofa_time_limit(long long bytes);
void es_sofa_free(es_sofa *s);
/* What varies, as a JSON word ("source", "view", "fixed", "refitted") and
 * as what the measurements are ("head orientations"). */
const char *es_sofa_varies_key(es_sofa_varies v);
const char *es_sofa_varies_words(es_sofa_varies v);
/* 1 when `path` names a SOFA file: by its .sofa ending, or a regular file
 * that begins with HDF5's signature (netCDF-4). */
int es_sofa_is_file(const char *path);
/* What a written set says about itself: a title, a comment (the room's
 * recipe), and the source's position in the listener's frame (metres:
 * the head's centre at the origin, x ahead at yaw 0, z up). */
typedef struct {
    const char *title, *comment;
    double source[3];
} es_sofa_about;

/* Writes `set` (head orientations of one source: SingleRoomSRIR) to
 * `path`, a file that must not exist yet (the caller's fresh name): a
 * SOFA file libmysofa and the other SOFA readers read, its filters as
 * doubles (sofa_write.c says how it keeps within libmysofa's limits, and
 * refuses a set past them). 0, or -1 with one line and no file. */
int es_sofa_write(const char *path, const es_sofa *set, const es_sofa_about *about, char *err,
                  size_t n);
/* 0 when a set of that size can be written (and read back: past
 * libmysofa's 256 MiB earshot reads it through netCDF alone); else -1
 * and one line saying how large it is and what fits. */
int es_sofa_write_fits(int count, int ears, int taps, char *err, size_t n);
/* 1 when readers built on libmysofa 1.3 read a set of that size as
 * es_sofa_write writes it (its filters within 256 MiB); 0 when only
 * readers through netCDF or HDF5 (earshot, the SOFA toolboxes) do. */
int es_sofa_libmysofa_reads(int count, int ears, int taps);

/* The measurement whose pose is nearest (great-circle angle) to the
 * direction (degrees); -1 for an empty set. */
int es_sofa_nearest(const es_sofa *s, float azimuth, float elevation);
/* The set that plays for a head at yaw, pitch and roll (degrees;
 * BINAURAL.md): the nearest head orientation, or for a set of sources
 * around a head the direction a source straight ahead in the room has
 * from the turned head (es_sofa_head_direction); set 0 for one fixed
 * measurement or refittings. -1 for an empty set. Only count, pose and
 * varies are read. */
int es_sofa_for_head(const es_sofa *s, float yaw, float pitch, float roll);
/* The direction a head at yaw, pitch and roll looks up in the set: for a
 * set of sources around a head, where a source straight ahead in the room
 * is seen from the head turned by yaw, then pitch, then roll (right ear
 * down); for head orientations, the view (yaw, pitch: a view carries no
 * up vector, so roll chooses nothing there). */
void es_sofa_head_direction(const es_sofa *s, float yaw, float pitch, float roll, float *azimuth,
                            float *elevation);

/* How a direction between the measured ones is heard: the nearest
 * measurement as it was measured (for experiments that must hear only
 * measured filters), or the measurements around it blended
 * (sofa_blend.c, sofa_interp.c). */
typedef enum { ES_INTERP_NEAREST, ES_INTERP_LINEAR } es_interp;
/* "nearest" or "linear": 0 and *how, or -1. */
int es_interp_parse(const char *text, es_interp *how);
const char *es_interp_name(es_interp how);

/* Up to three measurements and their weights (0..1, summing to 1). */
typedef struct {
    int count;
    int index[3];
    double weight[3];
} es_sofa_blend;

/* The blend for a direction (degrees, the set's frame): the enclosing
 * triangle's barycentric weights, two either side along a ring for a set
 * on one great circle, else the nearest; always the nearest alone for
 * ES_INTERP_NEAREST, on a measured direction, for one fixed measurement
 * (set 0). 0, or -1 for an empty set. Only count, pose and varies are
 * read. */
int es_sofa_blend_for(const es_sofa *s, float azimuth, float elevation, es_interp how,
                      es_sofa_blend *b);
/* The blend's filter: per path, the responses moved so that their onsets
 * meet at the weighted mean of theirs (a fractional delay), then summed
 * by weight; a blend of one is that set, sample for sample. NULL and one
 * line when out of memory. */
es_ir *es_sofa_blend_ir(const es_sofa *s, const es_sofa_blend *b, char *err, size_t n);
/* Where a response first reaches -20 dB of its peak, in samples, to a
 * fraction of one (0 for silence). */
double es_sofa_onset(const float *h, int taps);

/* A room of head orientations split in time (sofa_split.c): the head
 * part, which switches with the head, and one tail for every orientation.
 * `--split` says where: ES_SPLIT_AUTO (the room's mixing time), a time
 * in ms, or ES_SPLIT_NONE (whole sets). */
#define ES_SPLIT_AUTO (-1.0)
#define ES_SPLIT_NONE 0.0
/* "auto", "none" or milliseconds (1 to 10000) into the double at `ms`:
 * 0, or -1 and what to give in `why` (an option table's parser, --split). */
int es_split_parse(const char *text, void *ms, char *why, size_t n);
/* The set a head ahead (yaw, pitch and roll 0) plays: the tail's. */
int es_sofa_reference(const es_sofa *s);
/* The reference's mixing time by echo density, ms after its direct
 * sound (*direct, samples); -1 when the response never mixes (an
 * anechoic set, a response shorter than the window). */
double es_sofa_mixing_ms(const es_sofa *s, int *direct);
/* Where `s` splits for `ms` (ES_SPLIT_*, or milliseconds): *at in
 * samples, 0 for whole sets (none asked, one measurement, refittings, a
 * room that never mixes or ends before the split); `why` says which and
 * where in words. 0 always (a split that cannot be is whole). */
int es_sofa_split_at(const es_sofa *s, double ms, int *at, char *why, size_t n);
/* Splits every set of `s` at `at` (> 0): each becomes its head (its
 * first `at` samples, then a 5 ms fade out), s->taps the heads' length;
 * returns the tail, the reference set's response from sample `at` on,
 * faded in over the same 5 ms (its sample 0 is the room's sample `at`).
 * A head joined to the tail (es_sofa_join) is the reference's response
 * exactly. NULL and one line when out of memory (s is then unusable). */
es_ir *es_sofa_split(es_sofa *s, int at, char *err, size_t n);
/* One filter: the head with the tail added from sample `at` (tail may be
 * NULL: the head alone). NULL and one line when out of memory. */
es_ir *es_sofa_join(const es_ir *head, const es_ir *tail, int at, char *err, size_t n);

/* Loudspeakers on headphones (sofa_speakers.c): a file laid out as a
 * loudspeaker layout names it (stereo, 5.0, 5.1, 7.1, 7.1.4: ITU-R
 * BS.2051's places, a WAV file's channel order) through a set with one
 * emitter per loudspeaker (MultiSpeakerBRIR). The channels of `name`, or
 * 0 when it is no such layout. */
int es_speaker_layout_channels(const char *name);
/* The layout's places (BS.2051's, distance 1) and which channel is its
 * LFE (lfe[c] 1), places[12] and lfe[12]: the count, 0 for no such
 * layout. */
int es_speaker_layout_places(const char *name, es_sofa_pose *places, int *lfe);
/* "stereo, 5.0, 5.1, 7.1, 7.1.4", for messages. */
const char *es_speaker_layout_names(void);
/* Every set of `s` made one of the layout's channels x the receivers:
 * each channel through the emitter nearest its place (within 45 degrees),
 * the LFE through the front left's and right's at -3 dB each; s->inputs
 * the layout's channels, s->emitter their loudspeakers' places. 0 and the
 * mapping in words in `note`, or -1 and one line (no such layout, a set
 * without emitter positions, a channel with no loudspeaker near). */
int es_sofa_speakers(es_sofa *s, const char *layout, char *note, size_t nn, char *err, size_t n);

#endif
