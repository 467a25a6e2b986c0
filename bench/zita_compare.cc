// earshot's CPU engines side by side with zita-convolver, through each
// one's own API, on the same IRs, channel layout (stereo: L->L, R->R),
// blocks and input (5 s of fresh noise per case, 48 kHz):
//
//   CPU ms/s   process CPU time (every thread of the process, workers too,
//              CLOCK_PROCESS_CPUTIME_ID) per second of audio, median of
//              --runs runs (5), taken by turns with the other contenders
//   ratio      that over zita-convolver's
//   null dB    peak |y - ref| over peak |ref|, ref a float64 FFT convolution
//
// zita-convolver runs as jconvolver configures it for zero latency
// (quantum = minpart = block, maxpart 8192, FFTW_MEASURE, vector mode), its
// process(sync) waiting for its levels, threads at SCHED_FIFO when allowed.
// earshot's engines run with offline = 1 (process waits for its workers),
// FFTW_MEASURE. C++ only because zita-convolver's API is C++.
//
// BruteFIR, when installed, runs too (brutefir_driver.cc): uniformly
// partitioned with partitions of one block, on raw float files, its CPU
// time that of its processes less a run on one block (start-up and
// planning cancel out). It is not zero latency when it plays (its I/O
// delay is at least a partition); in file mode its output is aligned.
//
//   earshot-zita-compare [--seconds S] [--runs N] [--blocks 64,128,256] [--irs 2,10]
//                        [--engines cpu-nonuniform,cpu-partitioned] [--no-brutefir]
//                        [--no-zita]
//
// --no-zita runs earshot's engines alone (no ratio), so that a profiler
// (perf record) sees only their work.
#include <fftw3.h>
#include <zita-convolver.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

extern "C" {
#include "engine.h"
#include "fftw_planner.h"
}

#include "brutefir_driver.h"

