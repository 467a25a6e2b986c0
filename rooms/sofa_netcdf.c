/* A SOFA file's arrays as netCDF reads them (sofa_netcdf.h).
 *
 * libmysofa 1.3 reads an array right only when it is stored as 64-bit
 * floats, as it is or deflated after HDF5's shuffle filter. A Data.IR
 * deflated without the shuffle (valid netCDF-4: `nccopy -d5` writes it)
 * it un-shuffles all the same, and hands back noise or, for sparse
 * filters, silence; an array of 32-bit floats it leaves empty. netCDF
 * reads each through HDF5 itself, so wherever netCDF can be loaded every
 * array earshot takes from a file is netCDF's, and libmysofa's reading
 * serves for the attributes and dimensions alone. This runs where
 * libmysofa does: in the reader's child process (sofa_guard.c), under
 * its time limit, so neither HDF5 nor netCDF is mapped by the process
 * that plays.
 *
 * A file libmysofa does not read at all (past its limits: no object
 * header past 32 MiB into the file, no contiguous variable over 256 MiB)
 * is read by netCDF alone (es_sofa_netcdf_read): its dimensions, the
 * attributes earshot checks, and every array with its Type and Units, as
 * libmysofa would have laid them out, so that the rest of the reading is
 * the same. */
#include <mysofa.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netcdf_loaded.h"
#include "sofa.h"
#include "sofa_netcdf.h"

/* The arrays earshot reads, and whether the variable holds the filters
 * (which must be floating point: integers would be a scale SOFA does not
 * give). */
static const struct {
    const char *name;
    size_t offset;
    int filters;
} arrays[] = {
    {"Data.IR", offsetof(struct MYSOFA_HRTF, DataIR), 1},
    {"Data.SamplingRate", offsetof(struct MYSOFA_HRTF, DataSamplingRate), 0},
    {"Data.Delay", offsetof(struct MYSOFA_HRTF, DataDelay), 0},
    {"ListenerView", offsetof(struct MYSOFA_HRTF, ListenerView), 0},
    {"SourcePosition", offsetof(struct MYSOFA_HRTF, SourcePosition), 0},
};

/* What the file alone gives besides (es_sofa_netcdf_read): the positions
 * libmysofa's reading supplies otherwise. */
static const struct {
    const char *name;
    size_t offset;
} positions[] = {
    {"ListenerPosition", offsetof(struct MYSOFA_HRTF, ListenerPosition)},
    {"ListenerUp", offsetof(struct MYSOFA_HRTF, ListenerUp)},
    {"ReceiverPosition", offsetof(struct MYSOFA_HRTF, ReceiverPosition)},
    {"EmitterPosition", offsetof(struct MYSOFA_HRTF, EmitterPosition)},
};

/* netCDF's types in the words its CDL uses. */
static const char *const type_names[] = {
    [NC_BYTE] = "byte",     [NC_CHAR] = "char",    [NC_SHORT] = "short",
    [NC_INT] = "int",       [NC_FLOAT] = "float",  [NC_DOUBLE] = "double",
    [NC_UBYTE] = "ubyte",   [NC_USHORT] = "ushort", [NC_UINT] = "uint",
    [NC_INT64] = "int64",   [NC_UINT64] = "uint64", [NC_STRING] = "string",
};

static const char *type_name(nc_type t)
{
    return t > 0 && (size_t)t < sizeof type_names / sizeof *type_names ? type_names[t]
                                                                        : "a user-defined type";
}

/* SOFA's variables have at most four dimensions (M x R x E x N). */
#define DIMS_MAX 4
/* Values read in one call: enough rows that a short array (M x R delays
 * of a thousand measurements) is not a thousand calls, few enough that
 * netCDF's conversion buffer for a large Data.IR stays small. */
#define SLAB_VALUES (1u << 20)

/* The variable's shape: its dimensions' lengths and their product. 0, or
 * -1 said. */
