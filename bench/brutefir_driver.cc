// BruteFIR driven through files: see brutefir_driver.h.
#include "brutefir_driver.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

bool write_floats(const std::string &path, const float *data, size_t count)
{
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f)
        return false;
    const bool ok = std::fwrite(data, sizeof(float), count, f) == count;
    return std::fclose(f) == 0 && ok;
}

// The configuration: two filters of `parts` partitions of `block`, raw
// little-endian float files in and out, no dither, no progress output, and
// a safety limit of 200 dB: a 10 s room's output peaks above the default
// (20 dB), which aborts the run, and 0, which the manual says turns it
// off, aborted at 0.83 dB in this version.
bool write_config(const std::string &dir, const std::string &name, const std::string &input,
                  const std::string &output, int block, int parts, double rate)
{
    FILE *f = std::fopen((dir + "/" + name).c_str(), "w");
    if (!f)
        return false;
    std::fprintf(f,
                 "sampling_rate: %.0f;\nfilter_length: %d,%d;\nshow_progress: false;\n"
                 "overflow_warnings: false;\nsafety_limit: 200;\nconvolver_config: \"%s/wisdom\";\n",
                 rate, block, parts, dir.c_str());
    for (int ch = 0; ch < 2; ch++)
        std::fprintf(f, "coeff %d { filename: \"%s/h%d.raw\"; format: \"FLOAT_LE\"; };\n", ch,
                     dir.c_str(), ch);
    std::fprintf(f,
                 "input 0, 1 { device: \"file\" { path: \"%s\"; }; sample: \"FLOAT_LE\"; "
                 "channels: 2; };\n"
                 "output 0, 1 { device: \"file\" { path: \"%s\"; }; sample: \"FLOAT_LE\"; "
                 "channels: 2; dither: false; };\n"
                 "filter 0 { from_inputs: 0; to_outputs: 0; coeff: 0; process: 0; };\n"
                 "filter 1 { from_inputs: 1; to_outputs: 1; coeff: 1; process: 0; };\n",
                 input.c_str(), output.c_str());
    return std::fclose(f) == 0;
}

double children_cpu()
{
    rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
           1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

// Runs brutefir on one configuration with HOME in `dir` (it writes its
// default settings there), its messages to dir/log. The CPU time of it
// and every process it started, or -1. BruteFIR's filter and I/O processes
// are not all reaped by its main process, so this one becomes their
// subreaper and reaps every one of them: only reaped processes' time is
// counted in RUSAGE_CHILDREN.
double run(const std::string &dir, const std::string &config)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    const double before = children_cpu();
    const pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        setenv("HOME", dir.c_str(), 1);
        const int log = open((dir + "/log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (log >= 0) {
            dup2(log, 1);
            dup2(log, 2);
        }
        execlp("brutefir", "brutefir", (dir + "/" + config).c_str(), (char *)nullptr);
        _exit(127);
    }
    int status = 0;
    const bool ok = waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                    WEXITSTATUS(status) == 0;
    while (waitpid(-1, nullptr, 0) > 0) // the rest of its process tree
        ;
    return ok ? children_cpu() - before : -1;
}

} // namespace

bool brutefir_available()
{
    const char *path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
        size_t end = dirs.find(':', start);
        if (end == std::string::npos)
            end = dirs.size();
        if (access((dirs.substr(start, end - start) + "/brutefir").c_str(), X_OK) == 0)
            return true;
        start = end + 1;
    }
    return false;
}

bool brutefir_convolve(int block, double rate, const std::vector<float> h[2],
                       const std::vector<float> x[2], std::vector<float> y[2],
                       double &cpu_seconds, std::string &note)
{
    char tmpl[] = "/tmp/earshot-brutefir-XXXXXX";
    if (!mkdtemp(tmpl)) {
        note = "no temporary folder";
        return false;
    }
    const std::string dir = tmpl;
    const size_t frames = x[0].size();
    std::vector<float> interleaved(2 * frames);
    for (size_t t = 0; t < frames; t++) {
        interleaved[2 * t] = x[0][t];
        interleaved[2 * t + 1] = x[1][t];
    }
    const int parts = (int)((h[0].size() + block - 1) / block);
    bool ok = write_floats(dir + "/x.raw", interleaved.data(), interleaved.size()) &&
              write_floats(dir + "/one.raw", interleaved.data(), 2 * (size_t)block) &&
              write_floats(dir + "/h0.raw", h[0].data(), h[0].size()) &&
              write_floats(dir + "/h1.raw", h[1].data(), h[1].size()) &&
              write_config(dir, "full", dir + "/x.raw", dir + "/y.raw", block, parts, rate) &&
              write_config(dir, "one", dir + "/one.raw", dir + "/y1.raw", block, parts, rate);
    double full = -1, one = -1;
    if (ok) {
        /* The first run plans (FFTW_MEASURE) and leaves its wisdom; the
         * second, the baseline, and the full run then plan from it. */
        one = run(dir, "one");
        one = one < 0 ? one : run(dir, "one");
        full = run(dir, "full");
    }
    if (!ok || full < 0 || one < 0) {
        note = ok ? "brutefir failed (see its log)" : "cannot write its files";
        if (ok)
            std::fprintf(stderr, "brutefir's files are kept in %s\n", dir.c_str());
        return false;
    }
    cpu_seconds = full - one;
    std::vector<float> out(2 * frames, 0.0f);
    FILE *f = std::fopen((dir + "/y.raw").c_str(), "rb");
    const size_t got = f ? std::fread(out.data(), sizeof(float), out.size(), f) : 0;
    if (f)
        std::fclose(f);
    for (int ch = 0; ch < 2; ch++) {
        y[ch].assign(frames, 0.0f);
        for (size_t t = 0; 2 * t + ch < got; t++)
            y[ch][t] = out[2 * t + ch];
    }
    for (const char *name : {"x.raw", "one.raw", "h0.raw", "h1.raw", "y.raw", "y1.raw", "full",
                             "one", "wisdom", "log", ".brutefir_defaults", ".brutefir_config"})
        unlink((dir + "/" + name).c_str());
    rmdir(dir.c_str());
    return true;
}
