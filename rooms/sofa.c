/* SOFA filter sets through libmysofa (sofa.h). libmysofa's easy API reads
 * only head-related sets (it checks for SimpleFreeFieldHRIR and
 * interpolates them); room sets come through its reader, mysofa_load,
 * whose arrays are laid out as the file's dimensions say: Data.IR is
 * M x R x N, or M x R x E x N with several emitters, and Data.Delay is
 * I x R, M x R, or the same with E. The arrays themselves are netCDF's
 * reading where netCDF can be loaded (sofa_netcdf.c: libmysofa misreads
 * some valid files), libmysofa's otherwise. */
#include <math.h>
#include <mysofa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "irfile.h"
#include "sofa.h"

#define ES_SOFA_PI 3.14159265358979323846
#include "sofa_netcdf.h"

/* What earshot reads: the conventions whose Data.IR are filters, and what
 * varies between their measurements. */
static const struct {
    const char *name;
    es_sofa_varies varies;
} conventions[] = {
    {"SimpleFreeFieldHRIR", ES_SOFA_SOURCE},
    {"SingleRoomSRIR", ES_SOFA_VIEW},
    {"SingleRoomMIMOSRIR", ES_SOFA_VIEW},
    {"MultiSpeakerBRIR", ES_SOFA_VIEW},
    {"SingleRoomDRIR", ES_SOFA_VIEW},
    {"GeneralFIR", ES_SOFA_VIEW},
    {"SimpleHeadphoneIR", ES_SOFA_REFITTED},
    /* A room in spherical harmonics: one measurement plays (the first;
     * the others are other places in the room), turned by rotation. */
    {"AmbisonicsDRIR", ES_SOFA_FIXED},
};

#define SOFA_DELAY_MAX_S 10.0

/* Each es_sofa_varies: its word in JSON, and what its measurements are. */
static const struct {
    const char *key, *words;
} varies_names[] = {
    [ES_SOFA_SOURCE] = {"source", "source directions"},
    [ES_SOFA_VIEW] = {"view", "head orientations"},
    [ES_SOFA_FIXED] = {"fixed", "measurement"},
    [ES_SOFA_REFITTED] = {"refitted", "fittings"},
};

const char *es_sofa_varies_key(es_sofa_varies v)
{
    return (unsigned)v < sizeof varies_names / sizeof *varies_names ? varies_names[v].key : "?";
}

const char *es_sofa_varies_words(es_sofa_varies v)
{
    return (unsigned)v < sizeof varies_names / sizeof *varies_names ? varies_names[v].words
                                                                      : "measurements";
}

static const char *mysofa_says(int code)
{
    switch (code) {
    case MYSOFA_INVALID_FORMAT: return "not a SOFA file (no HDF5 structure that libmysofa reads)";
    case MYSOFA_UNSUPPORTED_FORMAT: return "an HDF5 layout libmysofa does not read";
    case MYSOFA_NO_MEMORY: return "out of memory reading it";
    case MYSOFA_READ_ERROR: return "cannot be read (cut short or damaged)";
    case MYSOFA_INVALID_ATTRIBUTES: return "its attributes are not SOFA's";
    case MYSOFA_INVALID_DIMENSIONS: return "its dimensions are not SOFA's";
    case MYSOFA_INVALID_DIMENSION_LIST: return "a variable's dimensions are not SOFA's";
    case MYSOFA_INVALID_COORDINATE_TYPE: return "a position's Type is neither cartesian nor spherical";
    default: return "damaged (libmysofa could not read it)";
    }
}

/* Where varied poses come from: M x C when they vary, I x C when fixed. */
static int varies_by(const struct MYSOFA_ARRAY *a, unsigned m)
{
    return a->values && a->elements == 3 * m && m > 1;
}

/* Data.Delay for measurement m, receiver r, emitter e, in the file's
 * samples: whichever of I x R, M x R, I x R x E, M x R x E it holds. */
static int delay_at(const struct MYSOFA_HRTF *h, unsigned m, unsigned r, unsigned e, double *d)
{
    const struct MYSOFA_ARRAY *a = &h->DataDelay;
    const unsigned R = h->R, E = h->E, M = h->M;
    size_t k;
    if (!a->values || a->elements == 0)
        return *d = 0, 0;
    if (a->elements == R)
        k = r;
    else if (a->elements == (size_t)M * R)
        k = (size_t)m * R + r;
    else if (a->elements == (size_t)R * E)
        k = (size_t)r * E + e;
    else if (a->elements == (size_t)M * R * E)
        k = ((size_t)m * R + r) * E + e;
    else
        return -1;
    *d = a->values[k];
    return 0;
}

