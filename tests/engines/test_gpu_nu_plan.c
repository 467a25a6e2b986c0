/* cuda-nonuniform's plan, without a GPU: the levels tile the IR exactly,
 * each tail level starts late enough to have its period of time, the
 * partitions grow by the plan's ratio, the head is the block; the memory
 * arithmetic gives the spectra a 64 x 64 matrix of 10 s filters needs
 * (15.7 GB, and at most 15 % more for rounding and delay lines), and a matrix that does not fit is refused in
 * one line naming the bytes needed and free.
 *
 *   test_gpu_nu_plan */
#include <stdio.h>
#include <string.h>

#include "gpu_nu_plan.h"
#include "reference.h"

/* The levels cover 0..length without gaps or overlap, and each tail level
 * starts at 2P + B or later. */
static int tiles(const es_gnu_shape *s, const es_gnu_plan *p, char *why, size_t n)
{
    int at = 0;
    for (int k = 0; k < p->levels; k++) {
        const es_nu_level *l = &p->level[k];
        if (l->offset != at) {
            snprintf(why, n, "level %d starts at %d, not %d", k, l->offset, at);
            return 0;
        }
        if (k > 0 && l->offset < 2 * l->part + s->max_block) {
            snprintf(why, n, "level %d (P %d) starts at %d, before 2P + B", k, l->part,
                     l->offset);
            return 0;
        }
        if (k > 0 && l->part != p->level[k - 1].part * p->ratio) {
            snprintf(why, n, "level %d's partition %d is not %d x %d", k, l->part, p->ratio,
                     p->level[k - 1].part);
            return 0;
        }
        at += l->count * l->part;
    }
    if (at < s->length || at - p->level[p->levels - 1].part >= s->length) {
        snprintf(why, n, "the levels end at %d for %d taps", at, s->length);
        return 0;
    }
    return 1;
}

static void show(const char *name, const es_gnu_shape *s, const es_gnu_plan *p)
{
    printf("     %s: ratio %d, %d levels:", name, p->ratio, p->levels);
    for (int k = 0; k < p->levels; k++)
        printf(" %dx%d@%d", p->level[k].count, p->level[k].part, p->level[k].offset);
    printf("; head %.1f MB/block, %.1f GB/s of spectra, %.2f GB held\n", p->head_bytes / 1e6,
           p->bytes_per_frame * 48000 / 1e9, (double)es_gnu_plan_device_bytes(s, p) / 1e9);
}

int main(void)
{
    char why[200];
    /* Lengths around level boundaries, blocks 32..1024, a few shapes. */
    int bad = 0, plans = 0;
    const int blocks[] = {32, 64, 128, 256, 1024};
    for (int b = 0; b < 5; b++)
        for (int length = 1; length < 3000000; length = length * 3 + 7)
            for (int d = -1; d <= 1; d++) {
                es_gnu_shape s = {.inputs = 2, .outputs = 2, .paths = 4,
                                  .length = length + d > 0 ? length + d : 1,
                                  .max_block = blocks[b]};
                es_gnu_plan p;
                es_gnu_plan_choose(&s, &p);
                plans++;
                if (!tiles(&s, &p, why, sizeof why) || p.level[0].part < s.max_block) {
                    if (!bad++)
                        printf("FAIL block %d, %d taps: %s\n", s.max_block, s.length, why);
                }
            }
    printf("     %d plans checked\n", plans);
    es_test_check(bad == 0, "every plan tiles its IR, tail levels start at 2P + B or later");

    /* The cases. */
    es_gnu_shape big = {.inputs = 64, .outputs = 64, .paths = 4096, .length = 480000,
                        .max_block = 64};
    es_gnu_plan p;
    es_gnu_plan_choose(&big, &p);
    show("64 x 64, 10 s, block 64", &big, &p);
    const double held = (double)es_gnu_plan_device_bytes(&big, &p);
    es_test_check(p.level[0].part == 64, "the head's partitions are the block");
    es_test_check(p.ratio == 4 || p.ratio == 8, "partitions grow x4 or x8");
    es_test_check(p.level[p.levels - 1].part >= 16384, "the last level's partitions are 16384 or more");
    /* The spectra's floor: 8 bytes (a complex float per bin, P + 1 bins per
     * P taps) per tap and path; the last level's rounding and the delay
     * lines add to it. */
    const double floor = 4096.0 * 480000 * 8;
    printf("     held %.2f GB against a floor of %.2f GB\n", held / 1e9, floor / 1e9);
    es_test_check(held >= floor && held <= 1.15 * floor,
                  "64 x 64 x 10 s holds its spectra (15.7 GB) and at most 15 % more");
    es_test_check(p.bytes_per_frame * 48000 < 200e9,
                  "its spectra stream at under 200 GB/s (the H100 streams about 3 TB/s)");
    es_test_check(p.head_bytes < 100e6, "the head reads under 100 MB a block");

    es_gnu_shape fan = {.inputs = 1, .outputs = 1024, .paths = 1024, .length = 480000,
                        .max_block = 128};
    es_gnu_plan_choose(&fan, &p);
    show("1 x 1024, 10 s, block 128", &fan, &p);
    es_gnu_shape room = {.inputs = 2, .outputs = 2, .paths = 2, .length = 480000,
                         .max_block = 32};
    es_gnu_plan_choose(&room, &p);
    show("stereo 10 s, block 32", &room, &p);

    /* The memory check: one line with both figures. */
    char err[200] = "";
    es_test_check(es_gnu_memory_check(16000000000ull, 80000000000ull, 1000000000ull, err,
                                      sizeof err) == 0,
                  "16 GB fits in 80 GB");
    const int refused = es_gnu_memory_check(17200000000ull, 12000000000ull, 0, err, sizeof err);
    printf("     %s\n", err);
    es_test_check(refused != 0 && strstr(err, "17.2 GB") && strstr(err, "12.0 GB free"),
                  "17.2 GB in 12 GB is refused, naming both");
    printf("%s\n", es_test_failures ? "FAILED" : "PASSED");
    return es_test_failures ? 1 : 0;
}
