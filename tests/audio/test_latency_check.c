/* A host API's latency is checked before earshot shows it
 * (es_latency_checked): finite, not negative, under 10 s. PortAudio's JACK
 * host hands over about 2^32 frames when a server's ports report less
 * than a period (PipeWire's JACK library): that figure must fail, never
 * reach a cast to int. */
#include <math.h>
#include <stdio.h>

#include "device.h"

static int fails;

static void expect(const char *what, double seconds, int ok, int frames)
{
    int got = -7;
    const int r = es_latency_checked(seconds, 48000, &got);
    if (r != ok || got != frames) {
        printf("FAIL %s: %g s gave %d and %d frames, expected %d and %d\n", what, seconds, r,
               got, ok, frames);
        fails++;
    } else {
        printf("ok   %s: %g s -> %s (%d frames)\n", what, seconds, ok ? "kept" : "unknown", got);
    }
}

int main(void)
{
    expect("a buffer of 512 frames", 512 / 48000.0, 1, 512);
    expect("none", 0, 1, 0);
    expect("just under 10 s", 9.999, 1, 479952);
    expect("10 s", 10.0, 0, 0);
    expect("negative", -256 / 48000.0, 0, 0);
    expect("PortAudio's JACK wrap (2^32 - 256 frames)", (4294967296.0 - 256) / 48000, 0, 0);
    expect("not a number", NAN, 0, 0);
    expect("infinite", INFINITY, 0, 0);
    int f;
    if (es_latency_checked(0.01, 0, &f) != 0) {
        printf("FAIL a rate of 0 passed\n");
        fails++;
    }
    return fails != 0;
}
