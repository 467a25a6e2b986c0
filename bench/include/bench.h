/* `earshot bench` and the standalone `earshot-bench`: engine speed on this
 * machine, as a table or JSON. Needs nothing but the engine library. */
#ifndef ES_BENCH_H
#define ES_BENCH_H

/* argv[0] is the subcommand or program name. Returns the exit status. */
int es_bench_main(int argc, char **argv);

#endif