static int shape_of(int nc, int var, const char *path, const char *name, nc_type *type,
                    int *dims, size_t *len, size_t *total, char *err, size_t n)
{
    int ids[NC_MAX_VAR_DIMS];
    int rc = nc_inq_var(nc, var, NULL, type, dims, ids, NULL);
    if (rc == NC_NOERR && *dims > DIMS_MAX) {
        snprintf(err, n, "%s: %s has %d dimensions; SOFA's have at most %d", path, name, *dims,
                 DIMS_MAX);
        return -1;
    }
    *total = 1;
    for (int d = 0; rc == NC_NOERR && d < *dims; d++) {
        rc = nc_inq_dimlen(nc, ids[d], &len[d]);
        /* Past what earshot holds is refused before anything is read
         * (and within the unsigned int libmysofa counts in). */
        if (rc == NC_NOERR && len[d] && *total > (size_t)ES_SOFA_SAMPLES_MAX / len[d]) {
            snprintf(err, n, "%s: %s holds more values than earshot reads", path, name);
            return -1;
        }
        *total *= len[d];
    }
    if (rc != NC_NOERR) {
        snprintf(err, n, "%s: %s: %s", path, name, nc_strerror(rc));
        return -1;
    }
    return 0;
}

/* Reads one variable into `a`, in slabs along its first dimension. An
 * array the file does not have is left as libmysofa read it (empty). 0,
 * or -1 said. */
static int read_array(int nc, const char *path, const char *name, int filters,
                      struct MYSOFA_ARRAY *a, char *err, size_t n)
{
    int var, dims;
    nc_type type;
    size_t len[DIMS_MAX], total;
    if (nc_inq_varid(nc, name, &var) != NC_NOERR)
        return 0;
    if (shape_of(nc, var, path, name, &type, &dims, len, &total, err, n) != 0)
        return -1;
    const int number = type >= NC_BYTE && type <= NC_UINT64 && type != NC_CHAR;
    if (!number || (filters && type != NC_FLOAT && type != NC_DOUBLE)) {
        snprintf(err, n, "%s: %s is stored as %s; earshot reads %s", path, name, type_name(type),
                 filters ? "filters stored as double or float" : "numbers");
        return -1;
    }
    float *values = malloc(total ? total * sizeof *values : 1);
    if (!values) {
        snprintf(err, n, "%s: out of memory reading %s", path, name);
        return -1;
    }
    const size_t row = dims > 0 && len[0] ? total / len[0] : total;
    const size_t rows = dims > 0 ? len[0] : 1;
    const size_t step = row && row < SLAB_VALUES ? SLAB_VALUES / row : 1;
    int rc = NC_NOERR;
    for (size_t at = 0; rc == NC_NOERR && at < rows && total; at += step) {
        size_t start[DIMS_MAX] = {0}, count[DIMS_MAX];
        for (int d = 0; d < dims; d++)
            count[d] = len[d];
        if (dims > 0) {
            start[0] = at;
            count[0] = rows - at < step ? rows - at : step;
        }
        rc = nc_get_vara_float(nc, var, start, count, values + at * row);
    }
    if (rc != NC_NOERR) {
        free(values);
        snprintf(err, n, "%s: %s: %s", path, name,
                 rc == NC_ERANGE ? "a value past the range of a float" : nc_strerror(rc));
        return -1;
    }
    free(a->values);
    a->values = values;
    a->elements = (unsigned)total;
    return 0;
}

int es_sofa_netcdf_arrays(struct MYSOFA_HRTF *h, const char *path, char *why, size_t wn,
                          char *err, size_t n)
{
    char loaded[320];
    if (!es_netcdf_load(loaded, sizeof loaded)) {
        snprintf(why, wn, "%s", loaded);
        return 0;
    }
    int nc;
    const int opened = nc_open(path, NC_NOWRITE, &nc);
    if (opened != NC_NOERR) {
        snprintf(why, wn, "netCDF does not open it (%s)", nc_strerror(opened));
        return 0;
    }
    int rc = 1;
    for (size_t k = 0; rc == 1 && k < sizeof arrays / sizeof *arrays; k++) {
        struct MYSOFA_ARRAY *a = (struct MYSOFA_ARRAY *)((char *)h + arrays[k].offset);
        if (read_array(nc, path, arrays[k].name, arrays[k].filters, a, err, n) != 0)
            rc = -1;
    }
    nc_close(nc);
    return rc;
}

/* A text attribute of variable `var` (NC_GLOBAL: the file's), malloc'd
 * and NUL-ended; NULL when absent. */
static char *text_of(int nc, int var, const char *name)
{
    size_t len;
    if (nc_inq_attlen(nc, var, name, &len) != NC_NOERR || len > 65536)
        return NULL;
    char *v = malloc(len + 1);
    if (v && nc_get_att_text(nc, var, name, v) != NC_NOERR) {
        free(v);
        return NULL;
    }
    if (v)
        v[len] = '\0';
    return v;
}

/* Prepends the attribute `name` of `var`, where the file has it, to
 * *list: 0, or -1 out of memory. */
