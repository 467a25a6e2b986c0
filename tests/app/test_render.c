/* earshot render end to end: WAV files written here, rendered by the
 * earshot binary, read back and compared with a float64 reference, for
 * every usable engine, several block sizes, layouts, a resampled IR, PCM
 * output, a wet/dry mix, an input over three of render's file chunks, and
 * no --block: the engine's offline plan, which -v names; no --engine: the
 * cheaper plan of cpu-partitioned's and cpu-nonuniform's.
 *
 *   test_render EARSHOT MAKE_WAV */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audiofile.h"
#include "irfile.h"
#include "reference.h"

static const char *earshot, *make_wav;
static char dir[256];
static int failures, runs;

static void path_in(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static void make(const char *name, const char *kind, int rate, int channels, long frames,
                 int seed, double gain)
{
    char cmd[1024], p[512];
    path_in(p, sizeof p, name);
    snprintf(cmd, sizeof cmd, "%s %s %s %d %d %ld %d %g", make_wav, p, kind, rate, channels,
             frames, seed, gain);
    if (system(cmd) != 0) {
        printf("FAIL could not run %s\n", cmd);
        exit(1);
    }
}

/* The first line of a file (the plan -v said), or "". */
static void first_line(const char *path, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f || !fgets(out, (int)n, f))
        out[0] = 0;
    if (f)
        fclose(f);
}

/* Renders IN with IR and compares with the reference built from the same
 * files (the IR as es_ir_load gives it, i.e. resampled where needed). */
static void render(const char *engine, int block, const char *in_name, const char *ir_name,
                   const char *extra, double wet, double limit_db)
{
    char in_path[512], ir_path[512], out_path[512], cmd[4096], err[512];
    path_in(in_path, sizeof in_path, in_name);
    path_in(ir_path, sizeof ir_path, ir_name);
    path_in(out_path, sizeof out_path, "out.wav");
    unlink(out_path);
    char block_arg[32] = "", plan_path[512];
    path_in(plan_path, sizeof plan_path, "plan.txt");
    if (block > 0)
        snprintf(block_arg, sizeof block_arg, "--block %d", block);
    /* Without --block, the offline plan, and -v says which. */
    snprintf(cmd, sizeof cmd, "%s render --engine %s %s --ir %s --wet %g %s %s %s %s%s", earshot,
             engine, block_arg, ir_path, wet, extra, in_path, out_path, block > 0 ? "" : "-v 2>",
             block > 0 ? "" : plan_path);
    runs++;
    int rc = system(cmd);
    if (block == 0 && rc == 0) {
        char plan[400], want[96];
        first_line(plan_path, plan, sizeof plan);
        snprintf(want, sizeof want, "earshot: render plan: %s, block ", engine);
        if (!strstr(plan, want)) {
            printf("FAIL %s: -v said '%s', not '%s...'\n", cmd, plan, want);
            failures++;
        } else {
            printf("     %s", plan);
        }
    }
    float **x = NULL, **y = NULL;
    es_audio_info xi, yi;
    if (rc != 0 || es_audiofile_load(in_path, &x, &xi, err, sizeof err) ||
        es_audiofile_load(out_path, &y, &yi, err, sizeof err)) {
        printf("FAIL %s: exit %d %s\n", cmd, rc, err);
        failures++;
        return;
    }
    es_ir_load_info li;
    es_ir *ir = es_ir_load(ir_path, xi.sample_rate, xi.channels, &li, err, sizeof err);
    const int frames = (int)(xi.frames + ir->length - 1);
    double **ref = es_ref_convolve(ir, x, (int)xi.frames, frames);
    for (int o = 0; o < ir->outputs; o++) /* the mix: wet ref + dry input */
        for (int t = 0; t < frames; t++)
            ref[o][t] = wet * ref[o][t] +
                        (1 - wet) * (t < xi.frames ? x[xi.channels == 1 ? 0 : o][t] : 0);
    double db = yi.frames == frames && yi.channels == ir->outputs
                    ? es_test_error_db(ir, y, ref, frames) : INFINITY;
    printf("%s %-16s block %4d %-10s %-10s %s: %lld frames (want %d), %d ch, error %.1f dB\n",
           db <= limit_db ? "ok  " : "FAIL", engine, block, in_name, ir_name,
           block > 0 ? extra : "(offline plan)",
           (long long)yi.frames, frames, yi.channels, db);
    failures += !(db <= limit_db);
    es_test_free_planar(ref, ir->outputs);
    es_test_free_planar(y, yi.channels);
    es_test_free_planar(x, xi.channels);
    es_ir_destroy(ir);
}