namespace {

constexpr double kRate = 48000;

double cpu_seconds()
{
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

struct Lcg {
    uint64_t s;
    float next()
    {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        return (float)((double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    }
};

// A room-like IR: noise under an exponential decay reaching -60 dB at the
// end, and a direct sound at 0.
std::vector<float> make_ir(int length, uint64_t seed)
{
    Lcg g{seed};
    std::vector<float> h(length);
    const double tau = length / 6.9;
    for (int t = 0; t < length; t++)
        h[t] = (float)(0.1 * g.next() * std::exp(-t / tau));
    h[0] = 1.0f;
    return h;
}

// float64 y = x * h over the first `frames` outputs, by one large FFT.
std::vector<double> reference(const std::vector<float> &x, const std::vector<float> &h,
                              int frames)
{
    size_t n = 1;
    while (n < x.size() + h.size())
        n <<= 1;
    std::vector<double> a(n), b(n);
    std::copy(x.begin(), x.end(), a.begin());
    std::copy(h.begin(), h.end(), b.begin());
    const size_t bins = n / 2 + 1;
    fftw_complex *fa = fftw_alloc_complex(bins), *fb = fftw_alloc_complex(bins);
    fftw_plan pa = fftw_plan_dft_r2c_1d((int)n, a.data(), fa, FFTW_ESTIMATE);
    fftw_plan pb = fftw_plan_dft_r2c_1d((int)n, b.data(), fb, FFTW_ESTIMATE);
    fftw_execute(pa);
    fftw_execute(pb);
    for (size_t k = 0; k < bins; k++) {
        const double re = fa[k][0] * fb[k][0] - fa[k][1] * fb[k][1];
        const double im = fa[k][0] * fb[k][1] + fa[k][1] * fb[k][0];
        fa[k][0] = re / n;
        fa[k][1] = im / n;
    }
    fftw_plan pi = fftw_plan_dft_c2r_1d((int)n, fa, a.data(), FFTW_ESTIMATE);
    fftw_execute(pi);
    fftw_destroy_plan(pa);
    fftw_destroy_plan(pb);
    fftw_destroy_plan(pi);
    fftw_free(fa);
    fftw_free(fb);
    a.resize(frames);
    return a;
}

double null_db(const std::vector<float> &y, const std::vector<double> &ref)
{
    double err = 0, peak = 0;
    for (size_t t = 0; t < ref.size(); t++) {
        err = std::max(err, std::fabs(y[t] - ref[t]));
        peak = std::max(peak, std::fabs(ref[t]));
    }
    return err > 0 ? 20 * std::log10(err / peak) : -999;
}

struct Case {
    int block;
    std::vector<float> h[2];
    std::vector<float> x[2];
    std::vector<double> ref[2];
    int frames;
};

// One contender's runs on one case: CPU seconds of each, the last output.
struct Result {
    std::vector<double> seconds;
    std::vector<float> y[2];
    bool ok = true;
    std::string note;

    double ms_per_s(const Case &c) const
    {
        std::vector<double> s = seconds;
        std::sort(s.begin(), s.end());
        return s.empty() ? 0 : 1e3 * s[s.size() / 2] / (c.frames / kRate);
    }
    double null(const Case &c) const
    {
        return std::max(null_db(y[0], c.ref[0]), null_db(y[1], c.ref[1]));
    }
};

// One timed run of zita-convolver: configure, load, start, process, stop.
// Only the processing loop is timed.
void run_zita(const Case &c, Result &r)
{
    Convproc zita;
    zita.set_options(Convproc::OPT_FFTW_MEASURE | Convproc::OPT_VECTOR_MODE);
    const int len = (int)c.h[0].size();
    if (zita.configure(2, 2, len, c.block, c.block, 8192, 0.5f) != 0) {
        r.ok = false;
        r.note = "configure refused";
        return;
    }
    for (int ch = 0; ch < 2; ch++)
        zita.impdata_create(ch, ch, 1, const_cast<float *>(c.h[ch].data()), 0, len);
    if (zita.start_process(sched_get_priority_max(SCHED_FIFO) / 2, SCHED_FIFO) != 0 &&
        zita.start_process(0, SCHED_OTHER) != 0) {
        r.ok = false;
        r.note = "start_process failed";
        return;
    }
    // A level thread marks itself running when it first gets the CPU;
    // until then process() computes that level inline, one period
    // earlier than the thread would. Blocks fed in that window come out
    // misplaced (seen as nulls of -7 to -12 dB), so give the threads
    // time to start, as a JACK client has before its first callback.
    const struct timespec settle = {0, 100 * 1000 * 1000};
    nanosleep(&settle, nullptr);
    for (int ch = 0; ch < 2; ch++)
        r.y[ch].assign(c.frames, 0.0f);
    const double t0 = cpu_seconds();
    for (int at = 0; at + c.block <= c.frames; at += c.block) {
        for (int ch = 0; ch < 2; ch++)
            std::memcpy(zita.inpdata(ch), c.x[ch].data() + at, c.block * sizeof(float));
        zita.process(true);
        for (int ch = 0; ch < 2; ch++)
            std::memcpy(r.y[ch].data() + at, zita.outdata(ch), c.block * sizeof(float));
    }
    r.seconds.push_back(cpu_seconds() - t0);
    zita.stop_process();
    zita.cleanup();
}

// One run of BruteFIR, timed by the kernel's accounting of its processes.
void run_brutefir(const Case &c, Result &r)
{
    double seconds = 0;
    if (!brutefir_convolve(c.block, kRate, c.h, c.x, r.y, seconds, r.note)) {
        r.ok = false;
        return;
    }
    r.seconds.push_back(seconds);
}

// One timed run of an earshot engine, created and destroyed untimed.
void run_earshot(const Case &c, const es_engine_class *k, Result &r)
{
    es_ir *ir = es_ir_create(2, 2, (int)c.h[0].size(), kRate);
    for (int ch = 0; ch < 2; ch++)
        std::memcpy(es_ir_path(ir, ch, ch), c.h[ch].data(), c.h[ch].size() * sizeof(float));
    es_format fmt = {kRate, c.block, 2, 2};
    es_options opt = {};
    opt.fft_measure = 1;
    opt.offline = 1;
    char err[256];
    es_engine *e = es_engine_create(k, &fmt, ir, &opt, err, sizeof err);
    es_ir_destroy(ir);
    if (!e) {
        r.ok = false;
        r.note = err;
        return;
    }
    for (int ch = 0; ch < 2; ch++)
        r.y[ch].assign(c.frames, 0.0f);
    const double t0 = cpu_seconds();
    for (int at = 0; at + c.block <= c.frames; at += c.block) {
        const float *in[2] = {c.x[0].data() + at, c.x[1].data() + at};
        float *out[2] = {r.y[0].data() + at, r.y[1].data() + at};
        es_engine_process(e, in, out, c.block);
    }
    r.seconds.push_back(cpu_seconds() - t0);
    es_engine_destroy(e);
}

std::vector<std::string> split(const char *s)
{
    std::vector<std::string> out;
    std::string cur;
    for (; *s; s++) {
        if (*s == ',') {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += *s;
        }
    }
    out.push_back(cur);
    return out;
}

// What the command line asks for.
struct Options {
    double seconds = 5;
    int runs = 5;
    bool brutefir = brutefir_available(), zita = true;
    std::vector<std::string> blocks = {"64", "128", "256"}, irs = {"2", "10"},
                             engines = {"cpu-nonuniform", "cpu-partitioned"};
};

// The command line into o; false, said on stderr, for an option it does
// not know.
bool parse_options(int argc, char **argv, Options &o)
{
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (i + 1 < argc && a == "--seconds")
            o.seconds = std::atof(argv[++i]);
        else if (i + 1 < argc && a == "--blocks")
            o.blocks = split(argv[++i]);
        else if (i + 1 < argc && a == "--runs")
            o.runs = std::max(1, std::atoi(argv[++i]));
        else if (a == "--no-brutefir")
            o.brutefir = false;
        else if (a == "--no-zita")
            o.zita = false;
        else if (i + 1 < argc && a == "--irs")
            o.irs = split(argv[++i]);
        else if (i + 1 < argc && a == "--engines")
            o.engines = split(argv[++i]);
        else {
            std::fprintf(stderr, "earshot-zita-compare: unknown option '%s'\n", argv[i]);
            return false;
        }
    }
    return true;
}

// One case: blocks of `block` (text, as given), IRs of `length` taps,
// `seconds` of fresh noise a channel and its float64 references.
Case make_case(int length, const std::string &block, double seconds)
{
    Case c;
    c.block = std::atoi(block.c_str());
    c.frames = (int)(seconds * kRate) / c.block * c.block;
    Lcg g{0x5eed + (uint64_t)c.block};
    for (int ch = 0; ch < 2; ch++) {
        c.h[ch] = make_ir(length, 1000 + ch);
        c.x[ch].resize(c.frames);
        for (float &v : c.x[ch])
            v = 0.5f * g.next();
        c.ref[ch] = reference(c.x[ch], c.h[ch], c.frames);
    }
    return c;
}

// The engines named into classes; false, said on stderr, for a name no
// engine has.
bool find_engines(const std::vector<std::string> &names,
                  std::vector<const es_engine_class *> &classes)
{
    for (const std::string &name : names) {
        classes.push_back(es_engine_find(name.c_str()));
        if (!classes.back()) {
            std::fprintf(stderr, "earshot-zita-compare: no engine '%s'\n", name.c_str());
            return false;
        }
    }
    return true;
}

// One case's rows, zita-convolver's first; 1 when an earshot engine
// failed.
int print_rows(const Case &c, const std::string &ir_seconds, const Result &z, const Result &bf,
               bool brutefir, const std::vector<const es_engine_class *> &classes,
               const std::vector<Result> &ours)
{
    const double zita_ms = z.ok ? z.ms_per_s(c) : 0;
    std::printf("%-6s %5d  %-16s %9.2f %7s %9.1f%s%s\n", ir_seconds.c_str(), c.block,
                "zita-convolver", zita_ms, "1.00", z.ok ? z.null(c) : 0.0, z.ok ? "" : "  ",
                z.note.c_str());
    auto row = [&](const char *name, const Result &r) {
        char ratio[32] = "-";
        if (z.ok && r.ok && zita_ms > 0)
            std::snprintf(ratio, sizeof ratio, "%.2f", r.ms_per_s(c) / zita_ms);
        std::printf("%-6s %5d  %-16s %9.2f %7s %9.1f%s%s\n", ir_seconds.c_str(), c.block, name,
                    r.ok ? r.ms_per_s(c) : 0.0, ratio, r.ok ? r.null(c) : 0.0, r.ok ? "" : "  ",
                    r.note.c_str());
    };
    if (brutefir)
        row("brutefir", bf);
    int failed = 0;
    for (size_t k = 0; k < classes.size(); k++) {
        row(classes[k]->name, ours[k]);
        failed |= !ours[k].ok;
    }
    std::fflush(stdout);
    return failed;
}

// Every contender on one case, in rounds of one run each, by turns, so
// that a slow spell of the machine falls on every contender alike; the
// rows report medians. 1 when an earshot engine failed.
int run_case(const Case &c, const std::string &ir_seconds,
             const std::vector<const es_engine_class *> &classes, const Options &o)
{
    Result z, bf;
    if (!o.zita) {
        z.ok = false;
        z.note = "not run (--no-zita)";
    }
    std::vector<Result> ours(classes.size());
    for (int round = 0; round < o.runs; round++) {
        if (z.ok)
            run_zita(c, z);
        if (o.brutefir && bf.ok)
            run_brutefir(c, bf);
        for (size_t k = 0; k < classes.size(); k++)
            if (ours[k].ok)
                run_earshot(c, classes[k], ours[k]);
    }
    return print_rows(c, ir_seconds, z, bf, o.brutefir, classes, ours);
}

} // namespace

int main(int argc, char **argv)
{
    Options o;
    if (!parse_options(argc, argv, o))
        return 2;
    es_fftw_wisdom_open(stderr); // zita-convolver's plans share FFTW's wisdom
    std::printf("%-6s %5s  %-16s %9s %7s %9s\n", "IR s", "block", "engine", "CPU ms/s", "ratio",
                "null dB");
    int failed = 0;
    for (const std::string &ir_seconds : o.irs) {
        const int length = (int)(std::atof(ir_seconds.c_str()) * kRate);
        for (const std::string &block : o.blocks) {
            const Case c = make_case(length, block, o.seconds);
            std::vector<const es_engine_class *> classes;
            if (!find_engines(o.engines, classes))
                return 2;
            failed |= run_case(c, ir_seconds, classes, o);
        }
    }
    es_fftw_wisdom_close(stderr);
    return failed;
}
