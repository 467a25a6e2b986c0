// BruteFIR (Anders Torger's uniformly partitioned convolver) as a contender
// in the side-by-side benchmark. It is a program, not a library: it is run
// on raw float files with a generated configuration, and its CPU time is
// read from the kernel's accounting of the child process tree.
#ifndef ES_BRUTEFIR_DRIVER_H
#define ES_BRUTEFIR_DRIVER_H

#include <string>
#include <vector>

// Whether a `brutefir` program is on PATH.
bool brutefir_available();

// Convolves two channels (x[ch] with h[ch], L->L and R->R) through BruteFIR
// with partitions of `block` frames. y[ch] gets the first x[ch].size()
// output frames. cpu_seconds: the processing alone, as the CPU time of a
// full run less that of a run on one block of input (start-up, reading
// the filters and FFTW planning cancel out). False with `note` set when it
// cannot run.
bool brutefir_convolve(int block, double rate, const std::vector<float> h[2],
                       const std::vector<float> x[2], std::vector<float> y[2],
                       double &cpu_seconds, std::string &note);

#endif
