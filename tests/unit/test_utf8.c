/* Unit tests for lib/utf8: validation, repair (maximal subparts) and visible escaping. */
#include "check.h"
#include "utf8.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* repair(s) as a string, and how many were replaced into *n. */
static char *repair(const char *s, size_t len, size_t *n)
{
	struct buf b;
	char *out;
	buf_init(&b);
	*n = utf8_repair(&b, s, len);
	out = xstrndup(b.s, b.len);
	buf_release(&b);
	return out;
}

static char *visible(const char *s, size_t *n)
{
	struct buf b;
	char *out;
	buf_init(&b);
	*n = utf8_visible(&b, s, strlen(s));
	out = xstrndup(b.s, b.len);
	buf_release(&b);
	return out;
}

#define R "\xef\xbf\xbd"

int main(void)
{
	/* Valid UTF-8, every length, stays as it is. */
	static const char *valid[] = { "", "abc", "\xc2\xa9", "\xe4\xb8\xad\xe6\x96\x87", "\xf0\x9f\x98\x80",
				       "\xef\xbf\xbd", "\xf4\x8f\xbf\xbf", "\xed\x9f\xbf" };
	/* Invalid: what each becomes and how many U+FFFD (Unicode's maximal subparts). */
	static const struct { const char *in, *out; size_t n; } bad[] = {
		{ "k\xff", "k" R, 1 },
		{ "\xff\xfe", R R, 2 },
		{ "\xc0\xaf", R R, 2 },			/* an overlong '/': C0 is never valid */
		{ "\xe0\x80\xaf", R R R, 3 },		/* overlong three-byte form */
		{ "\xed\xa0\x80", R R R, 3 },		/* a surrogate, U+D800 */
		{ "\xf4\x90\x80\x80", R R R R, 4 },	/* above U+10FFFF */
		{ "\xe4\xb8", R, 1 },			/* a character cut off: one */
		{ "\xe4\xb8x", R "x", 1 },
		{ "\xf0\x9f\x98", R, 1 },
		{ "a\x80\x80z", "a" R R "z", 2 },	/* lone continuation bytes */
	};
	size_t i, n;
	char *s;

	util_init("test_utf8");
	for (i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		CHECK_EQ_I64(utf8_invalid(valid[i], strlen(valid[i])), 0);
		s = repair(valid[i], strlen(valid[i]), &n);
		CHECK_EQ_STR(s, valid[i]);
		CHECK_EQ_I64(n, 0);
		free(s);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ_I64(utf8_invalid(bad[i].in, strlen(bad[i].in)), bad[i].n);
		s = repair(bad[i].in, strlen(bad[i].in), &n);
		CHECK_EQ_STR(s, bad[i].out);
		CHECK_EQ_I64(n, bad[i].n);
		CHECK_EQ_I64(utf8_invalid(s, strlen(s)), 0);
		free(s);
		s = utf8_dup(bad[i].in, &n);
		CHECK_EQ_STR(s, bad[i].out);
		CHECK_EQ_I64(n, bad[i].n);
		free(s);
	}
	/* A length that ends inside a character: that character is cut. */
	CHECK_EQ_I64(utf8_invalid("\xe4\xb8\xad", 2), 1);

	/* Visible: control characters (C0, DEL, C1) escaped, invalid bytes shown, the rest as it is. */
	CHECK(!utf8_needs_escape("plain \xe4\xb8\xad", 9));
	CHECK(utf8_needs_escape("\x1b", 1));
	CHECK(utf8_needs_escape("\x7f", 1));
	CHECK(utf8_needs_escape("\xc2\x85", 2));
	CHECK(utf8_needs_escape("k\xff", 2));
	s = visible("\x1b]0;PWNED\x07\x1b[2J", &n);
	CHECK_EQ_STR(s, "\\x1b]0;PWNED\\x07\\x1b[2J");
	CHECK_EQ_I64(n, 3);
	free(s);
	s = visible("a\tb\nc\x7f\xc2\x85\xc2\xa9k\xff\xe4\xb8", &n);
	CHECK_EQ_STR(s, "a\\x09b\\x0ac\\x7f\\u0085\xc2\xa9k\\xff\\xe4\\xb8");
	CHECK_EQ_I64(n, 6);
	free(s);
	s = visible("no change", &n);
	CHECK_EQ_STR(s, "no change");
	CHECK_EQ_I64(n, 0);
	free(s);
	return check_done("test_utf8");
}
