/* A key table, as htop's Action bindings (bindings.c): rows of {keys,
 * values, action, command, help}, one table per view (the main screen's in
 * keys.c, the help's in help.c, the message history's in messages.c). The
 * same rows make the help. Actions change the model or ask the session,
 * never draw, and return what the loop must do (UI_QUIT, UI_REPAINT). */
#ifndef ES_UI_BINDINGS_H
#define ES_UI_BINDINGS_H

#include "ui.h"

#define UI_KEYS_MAX 10

/* A key as its row reads it: the key, its value in the row, and the
 * row's command. */
typedef struct {
    int key;
    int value;
    const char *command;
} ui_press;

typedef int (*ui_action)(ui_model *m, const ui_press *p);

typedef struct {
    const char *label;         /* the keys as the help names them; NULL: not in the help */
    int keys[UI_KEYS_MAX];     /* 0 ends the list */
    int values[UI_KEYS_MAX];   /* the action's value for each key */
    ui_action act;             /* NULL: a line of the help only */
    const char *command;       /* the command (commands.h) it asks for: the help shows its
                                * word and help unless the row has its own */
    const char *help;          /* its own help */
} ui_binding;

/* The row of `key` in a table (its value in *value), or the table's
 * catch-all (a row with an action and neither keys nor label), or NULL. */
const ui_binding *ui_binding_find(const ui_binding *table, int key, int *value);
/* The action of `key`'s row, if it has one: its reaction, else UI_KEEP. */
int ui_dispatch(ui_model *m, const ui_binding *table, int key);

/* An action for views that take no clicks: the mouse's event read and
 * dropped. */
int ui_drop_click(ui_model *m, const ui_press *p);

#endif
