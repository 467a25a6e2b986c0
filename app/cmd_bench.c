#include "bench.h"
#include "app.h"

int es_cmd_bench(int argc, char **argv)
{
    return es_bench_main(argc, argv);
}
