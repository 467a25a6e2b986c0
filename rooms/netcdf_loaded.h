/* libnetcdf's calls through a table loaded when first needed (internal to
 * rooms/; core/library_loader.h says why): only writing a SOFA set needs
 * it, and reading one's arrays in the reader's child process
 * (sofa_netcdf.c); linked it would map HDF5, curl, TLS and LDAP into
 * every earshot process (a render's resident memory 7.5 MB -> 16.8 MB).
 * Include this,
 * not <netcdf.h>: the calls keep their names, each one a macro for its
 * table entry. Every way in calls es_netcdf_load() first. */
#ifndef ES_NETCDF_LOADED_H
#define ES_NETCDF_LOADED_H

#include <stddef.h>

#include <netcdf.h>

#define ES_NETCDF_CALLS(X)                                                                    \
    X(nc_close) X(nc_create) X(nc_def_dim) X(nc_def_var) X(nc_def_var_chunking)              \
    X(nc_enddef) X(nc_get_att_text) X(nc_get_vara_float) X(nc_inq_attlen) X(nc_inq_dimid)    \
    X(nc_inq_dimlen) X(nc_inq_var) X(nc_inq_varid) X(nc_open) X(nc_put_att_text)             \
    X(nc_put_var_double) X(nc_put_vara_double) X(nc_strerror)

typedef struct {
#define ES_NETCDF_SLOT(name) __typeof__(name) *name;
    ES_NETCDF_CALLS(ES_NETCDF_SLOT)
#undef ES_NETCDF_SLOT
} es_netcdf_api;

extern es_netcdf_api es_libnetcdf;

/* Loads Debian 12's libnetcdf.so.19 once: 1, or 0 with why in `why`. */
int es_netcdf_load(char *why, size_t n);

#ifndef ES_NETCDF_LOADER
#define nc_close (es_libnetcdf.nc_close)
#define nc_create (es_libnetcdf.nc_create)
#define nc_def_dim (es_libnetcdf.nc_def_dim)
#define nc_def_var (es_libnetcdf.nc_def_var)
#define nc_def_var_chunking (es_libnetcdf.nc_def_var_chunking)
#define nc_enddef (es_libnetcdf.nc_enddef)
#define nc_get_att_text (es_libnetcdf.nc_get_att_text)
#define nc_get_vara_float (es_libnetcdf.nc_get_vara_float)
#define nc_inq_attlen (es_libnetcdf.nc_inq_attlen)
#define nc_inq_dimid (es_libnetcdf.nc_inq_dimid)
#define nc_inq_dimlen (es_libnetcdf.nc_inq_dimlen)
#define nc_inq_var (es_libnetcdf.nc_inq_var)
#define nc_inq_varid (es_libnetcdf.nc_inq_varid)
#define nc_open (es_libnetcdf.nc_open)
#define nc_put_att_text (es_libnetcdf.nc_put_att_text)
#define nc_put_var_double (es_libnetcdf.nc_put_var_double)
#define nc_put_vara_double (es_libnetcdf.nc_put_vara_double)
#define nc_strerror (es_libnetcdf.nc_strerror)
#endif

#endif
