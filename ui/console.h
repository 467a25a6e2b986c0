/* stderr while the screen is up (console.c): fd 2 into a non-blocking
 * pipe; drain turns each line read into a call of `line`; end restores
 * fd 2 and prints what was left unread. */
#ifndef ES_UI_CONSOLE_H
#define ES_UI_CONSOLE_H

int ui_console_begin(void);
void ui_console_drain(void (*line)(void *ctx, const char *text), void *ctx);
void ui_console_end(void);

#endif
