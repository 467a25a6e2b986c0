#include "core/errors.h"

const char *es_strerror(int code)
{
    switch (code) {
    case ES_OK: return "ok";
    case ES_E_ARG: return "bad argument";
    case ES_E_NOMEM: return "out of memory";
    case ES_E_IR: return "unusable impulse response";
    case ES_E_FFT: return "FFT planning failed";
    case ES_E_GPU: return "GPU error";
    case ES_E_UNAVAILABLE: return "unavailable here";
    case ES_E_STATE: return "not now";
    case ES_E_IO: return "input/output error";
    default: return "unknown error";
    }
}
