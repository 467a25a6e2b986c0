/* Text that reaches a terminal. Names, descriptions, paths and lines from
 * files come from anyone: a manifest downloaded with a room, a jconvolver
 * configuration, a file name. Printed raw, their bytes are commands to the
 * terminal (ESC [ 2 J clears it, OSC 52 writes the clipboard, a C1 CSI
 * byte does what ESC [ does). So every line earshot shows passes through
 * es_text_escape, and every field a person writes into a file earshot
 * reads back is checked with es_text_check first.
 *
 * Escaped form: each C0 control, DEL and byte of invalid UTF-8 becomes
 * \xNN, a C1 control (U+0080..U+009F) becomes \u0080..\u009f; everything
 * else (printable ASCII, valid UTF-8 of U+00A0 and up) is kept. */
#ifndef ES_CORE_TEXT_H
#define ES_CORE_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* The length of the valid UTF-8 sequence at s (1..4), 0 at the end of the
 * string, or -1 for a byte that does not start one (overlong forms,
 * surrogates and code points past U+10FFFF are invalid). *cp gets the
 * code point. */
int es_utf8_next(const char *s, unsigned *cp);

/* Writes the escaped form of `in` into out[n] (always terminated; cut at a
 * whole escape). Returns out. */
char *es_text_escape(char *out, size_t n, const char *in);

/* Writes the escaped form of `in` to a stream. */
void es_text_put(FILE *to, const char *in);

/* 0 when `s` is valid UTF-8 with no C0 control, DEL or C1 control; else -1
 * and, in why[n], what is wrong and where ("a control character (\x1b) at
 * byte 4", "invalid UTF-8 (\xff) at byte 0"). */
int es_text_check(const char *s, char *why, size_t n);

#endif
