/* Error codes every layer returns: 0 for success, a negative ES_E_* for
 * what went wrong. The words for a person travel beside the code, in the
 * caller's `err` buffer: the code says what kind of failure it is (so a
 * caller can act on it), the message says which file, option or device. */
#ifndef ES_CORE_ERRORS_H
#define ES_CORE_ERRORS_H

enum {
    ES_OK = 0,
    ES_E_ARG = -1,         /* a bad argument: size, count, name, value */
    ES_E_NOMEM = -2,
    ES_E_IR = -3,          /* the impulse response is unusable (empty, NaN, ...) */
    ES_E_FFT = -4,         /* FFTW refused a plan */
    ES_E_GPU = -5,         /* CUDA runtime or cuFFT error */
    ES_E_UNAVAILABLE = -6, /* not usable on this machine (engine, device) */
    ES_E_STATE = -7,       /* not now: a queue is full, a change is under way */
    ES_E_IO = -8,          /* a file or device could not be read or written */
};

/* A short name for a code ("bad argument", "out of memory", ...). */
const char *es_strerror(int code);

#endif