static void free_rows(float **rows, size_t count)
{
    for (size_t k = 0; rows && k < count; k++)
        free(rows[k]);
    free(rows);
}

void es_sofa_free(es_sofa *s)
{
    if (!s)
        return;
    for (int m = 0; s->sets && m < s->count; m++)
        es_ir_destroy(s->sets[m]);
    free(s->sets);
    free(s->pose);
    free(s->emitter);
    free(s);
}

/* `alone`, below: why netCDF did not read the arrays (sofa_netcdf.h), or
 * NULL when it did. A refusal that may be libmysofa's misreading rather
 * than the file's fault ends with it. */
#define ALONE_FMT "; netCDF, which reads such arrays, did not read them: %s"

/* The convention's row in conventions[], once the file's attributes say
 * it holds filters earshot reads; -1 said. */
static int convention_of(const char *path, const struct MYSOFA_HRTF *h, char *err, size_t n)
{
    const char *conv = mysofa_getAttribute(h->attributes, "SOFAConventions");
    const char *type = mysofa_getAttribute(h->attributes, "DataType");
    if (!conv) {
        snprintf(err, n, "%s: no SOFAConventions attribute: not a SOFA file", path);
        return -1;
    }
    int which = -1;
    for (size_t k = 0; k < sizeof conventions / sizeof *conventions; k++)
        if (!strcmp(conv, conventions[k].name))
            which = (int)k;
    if (which < 0) {
        snprintf(err, n, "%s: convention '%.40s' is not one earshot reads (SimpleFreeFieldHRIR, "
                 "SingleRoomSRIR, SingleRoomMIMOSRIR, MultiSpeakerBRIR, SingleRoomDRIR, "
                 "GeneralFIR, SimpleHeadphoneIR, AmbisonicsDRIR)", path, conv);
        return -1;
    }
    /* AmbisonicsDRIR is GeneralFIRE's: FIR with emitters. */
    const int fire = !strcmp(conv, "AmbisonicsDRIR") && type && !strcmp(type, "FIRE");
    if (!type || (strcmp(type, "FIR") != 0 && !fire)) {
        snprintf(err, n, "%s: DataType '%.20s': earshot reads FIR sets only", path,
                 type ? type : "(none)");
        return -1;
    }
    return which;
}

/* Data.IR holds M x R x E x N values, and, where libmysofa alone read
 * them, not every one 0: libmysofa reads a Data.IR deflated without the
 * shuffle filter as noise or silence, and one stored as float not at
 * all. 0, or -1 said. */
static int check_filters(const char *path, const struct MYSOFA_HRTF *h, const char *alone,
                         char *err, size_t n)
{
    const unsigned M = h->M, R = h->R, E = h->E ? h->E : 1, N = h->N;
    const size_t count = h->DataIR.elements;
    if (alone && count == 0 && M && R && N) {
        snprintf(err, n, "%s: Data.IR holds no values libmysofa reads (it reads arrays stored "
                 "as double only)" ALONE_FMT, path, alone);
        return -1;
    }
    if (M == 0 || R == 0 || N == 0 || !h->DataIR.values || count != (size_t)M * R * E * N) {
        snprintf(err, n, "%s: Data.IR holds %zu values, not M x R x E x N = %u x %u x %u x %u",
                 path, count, M, R, E, N);
        return -1;
    }
    size_t k = 0;
    while (alone && k < count && h->DataIR.values[k] == 0)
        k++;
    if (alone && k == count) {
        snprintf(err, n, "%s: every Data.IR value reads as 0 through libmysofa, as one "
                 "deflated without the shuffle filter does" ALONE_FMT, path, alone);
        return -1;
    }
    return 0;
}

/* The file's rate: Data.SamplingRate of I, or of M when every
 * measurement's is the same. 0, or -1 said. */
