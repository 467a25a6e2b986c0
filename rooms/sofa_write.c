/* es_sofa_write: a set of head orientations as a SOFA file (AES69,
 * SingleRoomSRIR), through netCDF-4.
 *
 * libmysofa 1.3 reads an HDF5 object header only from the first 32 MiB of
 * a file, and netCDF-4 writes the headers' last parts when it closes the
 * file, after data already written: a set of 72 orientations of 2 s
 * (110 MB) written in one go is refused. So the file is written twice
 * over: every variable defined and every small one written, the file
 * closed (its headers now near its start), then opened again and Data.IR
 * written, contiguous, at its end. libmysofa also reads a contiguous
 * variable of up to 256 MiB (33.5 million doubles): 72 orientations of
 * 2 s at 48 kHz, or 360 of 0.9 s. A larger set is written all the same:
 * earshot reads it through netCDF alone (sofa_netcdf.c), and says that
 * readers built on libmysofa will not. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "netcdf_loaded.h"
#include "sofa.h"

/* libmysofa's limit on one contiguous variable. */
#define CONTIGUOUS_MAX 0x10000000ull

int es_sofa_write_fits(int count, int ears, int taps, char *err, size_t n)
{
    const double samples = (double)count * ears * taps;
    if (samples <= ES_SOFA_SAMPLES_MAX && taps <= ES_SOFA_TAPS_MAX)
        return 0;
    snprintf(err, n, "%d orientations x %d ears x %d taps is %.0f MB of filters; earshot holds "
             "at most %.0f million samples, %d taps a filter (fewer orientations, or a shorter "
             "room)", count, ears, taps, samples * sizeof(double) / 1e6,
             ES_SOFA_SAMPLES_MAX / 1e6, ES_SOFA_TAPS_MAX);
    return -1;
}

int es_sofa_libmysofa_reads(int count, int ears, int taps)
{
    return (double)count * ears * taps * sizeof(double) <= (double)CONTIGUOUS_MAX;
}

/* A double variable with its SOFA Type and Units (NULL: none). */
static int define(int nc, const char *name, int dims, const int *dim, const char *type,
                  const char *units, int *var)
{
    int rc = nc_def_var(nc, name, NC_DOUBLE, dims, dim, var);
    if (rc == NC_NOERR && type)
        rc = nc_put_att_text(nc, *var, "Type", strlen(type), type);
    if (rc == NC_NOERR && units)
        rc = nc_put_att_text(nc, *var, "Units", strlen(units), units);
    return rc;
}

static int text(int nc, const char *name, const char *value)
{
    return nc_put_att_text(nc, NC_GLOBAL, name, strlen(value), value);
}

/* One step of the file's writing: netCDF's status, NC_NOERR or the first
 * error, which ends the step. */
#define NC_STEP(call)                                                                     \
    do {                                                                                  \
        const int rc_ = (call);                                                           \
        if (rc_ != NC_NOERR)                                                              \
            return rc_;                                                                   \
    } while (0)

/* The global attributes: SOFA's, the convention's, and the room's own. */
static int write_attributes(int nc, const es_sofa_about *about)
{
    static const char *const fixed[][2] = {
        {"Conventions", "SOFA"},
        {"Version", "2.1"},
        {"SOFAConventions", "SingleRoomSRIR"},
        {"SOFAConventionsVersion", "1.0"},
        {"APIName", "earshot"},
        {"APIVersion", "1"},
        {"DataType", "FIR"},
        {"RoomType", "reverberant"},
        {"AuthorContact", ""},
        {"Organization", ""},
        {"License", "CC0-1.0"},
        {"ListenerShortName", "head"},
        {"ListenerDescription", "a head-related set's head; ListenerView: its yaw, "
                                "counter-clockwise from looking at the source"},
        {"ReceiverDescription", "the ears: left, right"},
        {"SourceDescription", "an omnidirectional source"},
    };
    char stamp[32];
    const time_t now = time(NULL);
    struct tm tm;
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", gmtime_r(&now, &tm));
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        NC_STEP(text(nc, fixed[k][0], fixed[k][1]));
    NC_STEP(text(nc, "Title", about->title));
    NC_STEP(text(nc, "Comment", about->comment));
    NC_STEP(text(nc, "RoomDescription", about->comment));
    NC_STEP(text(nc, "DateCreated", stamp));
    return text(nc, "DateModified", stamp);
}

/* The variables, by their ids in the file. */
typedef struct {
    int listener_position, listener_up, listener_view, receiver_position, source_position,
        emitter_position, rate, delay, ir;
} sofa_vars;

/* SingleRoomSRIR's dimensions and variables, Data.IR contiguous. */
static int define_variables(int nc, const es_sofa *set, sofa_vars *v)
{
    int dim_m, dim_r, dim_n, dim_c, dim_i, dim_e;
    NC_STEP(nc_def_dim(nc, "M", (size_t)set->count, &dim_m));
    NC_STEP(nc_def_dim(nc, "R", (size_t)set->outputs, &dim_r));
    NC_STEP(nc_def_dim(nc, "E", (size_t)set->inputs, &dim_e));
    NC_STEP(nc_def_dim(nc, "N", (size_t)set->taps, &dim_n));
    NC_STEP(nc_def_dim(nc, "C", 3, &dim_c));
    NC_STEP(nc_def_dim(nc, "I", 1, &dim_i));
    const int ic[2] = {dim_i, dim_c}, mc[2] = {dim_m, dim_c}, rci[3] = {dim_r, dim_c, dim_i};
    const int eci[3] = {dim_e, dim_c, dim_i}, mr[2] = {dim_m, dim_r};
    const int mrn[3] = {dim_m, dim_r, dim_n};
    NC_STEP(define(nc, "ListenerPosition", 2, ic, "cartesian", "metre", &v->listener_position));
    NC_STEP(define(nc, "ListenerUp", 2, ic, "cartesian", "metre", &v->listener_up));
    NC_STEP(define(nc, "ListenerView", 2, mc, "spherical", "degree, degree, metre",
                   &v->listener_view));
    NC_STEP(define(nc, "ReceiverPosition", 3, rci, "cartesian", "metre",
                   &v->receiver_position));
    NC_STEP(define(nc, "SourcePosition", 2, ic, "cartesian", "metre", &v->source_position));
    NC_STEP(define(nc, "EmitterPosition", 3, eci, "cartesian", "metre", &v->emitter_position));
    NC_STEP(define(nc, "Data.SamplingRate", 1, &dim_i, NULL, "hertz", &v->rate));
    NC_STEP(define(nc, "Data.Delay", 2, mr, NULL, NULL, &v->delay));
    NC_STEP(define(nc, "Data.IR", 3, mrn, NULL, NULL, &v->ir));
    return nc_def_var_chunking(nc, v->ir, NC_CONTIGUOUS, NULL);
}

