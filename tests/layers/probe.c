/* A layer probe (tests/layers/CMakeLists.txt): one #include, compiled as a
 * file of one layer is compiled. ES_PROBE_HEADER is the header under test;
 * scripts/check-layers builds each probe and checks that it compiles, or
 * that it fails because that header is not found. */
#include ES_PROBE_HEADER

int es_layer_probe(void);
int es_layer_probe(void) { return 0; }