/* No --engine: the cheaper of cpu-partitioned's and cpu-nonuniform's
 * offline plans runs, and -v names it. */
static void default_engine(const char *in_name, const char *ir_name, const char *want)
{
    char in_path[512], ir_path[512], out_path[512], plan_path[512], cmd[2200];
    path_in(in_path, sizeof in_path, in_name);
    path_in(ir_path, sizeof ir_path, ir_name);
    path_in(out_path, sizeof out_path, "out.wav");
    path_in(plan_path, sizeof plan_path, "plan.txt");
    snprintf(cmd, sizeof cmd, "%s render -v --ir %s %s %s 2>%s", earshot, ir_path, in_path,
             out_path, plan_path);
    runs++;
    const int rc = system(cmd);
    char plan[400], prefix[96];
    first_line(plan_path, plan, sizeof plan);
    snprintf(prefix, sizeof prefix, "earshot: render plan: %s, ", want);
    const int ok = rc == 0 && strstr(plan, prefix);
    printf("%s no --engine, %s through %s: %s", ok ? "ok  " : "FAIL", in_name, ir_name,
           plan[0] ? plan : "(no plan said)\n");
    failures += !ok;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_render EARSHOT MAKE_WAV\n");
        return 2;
    }
    earshot = argv[1];
    make_wav = argv[2];
    snprintf(dir, sizeof dir, "%s/es-render-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    uint64_t rng = es_test_seed();
    int seed = (int)(rng % 100000);
    make("stereo.wav", "noise", 48000, 2, 30011, seed, 1.0);
    make("mono.wav", "noise", 48000, 1, 20000, seed + 1, 1.0);
    make("room2.wav", "decay", 48000, 2, 9000, seed + 2, 1.0);
    make("room1.wav", "decay", 48000, 1, 4001, seed + 3, 1.0);
    make("room4.wav", "decay", 48000, 4, 3000, seed + 4, 1.0);
    make("room44k.wav", "decay", 44100, 2, 4410, seed + 5, 1.0);
    /* Stays below full scale once convolved, for the PCM output check. */
    make("quiet.wav", "noise", 48000, 2, 30011, seed + 6, 0.02);
    /* Longer than two of render's 65536-frame file chunks, and with a
     * 1000-frame block a chunk is 65000 frames: blocks, chunks and the end
     * of the input fall in different places. */
    make("long.wav", "noise", 48000, 1, 150011, seed + 7, 1.0);

    for (int k = 0; es_engines[k]; k++) {
        char why[256];
        if (!es_engines[k]->probe(why, sizeof why))
            continue;
        const char *e = es_engines[k]->name;
        render(e, 256, "stereo.wav", "room2.wav", "", 1.0, -120);
        render(e, 1000, "stereo.wav", "room2.wav", "", 1.0, -120);
        render(e, 64, "stereo.wav", "room1.wav", "", 1.0, -120);
        render(e, 128, "stereo.wav", "room4.wav", "", 1.0, -120);
        render(e, 512, "mono.wav", "room2.wav", "", 1.0, -120);
        render(e, 300, "stereo.wav", "room44k.wav", "", 1.0, -120);
        render(e, 256, "stereo.wav", "room2.wav", "", 0.25, -120);
        /* PCM output: the error is quantisation plus libsndfile's 32767 vs
         * 32768 scaling, about 1.5 LSB; with this signal's peak near 0.2
         * that is -74 dB for 16 bits and -122 dB for 24. */
        render(e, 256, "quiet.wav", "room2.wav", "--format pcm16", 1.0, -70);
        render(e, 256, "quiet.wav", "room2.wav", "--format pcm24", 1.0, -115);
        render(e, 1000, "long.wav", "room2.wav", "", 1.0, -120);
        /* No --block: the engine's offline plan (or the live default). */
        render(e, 0, "long.wav", "room2.wav", "", 1.0, -120);
        render(e, 0, "stereo.wav", "room4.wav", "", 1.0, -120);
    }
    /* Short filters: one partition size is cheapest; a 30 s room: the
     * non-uniform levels. */
    default_engine("stereo.wav", "room2.wav", "cpu-partitioned");
    make("room30s.wav", "decay", 48000, 2, 30 * 48000, seed + 8, 1.0);
    default_engine("mono.wav", "room30s.wav", "cpu-nonuniform");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", dir);
    printf("render: %d runs, %d failed\n", runs, failures);
    return failures ? 1 : 0;
}