/* Every variable but Data.IR: the positions, the head's orientations, the
 * rate, the delays (none). */
static int write_positions(int nc, const es_sofa *set, const es_sofa_about *about,
                           const sofa_vars *v)
{
    const int M = set->count, R = set->outputs, E = set->inputs;
    const double origin[3] = {0, 0, 0}, up[3] = {0, 0, 1};
    NC_STEP(nc_put_var_double(nc, v->listener_position, origin));
    NC_STEP(nc_put_var_double(nc, v->listener_up, up));
    NC_STEP(nc_put_var_double(nc, v->source_position, about->source));
    NC_STEP(nc_put_var_double(nc, v->rate, &set->rate));
    double *view = malloc(sizeof(double) * 3 * (size_t)M);
    double *ears = calloc(3 * (size_t)R, sizeof(double));
    double *zero = calloc((size_t)M * R + 3 * (size_t)E, sizeof(double));
    int rc = view && ears && zero ? NC_NOERR : NC_ENOMEM;
    for (int m = 0; view && m < M; m++) {
        view[3 * m] = set->pose[m].azimuth;
        view[3 * m + 1] = set->pose[m].elevation;
        view[3 * m + 2] = set->pose[m].distance;
    }
    /* The ears 9 cm either side of the head's centre, left first. */
    for (int r = 0; ears && r < R && R == 2; r++)
        ears[3 * r + 1] = r == 0 ? 0.09 : -0.09;
    if (rc == NC_NOERR)
        rc = nc_put_var_double(nc, v->listener_view, view);
    if (rc == NC_NOERR)
        rc = nc_put_var_double(nc, v->receiver_position, ears);
    if (rc == NC_NOERR)
        rc = nc_put_var_double(nc, v->delay, zero);
    if (rc == NC_NOERR)
        rc = nc_put_var_double(nc, v->emitter_position, zero);
    free(view);
    free(ears);
    free(zero);
    return rc;
}

/* Data.IR, a filter at a time, into the file opened again. */
static int write_filters(int nc, const es_sofa *set)
{
    const int N = set->taps;
    int var;
    NC_STEP(nc_inq_varid(nc, "Data.IR", &var));
    double *row = malloc(sizeof(double) * (size_t)N);
    int rc = row ? NC_NOERR : NC_ENOMEM;
    for (int m = 0; rc == NC_NOERR && m < set->count; m++)
        for (int r = 0; rc == NC_NOERR && r < set->outputs; r++) {
            const float *taps = set->sets[m]->taps[r];
            for (int t = 0; t < N; t++)
                row[t] = taps ? taps[t] : 0.0;
            const size_t start[3] = {(size_t)m, (size_t)r, 0}, count[3] = {1, 1, (size_t)N};
            rc = nc_put_vara_double(nc, var, start, count, row);
        }
    free(row);
    return rc;
}

/* Closes the file, whatever came before: the first error of the two. */
static int close_file(int nc, int rc)
{
    const int closed = nc_close(nc);
    return rc != NC_NOERR ? rc : closed;
}

int es_sofa_write(const char *path, const es_sofa *set, const es_sofa_about *about, char *err,
                  size_t n)
{
    if (set->varies != ES_SOFA_VIEW || set->inputs != 1 || set->count < 1 || set->outputs < 1 ||
        set->taps < 1) {
        snprintf(err, n, "%s: only a set of head orientations from one source is written", path);
        return -1;
    }
    if (es_sofa_write_fits(set->count, set->outputs, set->taps, err, n) != 0)
        return -1;
    char why[400];
    if (!es_netcdf_load(why, sizeof why)) {
        snprintf(err, n, "%s: cannot write SOFA: %s (package libnetcdf19)", path, why);
        return -1;
    }
    int nc, rc = nc_create(path, NC_NETCDF4 | NC_NOCLOBBER, &nc);
    if (rc != NC_NOERR) /* never a file that was there before */
        goto fail;
    sofa_vars v;
    rc = write_attributes(nc, about);
    if (rc == NC_NOERR)
        rc = define_variables(nc, set, &v);
    if (rc == NC_NOERR)
        rc = nc_enddef(nc);
    if (rc == NC_NOERR)
        rc = write_positions(nc, set, about, &v);
    rc = close_file(nc, rc);
    /* Again, for the filters alone (the top of the file says why). */
    if (rc == NC_NOERR && (rc = nc_open(path, NC_WRITE, &nc)) == NC_NOERR)
        rc = close_file(nc, write_filters(nc, set));
    if (rc == NC_NOERR)
        return 0;
    remove(path);
fail:
    snprintf(err, n, "%s: cannot write SOFA: %s", path, nc_strerror(rc));
    return -1;
}
