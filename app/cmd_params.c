/* Option tables made partly of play's own entries (app.h): the commands
 * that open a device read and refuse its options as play does. */
#include "app.h"
#include "commands.h"

void es_app_params_with_play(es_param *table, int cap, const char *const *from_play,
                             const es_param *own)
{
    int k = 0;
    for (int i = 0; from_play[i] && k < cap - 1; i++) {
        const es_param *p = es_param_find(es_play_params, from_play[i]);
        if (p)
            table[k++] = *p;
    }
    for (int i = 0; own[i].name && k < cap - 1; i++)
        table[k++] = own[i];
    table[k] = (es_param){0};
}
