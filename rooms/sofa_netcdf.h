/* A SOFA file's arrays as netCDF reads them (sofa_netcdf.c; internal to
 * rooms/): what sofa.c takes in place of libmysofa's reading, which is
 * wrong for some valid files. */
#ifndef ES_SOFA_NETCDF_H
#define ES_SOFA_NETCDF_H

#include <stddef.h>

struct MYSOFA_HRTF;

/* Replaces the arrays of `h` that earshot reads (Data.IR,
 * Data.SamplingRate, Data.Delay, ListenerView, SourcePosition) with
 * netCDF's reading of `path`, as floats in the file's order. 1: done;
 * 0: netCDF cannot be loaded or does not open the file, `why` says why in
 * a few words and `h` is as libmysofa read it; -1: the file refused, one
 * line naming it in `err` (a Data.IR that is not numbers of floating
 * point, an array too large). */
int es_sofa_netcdf_arrays(struct MYSOFA_HRTF *h, const char *path, char *why, size_t wn,
                          char *err, size_t n);
/* The whole file as netCDF alone reads it, laid out as libmysofa lays a
 * file out (the dimensions, the attributes SOFAConventions, DataType and
 * the others earshot checks, every array earshot reads with its Type and
 * Units; mysofa_free frees it): for a file libmysofa does not read. NULL
 * and why in `why` (netCDF cannot be loaded or does not open it: err
 * empty), or a refusal in `err`. */
struct MYSOFA_HRTF *es_sofa_netcdf_read(const char *path, char *why, size_t wn, char *err,
                                        size_t n);

#endif