static int file_rate_of(const char *path, const struct MYSOFA_HRTF *h, double *rate, char *err,
                        size_t n)
{
    const struct MYSOFA_ARRAY *a = &h->DataSamplingRate;
    if (!a->values || a->elements < 1 ||
        !(a->values[0] >= 1000 && a->values[0] <= 768000)) {
        snprintf(err, n, "%s: Data.SamplingRate missing or outside 1000..768000 Hz", path);
        return -1;
    }
    if (a->elements != 1 && a->elements != h->M) {
        snprintf(err, n, "%s: Data.SamplingRate holds %u values, neither one (I) nor one a "
                 "measurement (M = %u)", path, a->elements, h->M);
        return -1;
    }
    for (unsigned m = 1; m < a->elements; m++)
        if (a->values[m] != a->values[0]) {
            snprintf(err, n, "%s: Data.SamplingRate is %g Hz at measurement 1 but %g Hz at "
                     "measurement %u: earshot plays a set at one rate", path, a->values[0],
                     a->values[m], m + 1);
            return -1;
        }
    *rate = a->values[0];
    return 0;
}

/* The largest Data.Delay, in the file's samples, every one checked. 0,
 * or -1 said. */
static int max_delay_of(const char *path, const struct MYSOFA_HRTF *h, double file_rate,
                        double *max_delay, char *err, size_t n)
{
    const unsigned M = h->M, R = h->R, E = h->E ? h->E : 1;
    *max_delay = 0;
    for (unsigned m = 0; m < M; m++)
        for (unsigned r = 0; r < R; r++)
            for (unsigned e = 0; e < E; e++) {
                double d;
                if (delay_at(h, m, r, e, &d) != 0) {
                    snprintf(err, n, "%s: Data.Delay holds %u values, none of I x R, M x R, "
                             "I x R x E, M x R x E", path, h->DataDelay.elements);
                    return -1;
                }
                if (!(d >= 0 && d <= SOFA_DELAY_MAX_S * file_rate)) {
                    snprintf(err, n, "%s: Data.Delay %g at measurement %u, receiver %u: not "
                             "a delay (0 to %g s)", path, d, m + 1, r + 1, SOFA_DELAY_MAX_S);
                    return -1;
                }
                *max_delay = d > *max_delay ? d : *max_delay;
            }
    return 0;
}

/* What varies and each measurement's pose, in spherical degrees
 * (mysofa_tospherical converts every position array the file gave as
 * cartesian). 0, or -1 said. */
static int poses_of(es_sofa *s, struct MYSOFA_HRTF *h, int which, const char *path, char *err,
                    size_t n)
{
    const unsigned M = h->M;
    mysofa_tospherical(h);
    const struct MYSOFA_ARRAY *poses = NULL;
    s->varies = M == 1 ? ES_SOFA_FIXED : conventions[which].varies;
    if (s->varies == ES_SOFA_REFITTED)
        ; /* no pose chooses between fittings */
    else if (s->varies == ES_SOFA_VIEW && varies_by(&h->ListenerView, M))
        poses = &h->ListenerView;
    else if (varies_by(&h->SourcePosition, M))
        poses = &h->SourcePosition, s->varies = ES_SOFA_SOURCE;
    else if (M > 1) {
        snprintf(err, n, "%s: %u measurements, but neither ListenerView nor SourcePosition "
                 "varies between them: no orientation to choose by", path, M);
        return -1;
    }
    for (unsigned m = 0; poses && m < M; m++) {
        const float *v = poses->values + 3 * (size_t)m;
        if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2])) {
            snprintf(err, n, "%s: measurement %u's position is not a finite number", path, m + 1);
            return -1;
        }
        s->pose[m] = (es_sofa_pose){v[0], v[1], v[2]};
    }
    return 0;
}

/* A position of `a` (spherical after mysofa_tospherical: azimuth and
 * elevation in degrees, distance) at `index` as x, y, z; 0 when absent. */
static void cartesian(const struct MYSOFA_ARRAY *a, size_t index, double xyz[3])
{
    xyz[0] = xyz[1] = xyz[2] = 0;
    if (!a->values || a->elements < 3 * (index + 1))
        return;
    const float *v = a->values + 3 * index;
    const double az = v[0] * ES_SOFA_PI / 180, el = v[1] * ES_SOFA_PI / 180;
    xyz[0] = v[2] * cos(el) * cos(az);
    xyz[1] = v[2] * cos(el) * sin(az);
    xyz[2] = v[2] * sin(el);
}

