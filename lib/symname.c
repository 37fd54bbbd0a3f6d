#include "symname.h"

#include <string.h>

/*
 * 1 when plain (a name's top level, template arguments and parentheses taken out) reads as C++: words
 * that are identifiers or scoped ones ("at::native::kernel", "T::~T"), apart by spaces, '*' or '&'. An NVTX
 * range such as "## forward ##" or "epoch 3" does not.
 */
static int cxx_words(const char *plain)
{
	const char *p = plain;
	while (*p) {
		if (*p == ' ' || *p == '*' || *p == '&') {
			p++;
			continue;
		}
		for (;;) {
			if (*p == '~')
				p++;
			if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
				return 0;	/* a word starts with a letter or '_' */
			while (*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
				p++;
			if (p[0] != ':' || p[1] != ':')
				break;
			while (p[0] == ':' && p[1] == ':')	/* "at::(anonymous namespace)::f" lost its middle */
				p += 2;
		}
		if (*p && *p != ' ' && *p != '*' && *p != '&')
			return 0;
	}
	return 1;
}

void name_short(const char *name, struct buf *out)
{
	size_t full = strlen(name), len = cxx_params_at(name, full), i, start = 0;
	int depth = 0, nested = 0;
	struct buf plain;
	buf_reset(out);
	buf_init(&plain);
	/* Drop template arguments and anything in parentheses ("(anonymous namespace)") at top level. */
	for (i = 0; i < len; i++) {
		char c = name[i];
		if (c == '<' || c == '(') {
			depth++;
			nested = 1;
			continue;
		}
		if ((c == '>' || c == ')') && depth > 0) {
			depth--;
			continue;
		}
		if (!depth)
			buf_addch(&plain, c);
	}
	/* Only a signature is shortened: parameters, template arguments or a scope, in C++ words. */
	if (depth || !cxx_words(plain.s) || (len == full && !nested && !strstr(plain.s, "::"))) {
		buf_addstr(out, name);
		buf_release(&plain);
		return;
	}
	/* The return type is what stands before the last top-level space. */
	for (i = plain.len; i-- > 0;)
		if (plain.s[i] == ' ') {
			start = i + 1;
			break;
		}
	/* The last scope component. */
	for (i = plain.len; i-- > start + 1;)
		if (plain.s[i] == ':' && plain.s[i - 1] == ':') {
			start = i + 1;
			break;
		}
	if (start < plain.len)
		buf_add(out, plain.s + start, plain.len - start);
	else
		buf_addstr(out, name);
	buf_release(&plain);
}

void range_name_clean(const char *name, struct buf *out)
{
	static const char *const counters[] = { ", seq = ", ", op_id = " };
	const char *p = name;
	buf_reset(out);
	while (*p) {
		size_t k, len = 0;
		for (k = 0; k < sizeof(counters) / sizeof(counters[0]) && !len; k++) {
			size_t n = strlen(counters[k]);
			if (!strncmp(p, counters[k], n) && p[n] >= '0' && p[n] <= '9')
				for (len = n; p[len] >= '0' && p[len] <= '9'; len++)
					;
		}
		/* A counter ends at the next ", " or at the end; anything else is part of the name. */
		if (len && (!p[len] || (p[len] == ',' && p[len + 1] == ' '))) {
			p += len;
			continue;
		}
		buf_addch(out, *p++);
	}
}