static int keep_text(int nc, int var, const char *name, struct MYSOFA_ATTRIBUTE **list)
{
    char *value = text_of(nc, var, name);
    if (!value)
        return 0;
    struct MYSOFA_ATTRIBUTE *a = malloc(sizeof *a);
    char *copy = malloc(strlen(name) + 1);
    if (!a || !copy) {
        free(a), free(copy), free(value);
        return -1;
    }
    strcpy(copy, name);
    *a = (struct MYSOFA_ATTRIBUTE){.next = *list, .name = copy, .value = value};
    *list = a;
    return 0;
}

/* The dimensions, 0 where the file has none. */
static int dimensions(int nc, struct MYSOFA_HRTF *h)
{
    static const struct {
        const char *name;
        size_t offset;
    } dims[] = {{"I", offsetof(struct MYSOFA_HRTF, I)}, {"C", offsetof(struct MYSOFA_HRTF, C)},
                {"R", offsetof(struct MYSOFA_HRTF, R)}, {"E", offsetof(struct MYSOFA_HRTF, E)},
                {"N", offsetof(struct MYSOFA_HRTF, N)}, {"M", offsetof(struct MYSOFA_HRTF, M)}};
    for (size_t k = 0; k < sizeof dims / sizeof *dims; k++) {
        int id;
        size_t len = 0;
        if (nc_inq_dimid(nc, dims[k].name, &id) == NC_NOERR)
            nc_inq_dimlen(nc, id, &len);
        if (len > 0xffffffffu)
            return -1;
        *(unsigned *)((char *)h + dims[k].offset) = (unsigned)len;
    }
    return 0;
}

/* Every array earshot reads, with its Type and Units: 0, or -1 said. */
static int all_arrays(int nc, struct MYSOFA_HRTF *h, const char *path, char *err, size_t n)
{
    for (size_t k = 0; k < sizeof arrays / sizeof *arrays + sizeof positions / sizeof *positions;
         k++) {
        const int mine = k < sizeof arrays / sizeof *arrays;
        const char *name = mine ? arrays[k].name : positions[k - sizeof arrays / sizeof *arrays].name;
        const size_t at = mine ? arrays[k].offset
                               : positions[k - sizeof arrays / sizeof *arrays].offset;
        struct MYSOFA_ARRAY *a = (struct MYSOFA_ARRAY *)((char *)h + at);
        if (read_array(nc, path, name, mine && arrays[k].filters, a, err, n) != 0)
            return -1;
        int var;
        if (nc_inq_varid(nc, name, &var) == NC_NOERR &&
            (keep_text(nc, var, "Type", &a->attributes) != 0 ||
             keep_text(nc, var, "Units", &a->attributes) != 0 ||
             keep_text(nc, var, "Normalization", &a->attributes) != 0 ||
             keep_text(nc, var, "ChannelOrdering", &a->attributes) != 0)) {
            snprintf(err, n, "%s: out of memory", path);
            return -1;
        }
    }
    return 0;
}

struct MYSOFA_HRTF *es_sofa_netcdf_read(const char *path, char *why, size_t wn, char *err,
                                        size_t n)
{
    err[0] = '\0';
    char loaded[320];
    if (!es_netcdf_load(loaded, sizeof loaded)) {
        snprintf(why, wn, "%s", loaded);
        return NULL;
    }
    int nc;
    const int opened = nc_open(path, NC_NOWRITE, &nc);
    if (opened != NC_NOERR) {
        snprintf(why, wn, "netCDF does not open it (%s)", nc_strerror(opened));
        return NULL;
    }
    struct MYSOFA_HRTF *h = calloc(1, sizeof *h);
    static const char *const globals[] = {"Conventions", "SOFAConventions", "DataType",
                                          "RoomType", "AmbisonicsOrder"};
    int ok = h != NULL;
    for (size_t k = 0; ok && k < sizeof globals / sizeof *globals; k++)
        ok = keep_text(nc, NC_GLOBAL, globals[k], &h->attributes) == 0;
    if (ok && dimensions(nc, h) != 0) {
        snprintf(err, n, "%s: a dimension past what earshot reads", path);
        ok = 0;
    }
    if (ok && all_arrays(nc, h, path, err, n) != 0)
        ok = 0;
    nc_close(nc);
    if (ok)
        return h;
    if (!err[0])
        snprintf(err, n, "%s: out of memory", path);
    if (h)
        mysofa_free(h);
    return NULL;
}
