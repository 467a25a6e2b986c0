/* What the C tests that drive the earshot binary share: a folder of their
 * own, shell commands run in it, its files read, and the tally.
 * app_test_start sets XDG_CONFIG_HOME to the folder (no remembered
 * settings from the machine) and turns FFTW wisdom off. */
#ifndef ES_APP_TEST_H
#define ES_APP_TEST_H

#include <stddef.h>

#include "audiofile.h"

extern char app_dir[256];     /* the test's folder */
extern char app_earshot[4096], app_make_wav[4096]; /* absolute paths */
extern int app_failures;

/* Takes argv[1] (earshot) and argv[2] (es_make_wav), makes the folder.
 * Exits 2 on a wrong call. */
void app_test_start(const char *name, int argc, char **argv);
/* Removes the folder, prints PASSED or FAILED; the exit status. */
int app_test_end(void);
void app_check(int ok, const char *what);
/* A shell command in the folder; its exit status. */
int app_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The folder's file `name` as a path. */
void app_path(char *out, size_t n, const char *name);
/* A file's lines holding `text`. */
int app_lines_with(const char *name, const char *text);
/* The first line of file `name` holding `text` into line (1), or 0. */
int app_line_with(const char *name, const char *text, char *line, size_t n);
/* A WAV of the folder: its channels (NULL on failure, said and counted). */
float **app_load(const char *name, es_audio_info *info);
/* A file of the folder, whole, into buf (NUL-terminated); its length. */
size_t app_read(const char *name, char *buf, size_t n);

/* app_windows.c: the residual of `got` against `want` over frames
 * from..from+n, in dB of want's energy there (of `floor_db` below full
 * scale, for a quieter window). */
double app_residual_db(float **got, float **want, int channels, long from, long n,
                       double floor_db);
/* wet.wav against `earshot render RENDER_ARGS dry.wav ref.wav` (the
 * folder's recording and its input), window by window: the residuals
 * into db[], their count (0 on failure, said and counted). */
int app_render_windows(const char *render_args, long window, double floor_db, double *db,
                       int most);
void app_print_windows(const char *what, double window_s, const double *db, int count);

#endif