/* Where each emitter (a MultiSpeakerBRIR's loudspeakers) is seen from the
 * listener: SourcePosition (the array's centre) + EmitterPosition (each
 * loudspeaker from it) - ListenerPosition, the first measurement's, as
 * spherical degrees. NULL emitter for one emitter or positions absent or
 * not numbers (the set then plays by channel order alone). */
static void emitters_of(es_sofa *s, const struct MYSOFA_HRTF *h)
{
    const unsigned E = h->E;
    const struct MYSOFA_ARRAY *ep = &h->EmitterPosition;
    if (E < 2 || !ep->values || (ep->elements != 3 * E && ep->elements != 3 * E * h->M))
        return;
    const size_t stride = ep->elements == 3 * E ? 1 : h->M; /* E x C x M: the first m */
    es_sofa_pose *out = calloc(E, sizeof *out);
    double src[3], lis[3];
    cartesian(&h->SourcePosition, 0, src);
    cartesian(&h->ListenerPosition, 0, lis);
    for (unsigned e = 0; out && e < E; e++) {
        const float *v3[3] = {ep->values + (3 * e + 0) * stride, ep->values + (3 * e + 1) * stride,
                              ep->values + (3 * e + 2) * stride};
        const double az = *v3[0] * ES_SOFA_PI / 180, el = *v3[1] * ES_SOFA_PI / 180, r = *v3[2];
        const double x = src[0] - lis[0] + r * cos(el) * cos(az),
                     y = src[1] - lis[1] + r * cos(el) * sin(az),
                     z = src[2] - lis[2] + r * sin(el);
        const double dist = sqrt(x * x + y * y + z * z);
        if (!isfinite(dist) || dist == 0) {
            free(out);
            return;
        }
        double azimuth = atan2(y, x) * 180 / ES_SOFA_PI;
        out[e] = (es_sofa_pose){(float)(azimuth < 0 ? azimuth + 360 : azimuth),
                                (float)(asin(z / dist) * 180 / ES_SOFA_PI), (float)dist};
    }
    s->emitter = out;
}

/* Measurement m's E x R filters into rows (row e * R + r, N each, made
 * here), every sample checked. 0, or -1 said (rows left to the caller). */
static int rows_of(const char *path, const struct MYSOFA_HRTF *h, unsigned m, float **rows,
                   const char *alone, char *err, size_t n)
{
    const unsigned R = h->R, E = h->E ? h->E : 1, N = h->N;
    for (unsigned r = 0; r < R; r++)
        for (unsigned e = 0; e < E; e++) {
            float *row = rows[(size_t)e * R + r] = malloc(N * sizeof(float));
            if (!row) {
                snprintf(err, n, "%s: out of memory", path);
                return -1;
            }
            const float *from = h->DataIR.values + (((size_t)m * R + r) * E + e) * N;
            for (unsigned t = 0; t < N; t++) {
                if (!isfinite(from[t])) {
                    const int k = snprintf(err, n, "%s: Data.IR sample %u of measurement %u, "
                                           "receiver %u is not a finite number", path, t + 1,
                                           m + 1, r + 1);
                    if (alone && k >= 0 && (size_t)k < n)
                        snprintf(err + k, n - (size_t)k, " through libmysofa, which misreads a "
                                 "Data.IR deflated without the shuffle filter" ALONE_FMT, alone);
                    return -1;
                }
                row[t] = from[t];
            }
        }
    return 0;
}

/* Each measurement: its E x R filters, resampled, then delayed. 0, or -1
 * said. */
