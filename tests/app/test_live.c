/* The live path against files, through the earshot binary (live with the
 * limiter off, which render has not):
 *   - render equals live: the test signal written to a WAV and rendered
 *     gives the same samples as the live stream recorded on the null device
 *     (same room, engine, block size); cpu-direct bit for bit, the FFT
 *     engine to FFT rounding (FFTW_MEASURE may pick a different, equally
 *     exact algorithm in each process);
 *   - the same with a file as the live input (read ahead by the file
 *     source), over the file's first pass, before it loops;
 *   - --record-input: the dry input recorded beside the output, rendered
 *     offline, gives the recorded output bit for bit;
 *   - Ctrl-C during a recording: exit 0, and the file is complete, valid,
 *     and as long as the stream said it recorded.
 *
 *   test_live EARSHOT MAKE_WAV */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audiofile.h"
#include "test_signal.h"

static const char *earshot, *make_wav;
static char dir[256];
static int failures;

static void path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static int run(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Writes `seconds` of the built-in test signal, mono, to sig.wav. */
static void write_signal(double seconds)
{
    char p[512], err[256];
    path(p, sizeof p, "sig.wav");
    const int frames = (int)(seconds * 48000);
    es_signal s;
    es_signal_init(&s, 48000);
    float *x = malloc(sizeof(float) * frames);
    float *ch[1] = {x};
    es_signal_fill(&s, ch, 1, frames);
    es_audiofile *f = es_audiofile_create(p, &(es_write_spec){.sample_rate = 48000, .channels = 1}, err, sizeof err);
    if (!f || es_audiofile_write(f, (const float *const *)ch, frames, err, sizeof err) ||
        es_audiofile_commit(f, err, sizeof err)) {
        printf("FAIL writing the signal: %s\n", err);
        exit(1);
    }
    es_audiofile_close(f);
    free(x);
}

/* Loads two stereo files and compares their first `limit` frames (or all
 * that both have, when limit < 0): samples that differ, the largest
 * difference in dB of a's peak, and the frames compared. -1 if unreadable. */
static long compare(const char *a_path, const char *b_path, long limit, double *db,
                    long *frames)
{
    float **a = NULL, **b = NULL;
    es_audio_info ai, bi;
    char err[256];
    if (es_audiofile_load(a_path, &a, &ai, err, sizeof err) ||
        es_audiofile_load(b_path, &b, &bi, err, sizeof err)) {
        printf("  %s\n", err);
        return -1;
    }
    long n = ai.frames < bi.frames ? (long)ai.frames : (long)bi.frames;
    n = limit >= 0 && limit < n ? limit : n;
    double peak = 0, diff = 0;
    long differ = 0;
    for (int c = 0; c < 2; c++)
        for (long t = 0; t < n; t++) {
            peak = fmax(peak, fabs(b[c][t]));
            double d = fabs((double)a[c][t] - b[c][t]);
            diff = fmax(diff, d);
            differ += d != 0;
        }
    *db = diff > 0 ? 20 * log10(diff / peak) : -INFINITY;
    *frames = n;
    for (int c = 0; c < ai.channels; c++)
        free(a[c]);
    for (int c = 0; c < bi.channels; c++)
        free(b[c]);
    free(a);
    free(b);
    return differ;
}

/* input: "signal" (the test signal; sig.wav holds the same samples) or a
 * file name in the test folder, played live and rendered. */
static void render_equals_live(const char *engine, const char *input, double limit_db)
{
    char room[512], sig[512], live[512], out[512], cmd[2048], err[256], source[512];
    path(room, sizeof room, "room.wav");
    path(sig, sizeof sig, strcmp(input, "signal") ? input : "sig.wav");
    path(live, sizeof live, "live.wav");
    path(out, sizeof out, "render.wav");
    snprintf(source, sizeof source, "%s", strcmp(input, "signal") ? sig : "signal");
    snprintf(cmd, sizeof cmd, "%s play --device null --input %s --ir %s --raw --engine %s "
             "--block 256 --limiter off --headless --seconds 2 --record %s > /dev/null",
             earshot, source,
             room, engine, live);
    int rc1 = run(cmd);
    snprintf(cmd, sizeof cmd, "%s render --ir %s --engine %s --block 256 %s %s > /dev/null",
             earshot, room, engine, sig, out);
    int rc2 = run(cmd);
    /* Compare all that the input file covers once (the live source loops,
     * render does not). */
    es_audio_info si;
    float **x = NULL;
    long limit = -1, n = 0;
    if (es_audiofile_load(sig, &x, &si, err, sizeof err) == 0) {
        limit = (long)si.frames;
        for (int c = 0; c < si.channels; c++)
            free(x[c]);
        free(x);
    }
    double db = 0;
    long differ = rc1 || rc2 ? -1 : compare(live, out, limit, &db, &n);
    int ok = differ >= 0 && n > 48000 && db <= limit_db;
    printf("%s %s, %s in: play exit %d, render exit %d, %ld frames compared, %ld samples "
           "differ, largest difference %.1f dB (limit %s)\n", ok ? "ok  " : "FAIL", engine,
           input, rc1, rc2, n, differ, db, limit_db == -INFINITY ? "bit-exact" : "-130 dB");
    failures += !ok;
}

static void recorded_input_renders_to_output(void)
{
    char room[512], in[512], out[512], again[512], cmd[8192];
    path(room, sizeof room, "room.wav");
    path(in, sizeof in, "dry.wav");
    path(out, sizeof out, "wet.wav");
    path(again, sizeof again, "again.wav");
    snprintf(cmd, sizeof cmd, "%s play --device null --ir %s --raw --engine cpu-direct --block 128 "
             "--headless --seconds 1 --record %s --record-input %s > /dev/null && "
             "%s render --ir %s --engine cpu-direct --block 128 %s %s > /dev/null", earshot,
             room, out, in, earshot, room, in, again);
    double db = 0;
    long frames = 0, differ = run(cmd) != 0 ? -1 : compare(out, again, -1, &db, &frames);
    int ok = frames > 24000 && differ == 0;
    printf("%s --record-input: the dry recording rendered equals the wet recording "
           "(%ld frames, %ld samples differ)\n", ok ? "ok  " : "FAIL", frames, differ);
    failures += !ok;
}

static void interrupted_recording(void)
{
    char room[512], rec[512], json[512], cmd[2048], err[256];
    static char text[65536]; /* the report's one line, whole */
    path(room, sizeof room, "room.wav");
    path(rec, sizeof rec, "interrupted.wav");
    path(json, sizeof json, "play.json");
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0); /* its own group, so the signal reaches earshot too */
        snprintf(cmd, sizeof cmd, "exec %s play --device null --ir %s --headless --seconds 60 "
                 "--json --record %s > %s", earshot, room, rec, json);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    struct timespec nap = {1, 500000000};
    nanosleep(&nap, NULL);
    /* As Ctrl-C does: the whole foreground group gets SIGINT. */
    kill(-pid, SIGINT);
    int status;
    waitpid(pid, &status, 0);
    float **x = NULL;
    es_audio_info info;
    text[0] = 0;
    FILE *f = fopen(json, "r");
    if (f) {
        if (!fgets(text, sizeof text, f))
            text[0] = 0;
        fclose(f);
    }
    const char *rf = strstr(text, "\"recorded_frames\":");
    long recorded = rf ? atol(rf + 18) : -1;
    if (es_audiofile_load(rec, &x, &info, err, sizeof err) != 0) {
        printf("FAIL Ctrl-C: the recording is not readable: %s\n", err);
        failures++;
        return;
    }
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && info.frames > 24000 &&
             info.frames == recorded && info.channels == 2;
    printf("%s Ctrl-C after 1.5 s: exit status %d, file has %lld frames, stream said %ld\n",
           ok ? "ok  " : "FAIL", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
           (long long)info.frames, recorded);
    failures += !ok;
    for (int c = 0; c < info.channels; c++)
        free(x[c]);
    free(x);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_live EARSHOT MAKE_WAV\n");
        return 2;
    }
    earshot = argv[1];
    make_wav = argv[2];
    snprintf(dir, sizeof dir, "%s/es-live-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        return 1;
    char room[512], cmd[1024];
    path(room, sizeof room, "room.wav");
    snprintf(cmd, sizeof cmd, "%s %s decay 48000 2 4800 3 0.5", make_wav, room);
    if (run(cmd) != 0)
        return 1;
    write_signal(2.5);
    render_equals_live("cpu-direct", "signal", -INFINITY);
    render_equals_live("cpu-partitioned", "signal", -130);
    /* Quiet enough that the room's output stays under full scale: live, a
     * sustained overload is taken for a runaway (audio/safety.h). */
    snprintf(cmd, sizeof cmd, "%s %s/stereo.wav noise 48000 2 72000 5 0.1", make_wav, dir);
    if (run(cmd) != 0)
        return 1;
    render_equals_live("cpu-direct", "stereo.wav", -INFINITY);
    recorded_input_renders_to_output();
    interrupted_recording();
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run(cmd);
    printf("live: %s\n", failures ? "FAIL" : "ok");
    return failures ? 1 : 0;
}
