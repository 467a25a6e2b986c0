/* earshot-bench: the bench subcommand without the app's I/O libraries, for
 * machines (such as the GPU machine) that have only a compiler, FFTW3 and
 * CUDA. */
#include "bench.h"

int main(int argc, char **argv)
{
    return es_bench_main(argc, argv);
}