static int sets_of(es_sofa *s, const struct MYSOFA_HRTF *h, const char *path, long shift_max,
                   const char *alone, char *err, size_t n)
{
    const unsigned M = h->M, R = h->R, E = h->E ? h->E : 1, N = h->N;
    const double ratio = s->rate / s->file_rate;
    const size_t paths = (size_t)R * E;
    float **rows = calloc(paths, sizeof *rows);
    if (!rows) {
        snprintf(err, n, "%s: out of memory", path);
        return -1;
    }
    long taps = 0;
    int rc = 0;
    for (unsigned m = 0; rc == 0 && m < M; m++) {
        long frames = N;
        if (rows_of(path, h, m, rows, alone, err, n) != 0 ||
            (s->rate != s->file_rate &&
             (frames = es_ir_resample(path, rows, (int)paths, N, s->file_rate, s->rate, err,
                                      n)) < 0)) {
            rc = -1;
            break;
        }
        if (m == 0)
            taps = frames + shift_max;
        es_ir *ir = s->sets[m] = es_ir_create((int)E, (int)R, (int)taps, s->rate);
        for (unsigned r = 0; ir && r < R; r++)
            for (unsigned e = 0; ir && e < E; e++) {
                double d = 0;
                delay_at(h, m, r, e, &d); /* its layout was checked before */
                const long shift = lround(d * ratio);
                float *dst = es_ir_path(ir, (int)e, (int)r);
                const long count = frames < taps - shift ? frames : taps - shift;
                if (dst)
                    memcpy(dst + shift, rows[(size_t)e * R + r], (size_t)count * sizeof(float));
                else
                    ir = NULL;
            }
        if (!ir) {
            snprintf(err, n, "%s: out of memory", path);
            rc = -1;
        }
        for (size_t k = 0; k < paths; k++) {
            free(rows[k]);
            rows[k] = NULL;
        }
    }
    free_rows(rows, paths);
    s->taps = (int)taps;
    return rc;
}

/* An AmbisonicsDRIR's order and normalisation: from its receivers
 * ((N+1)^2 SH channels), checked against AmbisonicsOrder where the file
 * gives it, and Data.IR's Normalization and ChannelOrdering (AmbiX's
 * ACN/SN3D when it gives none). 0, or -1 said. */
static int field_of(es_sofa *s, const struct MYSOFA_HRTF *h, const char *path, char *err,
                    size_t n)
{
    if (strcmp(s->convention, "AmbisonicsDRIR") != 0)
        return 0;
    const int order = (int)lround(sqrt((double)s->outputs)) - 1;
    const char *given = mysofa_getAttribute(h->attributes, "AmbisonicsOrder");
    const char *norm = mysofa_getAttribute(h->DataIR.attributes, "Normalization");
    const char *ordering = mysofa_getAttribute(h->DataIR.attributes, "ChannelOrdering");
    static const char *const norms[] = {[ES_AMBI_SN3D] = "sn3d", [ES_AMBI_N3D] = "n3d",
                                        [ES_AMBI_FUMA] = "fuma"};
    int which = norm ? -1 : ES_AMBI_SN3D;
    for (int k = 0; norm && k < 3; k++)
        which = !strcasecmp(norm, norms[k]) ? k : which;
    const int fuma_order = ordering && !strcasecmp(ordering, "fuma");
    if (order < 1 || order > ES_AMBI_ORDER_MAX || ES_AMBI_CHANNELS(order) != s->outputs ||
        (given && atoi(given) != order))
        snprintf(err, n, "%s: an AmbisonicsDRIR of %d receivers%s%s: not the (N+1)^2 SH "
                 "channels of an order 1 to %d", path, s->outputs, given ? ", order " : "",
                 given ? given : "", ES_AMBI_ORDER_MAX);
    else if (which < 0 || (ordering && strcasecmp(ordering, "acn") && !fuma_order) ||
             ((which == ES_AMBI_FUMA || fuma_order) && (order != 1 || which != ES_AMBI_FUMA ||
                                                         !fuma_order)))
        snprintf(err, n, "%s: Data.IR's Normalization '%.20s' and ChannelOrdering '%.20s': "
                 "earshot reads acn with sn3d or n3d, and fuma with fuma at first order", path,
                 norm ? norm : "", ordering ? ordering : "");
    else {
        s->field_order = order;
        s->field_norm = (es_ambi_norm)which;
        return 0;
    }
    return -1;
}

/* The checks and the layout, with h read; `alone` as ALONE_FMT says. NULL
 * and err on failure. */
