/* ES_RT marks functions that run on the audio thread. ES_RT code calls only
 * ES_RT code: no malloc/free, locks, logging, I/O, sleeps, FFT planning.
 * tests/engines/test_rt_safety.c and tests/audio/test_swaps.c hold the
 * marked paths to that by counting those calls. */
#ifndef ES_CORE_RT_H
#define ES_CORE_RT_H

#define ES_RT

#endif
