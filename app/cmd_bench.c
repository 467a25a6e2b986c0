#include "bench.h"
#include "commands.h"

int es_cmd_bench(int argc, char **argv)
{
    return es_bench_main(argc, argv);
}
