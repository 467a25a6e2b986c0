/* earshot-bench: the bench subcommand without the app's I/O libraries, for
 * machines (such as the GPU machine) that have only a compiler, FFTW3 and
 * CUDA. */
#include "bench.h"
#include "core/files.h"
#include "fftw_planner.h"

int main(int argc, char **argv)
{
    /* A closed standard stream is not reused by the next file opened. */
    if (es_std_streams_guard() != 0)
        return 1;
    es_fftw_wisdom_open(stderr);
    const int status = es_bench_main(argc, argv);
    es_fftw_wisdom_close(stderr);
    return status;
}