static es_sofa *from_hrtf(const char *path, struct MYSOFA_HRTF *h, double rate,
                          const char *alone, char *err, size_t n)
{
    const int which = convention_of(path, h, err, n);
    double file_rate, max_delay;
    if (which < 0 || check_filters(path, h, alone, err, n) != 0 ||
        file_rate_of(path, h, &file_rate, err, n) != 0 ||
        max_delay_of(path, h, file_rate, &max_delay, err, n) != 0)
        return NULL;
    const unsigned M = h->M, R = h->R, E = h->E ? h->E : 1, N = h->N;
    const double to = rate > 0 ? rate : file_rate;
    const double ratio = to / file_rate;
    const long shift_max = lround(max_delay * ratio);
    const long filter = (long)ceil((double)N * ratio) + 1;
    if (filter + shift_max > ES_SOFA_TAPS_MAX ||
        (double)M * R * E * (double)(filter + shift_max) > ES_SOFA_SAMPLES_MAX) {
        snprintf(err, n, "%s: %u measurements of %u x %u filters of %ld taps: more than earshot "
                 "holds", path, M, E, R, filter + shift_max);
        return NULL;
    }
    es_sofa *s = calloc(1, sizeof *s);
    if (!s || !(s->pose = calloc(M, sizeof *s->pose)) || !(s->sets = calloc(M, sizeof *s->sets))) {
        es_sofa_free(s);
        snprintf(err, n, "%s: out of memory", path);
        return NULL;
    }
    snprintf(s->convention, sizeof s->convention, "%s",
             mysofa_getAttribute(h->attributes, "SOFAConventions"));
    s->count = (int)M;
    s->inputs = (int)E;
    s->outputs = (int)R;
    s->file_rate = file_rate;
    s->rate = to;
    s->max_delay = max_delay * ratio;
    if (poses_of(s, h, which, path, err, n) != 0 || field_of(s, h, path, err, n) != 0 ||
        sets_of(s, h, path, shift_max, alone, err, n) != 0) {
        es_sofa_free(s);
        return NULL;
    }
    emitters_of(s, h);
    return s;
}

/* HDF5's signature, where a SOFA file (netCDF-4) begins. */
static const char hdf5_magic[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};

int es_sofa_is_file(const char *path)
{
    const size_t n = strlen(path);
    if (n > 5 && !strcasecmp(path + n - 5, ".sofa"))
        return 1;
    /* Opened only when it is a regular file: a FIFO would block. */
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    FILE *f = fopen(path, "rb");
    char head[8] = {0};
    const int is = f && fread(head, 1, sizeof head, f) == sizeof head &&
                   !memcmp(head, hdf5_magic, sizeof head);
    if (f)
        fclose(f);
    return is;
}

long long es_sofa_regular(const char *path, char *err, size_t n)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, n, "%s: cannot open it", path);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, n, "%s: not a regular file", path);
        return -1;
    }
    return (long long)st.st_size;
}

es_sofa *es_sofa_read(const char *path, double rate, char *err, size_t n)
{
    /* A regular file only: libmysofa would block on a FIFO. */
    if (es_sofa_regular(path, err, n) < 0)
        return NULL;
    int code = 0;
    struct MYSOFA_HRTF *h = mysofa_load(path, &code);
    if (!h) {
        /* Past libmysofa's limits (a set over 256 MiB of filters, headers
         * past 32 MiB into the file): netCDF alone reads it, where it can
         * be loaded; else, or when it refuses the file too, libmysofa's
         * word stands. */
        char why[320], netcdf_err[600];
        h = es_sofa_netcdf_read(path, why, sizeof why, netcdf_err, sizeof netcdf_err);
        if (!h) {
            snprintf(err, n, "%s: %s", path, mysofa_says(code));
            return NULL;
        }
        es_sofa *s = from_hrtf(path, h, rate, NULL, err, n);
        mysofa_free(h);
        return s;
    }
    /* libmysofa for the attributes and dimensions; the arrays netCDF's,
     * where it can be had (sofa_netcdf.c says why). */
    char alone[320];
    const int through = es_sofa_netcdf_arrays(h, path, alone, sizeof alone, err, n);
    es_sofa *s = through < 0 ? NULL : from_hrtf(path, h, rate, through ? NULL : alone, err, n);
    mysofa_free(h);
    return s;
}

int es_sofa_for_head(const es_sofa *s, float yaw, float pitch, float roll)
{
    float azimuth, elevation;
    es_sofa_head_direction(s, yaw, pitch, roll, &azimuth, &elevation);
    es_sofa_blend b;
    return es_sofa_blend_for(s, azimuth, elevation, ES_INTERP_NEAREST, &b) != 0 ? -1
                                                                             : b.index[0];
}
