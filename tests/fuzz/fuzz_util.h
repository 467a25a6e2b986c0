/* What the fuzz targets share: a private folder per process for the bytes
 * a parser reads from a file, and the input as a NUL-ended string. Each
 * target defines LLVMFuzzerTestOneInput; libFuzzer drives it (scripts/fuzz),
 * and replay.c runs it over the committed corpora in every ctest. */
#ifndef ES_FUZZ_UTIL_H
#define ES_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The folder (made on first use, removed at exit). */
const char *fuzz_dir(void);
/* Writes the bytes to fuzz_dir()/name; the path (static storage). */
const char *fuzz_file(const char *name, const uint8_t *data, size_t size);
/* The bytes with a NUL after them (freed by the next call). */
char *fuzz_text(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
