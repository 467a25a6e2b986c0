/* Key tables (bindings.h): a key's row found, its action called. */
#include "bindings.h"
#include "hits.h"

const ui_binding *ui_binding_find(const ui_binding *table, int key, int *value)
{
    for (const ui_binding *b = table; b->label || b->act || b->help; b++) {
        if (!b->keys[0] && b->act && !b->label) {
            *value = 0;
            return b; /* the catch-all */
        }
        for (int k = 0; k < UI_KEYS_MAX && b->keys[k]; k++)
            if (b->keys[k] == key) {
                *value = b->values[k];
                return b->act ? b : NULL;
            }
    }
    return NULL;
}

int ui_dispatch(ui_model *m, const ui_binding *table, int key)
{
    int value;
    const ui_binding *b = ui_binding_find(table, key, &value);
    if (!b)
        return UI_KEEP;
    const ui_press press = {key, value, b->command};
    return b->act(m, &press);
}

int ui_drop_click(ui_model *m, const ui_press *p)
{
    (void)m, (void)p;
    int y, x, twice;
    (void)ui_click_read(&y, &x, &twice);
    return UI_KEEP;
}
