/* earshot engines: every engine, whether it runs here, and why not; for a
 * GPU engine that runs, the device memory one instance holds. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/args.h"
#include "app.h"
#include "engine.h"

void es_engines_help(FILE *to)
{
    fputs("\nEngines (--engine NAME; earshot engines says which run here):\n", to);
    for (int i = 0; es_engines[i]; i++)
        fprintf(to, "  %-17s %s\n", es_engines[i]->name, es_engines[i]->summary);
}

/* The room the memory figure is for: stereo, 2 s at 48 kHz, block 256. */
#define SAMPLE_SECONDS 2
#define SAMPLE_BLOCK 256

/* Device memory an instance of `e` holds for the sample room, bytes; 0
 * when it could not be built (`why` then says so). */
static uint64_t gpu_bytes(const es_engine_class *e, char *why, size_t n)
{
    const int length = SAMPLE_SECONDS * 48000;
    es_ir *ir = es_ir_create(2, 2, length, 48000);
    uint64_t bytes = 0;
    for (int c = 0; ir && c < 2; c++) {
        float *h = es_ir_path(ir, c, c);
        for (int t = 0; h && t < length; t++)
            h[t] = (float)((t * 2654435761u + (unsigned)c) % 2001u) / 1000.0f - 1.0f;
    }
    const es_format fmt = {.sample_rate = 48000, .max_block = SAMPLE_BLOCK, .inputs = 2,
                           .outputs = 2};
    const es_options opt = {0};
    es_engine *inst = ir ? es_engine_create(e, &fmt, ir, &opt, why, n) : NULL;
    if (inst) {
        es_engine_status st;
        es_engine_get_status(inst, &st);
        bytes = st.gpu.bytes;
    }
    es_engine_destroy(inst);
    es_ir_destroy(ir);
    return bytes;
}

/* Every GPU --gpu can name, with its memory free now; or why there is none. */
static void list_gpus(int json)
{
    const int count = es_gpu_count();
    char line[256];
    if (!json)
        printf("\nGPUs (--gpu N, a list N,M,... to split a matrix by outputs, or all):\n");
    if (count == 0) {
        /* A GPU engine's probe says why there is none (no driver, ...). */
        snprintf(line, sizeof line, "no CUDA device");
        for (int k = 0; es_engines[k]; k++)
            if (es_engines[k]->caps & ES_CAP_GPU) {
                es_engines[k]->probe(line, sizeof line);
                break;
            }
        if (json)
            printf("{\"gpus\":0,\"note\":\"%s\"}\n", line);
        else
            printf("  none: %s\n", line);
        return;
    }
    for (int d = 0; d < count; d++) {
        es_gpu_describe(d, line, sizeof line);
        if (json)
            printf("{\"gpu\":%d,\"note\":\"%s\"}\n", d, line);
        else
            printf("  GPU %d  %s\n", d, line);
    }
}

int es_cmd_engines(int argc, char **argv)
{
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: earshot engines [--json]\n"
                   "Lists every engine, whether it is usable on this machine, and why not;\n"
                   "for a GPU engine that is, the GPU memory one instance holds for a\n"
                   "stereo %d s room at block %d; then every GPU, with its memory free.\n",
                   SAMPLE_SECONDS, SAMPLE_BLOCK);
            return 0;
        } else {
            es_error("engines: unknown option '%s'", argv[i]);
            return 2;
        }
    }
    for (int k = 0; es_engines[k]; k++) {
        const es_engine_class *e = es_engines[k];
        char why[256] = "";
        int usable = e->probe(why, sizeof why);
        uint64_t bytes = 0;
        if (usable && (e->caps & ES_CAP_GPU)) {
            char held[256] = "";
            const size_t at = strlen(why);
            if ((bytes = gpu_bytes(e, held, sizeof held)))
                snprintf(why + at, sizeof why - at, "; holds %.1f MB of GPU memory for a stereo "
                         "%d s room at block %d", bytes / 1e6, SAMPLE_SECONDS, SAMPLE_BLOCK);
            else
                snprintf(why + at, sizeof why - at, "; a stereo %d s room cannot be built: %s",
                         SAMPLE_SECONDS, held);
        }
        if (json)
            printf("{\"name\":\"%s\",\"usable\":%s,\"summary\":\"%s\",\"note\":\"%s\","
                   "\"gpu_bytes\":%llu}\n",
                   e->name, usable ? "true" : "false", e->summary, why,
                   (unsigned long long)bytes);
        else
            printf("%-17s %-12s %s\n%17s %12s %s\n", e->name,
                   usable ? "usable" : "unavailable", e->summary, "", "", why);
    }
    list_gpus(json);
    return 0;
}
