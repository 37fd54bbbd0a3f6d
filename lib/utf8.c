/*
 * utf8: validation, repair and visible escaping of UTF-8 text (utf8.h).
 */
#include "utf8.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

size_t utf8_next(const char *str, size_t n, size_t *bad)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned c = s[0], lo = 0x80, hi = 0xBF;
	size_t need, i;
	*bad = 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		need = 1;
	else if (c >= 0xE0 && c <= 0xEF)
		need = 2;
	else if (c >= 0xF0 && c <= 0xF4)
		need = 3;
	else {
		*bad = 1;	/* a continuation byte, C0, C1 (overlong) or F5..FF */
		return 0;
	}
	/* The second byte's range rules out overlong forms, surrogates and code points above U+10FFFF. */
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	for (i = 1; i <= need; i++) {
		unsigned b = i < n ? s[i] : 0;
		if (i >= n || b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) {
			*bad = i;	/* the lead byte and the continuation bytes that fit: one maximal subpart */
			return 0;
		}
	}
	return need + 1;
}

size_t utf8_invalid(const char *s, size_t n)
{
	size_t i = 0, count = 0, bad, k;
	while (i < n) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		if ((k = utf8_next(s + i, n - i, &bad))) {
			i += k;
		} else {
			count++;
			i += bad;
		}
	}
	return count;
}

size_t utf8_repair(struct buf *b, const char *s, size_t n)
{
	size_t i = 0, run = 0, count = 0, bad, k;
	while (i < n) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		if ((k = utf8_next(s + i, n - i, &bad))) {
			i += k;
			continue;
		}
		buf_add(b, s + run, i - run);
		buf_add(b, UTF8_REPLACEMENT, 3);
		count++;
		i += bad;
		run = i;
	}
	buf_add(b, s + run, n - run);
	return count;
}

char *utf8_dup(const char *s, size_t *replaced)
{
	size_t n = strlen(s), count = 0;
	char *out;
	if (!utf8_invalid(s, n)) {
		out = xstrndup(s, n);
	} else {
		struct buf b;
		buf_init(&b);
		count = utf8_repair(&b, s, n);
		out = xstrndup(b.s, b.len);
		buf_release(&b);
	}
	if (replaced)
		*replaced = count;
	return out;
}

int utf8_needs_escape(const char *s, size_t n)
{
	size_t i = 0, bad, k;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7F)
			return 1;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (!(k = utf8_next(s + i, n - i, &bad)) || (c == 0xC2 && (unsigned char)s[i + 1] < 0xA0))
			return 1;
		i += k;
	}
	return 0;
}

size_t utf8_visible(struct buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, run = 0, count = 0, bad, k, j;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		char e[6];
		if (c >= 0x20 && c < 0x7F) {
			i++;
			continue;
		}
		if (c >= 0x80 && (k = utf8_next(s + i, n - i, &bad)) &&
		    !(c == 0xC2 && (unsigned char)s[i + 1] < 0xA0)) {
			i += k;
			continue;
		}
		buf_add(b, s + run, i - run);
		if (c == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 && (unsigned char)s[i + 1] < 0xA0) {	/* a C1 control, U+0080..U+009F */
			unsigned cp = (unsigned char)s[i + 1];
			char u[6] = { '\\', 'u', '0', '0', hex[cp >> 4], hex[cp & 15] };
			buf_add(b, u, 6);
			i += 2;
		} else if (c < 0x80) {	/* C0 or DEL */
			e[0] = '\\', e[1] = 'x', e[2] = hex[c >> 4], e[3] = hex[c & 15];
			buf_add(b, e, 4);
			i++;
		} else {	/* the bytes of an invalid sequence, each shown */
			for (j = 0; j < bad; j++) {
				unsigned char x = (unsigned char)s[i + j];
				e[0] = '\\', e[1] = 'x', e[2] = hex[x >> 4], e[3] = hex[x & 15];
				buf_add(b, e, 4);
			}
			i += bad;
		}
		count++;
		run = i;
	}
	buf_add(b, s + run, n - run);
	return count;
}
