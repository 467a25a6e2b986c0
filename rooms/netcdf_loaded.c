/* libnetcdf's table (netcdf_loaded.h). */
#define ES_NETCDF_LOADER
#include "netcdf_loaded.h"
#include "core/library_loader.h"

es_netcdf_api es_libnetcdf;

#define ES_NETCDF_NAME(name) #name,
static const char *const names[] = {ES_NETCDF_CALLS(ES_NETCDF_NAME)};

static es_dl_table netcdf = {.soname = "libnetcdf.so.19", .names = names,
                             .table = &es_libnetcdf,
                             .count = (int)(sizeof names / sizeof *names),
                             .once = PTHREAD_ONCE_INIT};

static void open_netcdf(void)
{
    _Static_assert(sizeof es_libnetcdf == sizeof names / sizeof *names * sizeof(void (*)(void)),
                   "one function pointer a call");
    es_dl_table_open(&netcdf);
}

int es_netcdf_load(char *why, size_t n)
{
    return es_dl_table_load(&netcdf, open_netcdf, why, n);
}
