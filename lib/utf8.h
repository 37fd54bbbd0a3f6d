/*
 * utf8: valid UTF-8 for every output. Strings come from traces and databases that may hold any bytes
 * (an invalid sequence, a control character); what gpuprof stores and writes is valid UTF-8, and what it
 * shows people has no control characters.
 *
 * An invalid sequence is replaced as Unicode recommends ("substitution of maximal subparts", Unicode
 * 15 section 3.9, U+FFFD per maximal subpart): "\xe4\xb8" (a cut character) is one U+FFFD, "\xff\xfe" two.
 * Overlong forms, surrogates (ED A0..BF) and code points above U+10FFFF are invalid.
 *
 * Ownership: functions append to the caller's struct buf; utf8_dup returns a malloc'ed copy the caller
 * frees. Nothing here keeps state.
 */
#ifndef GPUPROF_UTF8_H
#define GPUPROF_UTF8_H

#include <stddef.h>

struct buf;

/* The UTF-8 encoding of U+FFFD, the replacement character. */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

/*
 * The bytes of the character at s[0..n) (1 to 4) when it is valid UTF-8, else 0 with *bad the bytes of
 * the maximal subpart to replace by one U+FFFD (1 to 3). n must be at least 1.
 */
size_t utf8_next(const char *s, size_t n, size_t *bad);
/* The number of invalid sequences in s[0..n) (0: valid UTF-8). */
size_t utf8_invalid(const char *s, size_t n);
/* Append s[0..n) to b with each invalid sequence replaced by U+FFFD; returns how many were. */
size_t utf8_repair(struct buf *b, const char *s, size_t n);
/* A malloc'ed copy of the NUL-terminated s, repaired (utf8_repair); *replaced, when not NULL, says how many. */
char *utf8_dup(const char *s, size_t *replaced);
/*
 * Append s[0..n) as it may be shown on a terminal or in a document for people: each control character
 * (U+0000..U+001F, U+007F, U+0080..U+009F) written as the visible escape "\x1b" (C1 ones as "\u0085"), each
 * invalid byte as "\xff". A kernel named "\x1b]0;title\x07" then shows as that text instead of setting the
 * terminal's title. Returns how many characters were escaped.
 */
size_t utf8_visible(struct buf *b, const char *s, size_t n);
/* Whether s[0..n) needs utf8_visible: it holds a control character or an invalid sequence. */
int utf8_needs_escape(const char *s, size_t n);

#endif
