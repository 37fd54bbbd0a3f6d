#include "json.h"
#include "utf8.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <math.h>

struct parser {
	struct json_doc *d;
	char *p, *end, *start;
	int depth;
};

void json_doc_init(struct json_doc *d)
{
	memset(d, 0, sizeof(*d));
}

void json_doc_release(struct json_doc *d)
{
	free(d->nodes);
	json_doc_init(d);
}

static int fail(struct parser *ps, const char *what)
{
	if (!ps->d->err) {
		ps->d->err = what;
		ps->d->err_off = (size_t)(ps->p - ps->start);
	}
	return -1;
}

static uint32_t new_node(struct parser *ps, uint8_t type)
{
	struct json_doc *d = ps->d;
	struct jnode *n;
	if (d->n == d->alloc && !d->soft)
		ALLOC_GROW(d->nodes, d->n + 1, d->alloc);
	if (d->n == d->alloc && ALLOC_GROW_SOFT(d->nodes, d->n + 1, d->alloc)) {
		d->oom = 1;
		fail(ps, "out of memory");
		return UINT32_MAX;
	}
	n = &d->nodes[d->n];
	n->key = NULL;
	n->len = 0;
	n->first = 0;
	n->next = 0;
	n->type = type;
	n->lazy = 0;
	n->num = 0;
	return (uint32_t)d->n++;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int read_hex4(struct parser *ps, unsigned *out)
{
	unsigned v = 0;
	int i;
	if (ps->end - ps->p < 4)
		return fail(ps, "truncated \\u escape");
	for (i = 0; i < 4; i++) {
		int h = hexval((unsigned char)ps->p[i]);
		if (h < 0)
			return fail(ps, "bad \\u escape");
		v = v * 16 + (unsigned)h;
	}
	ps->p += 4;
	*out = v;
	return 0;
}

static char *put_utf8(char *w, unsigned cp)
{
	if (cp < 0x80) {
		*w++ = (char)cp;
	} else if (cp < 0x800) {
		*w++ = (char)(0xC0 | (cp >> 6));
		*w++ = (char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*w++ = (char)(0xE0 | (cp >> 12));
		*w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*w++ = (char)(0x80 | (cp & 0x3F));
	} else {
		*w++ = (char)(0xF0 | (cp >> 18));
		*w++ = (char)(0x80 | ((cp >> 12) & 0x3F));
		*w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*w++ = (char)(0x80 | (cp & 0x3F));
	}
	return w;
}

/*
 * Parse a string starting at the opening quote; unescape in place. Sets *out and *outlen.
 * The decoded text never grows, so writing behind the read pointer is safe.
 */
static int parse_string(struct parser *ps, const char **out, uint32_t *outlen)
{
	char *w, *s;
	ps->p++;		/* opening quote */
	s = w = ps->p;
	for (;;) {
		unsigned char c;
		if (ps->p >= ps->end)
			return fail(ps, "unterminated string");
		c = (unsigned char)*ps->p;
		if (c == '"')
			break;
		if (c < 0x20)
			return fail(ps, "control character in string");
		if (c != '\\') {
			*w++ = (char)c;
			ps->p++;
			continue;
		}
		ps->p++;
		if (ps->p >= ps->end)
			return fail(ps, "unterminated string");
		c = (unsigned char)*ps->p++;
		switch (c) {
		case '"': *w++ = '"'; break;
		case '\\': *w++ = '\\'; break;
		case '/': *w++ = '/'; break;
		case 'b': *w++ = '\b'; break;
		case 'f': *w++ = '\f'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case 't': *w++ = '\t'; break;
		case 'u': {
			unsigned cp, lo;
			if (read_hex4(ps, &cp))
				return -1;
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u')
					return fail(ps, "unpaired surrogate in \\u escape");
				ps->p += 2;
				if (read_hex4(ps, &lo))
					return -1;
				if (lo < 0xDC00 || lo > 0xDFFF)
					return fail(ps, "unpaired surrogate in \\u escape");
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			} else if (cp >= 0xDC00 && cp <= 0xDFFF) {
				return fail(ps, "unpaired surrogate in \\u escape");
			} else if (cp == 0) {	/* no C string holds it: U+FFFD, counted (6 bytes read, 3 written) */
				cp = 0xFFFD;
				ps->d->nuls++;
			}
			w = put_utf8(w, cp);
			break;
		}
		default:
			return fail(ps, "bad escape in string");
		}
	}
	ps->p++;		/* closing quote */
	*w = '\0';
	*out = s;
	*outlen = (uint32_t)(w - s);
	return 0;
}

static int parse_number(struct parser *ps, struct jnode *n)
{
	char *s = ps->p;
	int is_int = 1;
	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
		return fail(ps, "bad number");
	if (*ps->p == '0' && ps->p + 1 < ps->end && ps->p[1] >= '0' && ps->p[1] <= '9')
		return fail(ps, "leading zero in number");
	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
		ps->p++;
	if (ps->p < ps->end && *ps->p == '.') {
		is_int = 0;
		ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
			return fail(ps, "bad number");
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		is_int = 0;
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
			return fail(ps, "bad number");
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	if (is_int && !parse_i64(s, (size_t)(ps->p - s), &n->u.i)) {
		n->type = J_INT;
		n->num = (double)n->u.i;
		return 0;
	}
	/* A fraction, an exponent or an integer beyond int64: keep it as a double. */
	{
		char tmp[64];
		size_t len = (size_t)(ps->p - s);
		char *num;
		if (len < sizeof(tmp)) {
			memcpy(tmp, s, len);
			tmp[len] = '\0';
			num = tmp;
		} else {
			num = xstrndup(s, len);
		}
		n->type = J_REAL;
		n->num = strtod(num, NULL);
		n->u.s = s;	/* the number's text, for exact decimal conversions */
		n->len = (uint32_t)len;
		if (num != tmp)
			free(num);
		if (!isfinite(n->num))
			return fail(ps, "number out of range");
	}
	return 0;
}

static int parse_value(struct parser *ps, uint32_t *out);

/*
 * A lazy array (json_doc.lazy): its end found and its values counted (commas outside strings and nested
 * values), nothing parsed or changed; json_iter reads and checks it.
 */
static int skip_array(struct parser *ps, struct jnode *n)
{
	char *s = ps->p;
	uint32_t count = 0;
	int depth = 0, any = 0;
	for (; ps->p < ps->end; ps->p++) {
		char c = *ps->p;
		if (c == '"') {
			for (ps->p++; ps->p < ps->end && *ps->p != '"'; ps->p++)
				if (*ps->p == '\\')
					ps->p++;
			if (ps->p >= ps->end)
				break;
			any = 1;
		} else if (c == '[' || c == '{') {
			any |= depth > 0;
			depth++;
		} else if (c == ']' || c == '}') {
			if (--depth == 0)
				break;
		} else if (c == ',' && depth == 1) {
			count++;
		} else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			any = 1;
		}
	}
	if (ps->p >= ps->end)
		return fail(ps, "unterminated array");
	ps->p++;
	if ((size_t)(ps->p - s) > UINT32_MAX)
		return fail(ps, "array too long");
	n->lazy = 1;
	n->u.s = s;
	n->first = (uint32_t)(ps->p - s);
	n->len = count + (uint32_t)any;
	return 0;
}

static int parse_container(struct parser *ps, uint32_t self, int object)
{
	uint32_t prev = 0, count = 0;
	char close = object ? '}' : ']';
	if (++ps->depth > JSON_MAX_DEPTH)
		return fail(ps, "nested too deeply");
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		const char *key = NULL;
		uint32_t klen, child;
		if (object) {
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != '"')
				return fail(ps, "expected a member name");
			if (parse_string(ps, &key, &klen))
				return -1;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':')
				return fail(ps, "expected ':'");
			ps->p++;
		}
		if (parse_value(ps, &child))
			return -1;
		ps->d->nodes[child].key = key;
		if (prev)
			ps->d->nodes[prev].next = child;
		else
			ps->d->nodes[self].first = child;
		prev = child;
		count++;
		skip_ws(ps);
		if (ps->p >= ps->end)
			return fail(ps, object ? "unterminated object" : "unterminated array");
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == close) {
			ps->p++;
			break;
		}
		return fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
	}
	ps->d->nodes[self].len = count;
	ps->depth--;
	return 0;
}

static int match_word(struct parser *ps, const char *w, size_t n)
{
	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n))
		return fail(ps, "invalid literal");
	ps->p += n;
	return 0;
}

static int parse_value(struct parser *ps, uint32_t *out)
{
	uint32_t self;
	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail(ps, "unexpected end of input");
	switch (*ps->p) {
	case '{':
		if ((self = new_node(ps, J_OBJECT)) == UINT32_MAX)
			return -1;
		*out = self;
		return parse_container(ps, self, 1);
	case '[':
		if ((self = new_node(ps, J_ARRAY)) == UINT32_MAX)
			return -1;
		*out = self;
		if (ps->d->lazy && ps->depth == 1)
			return skip_array(ps, &ps->d->nodes[self]);
		return parse_container(ps, self, 0);
	case '"': {
		const char *s;
		uint32_t len;
		if ((self = new_node(ps, J_STRING)) == UINT32_MAX)
			return -1;
		*out = self;
		if (parse_string(ps, &s, &len))
			return -1;
		ps->d->nodes[self].u.s = s;
		ps->d->nodes[self].len = len;
		return 0;
	}
	case 't':
		if ((*out = new_node(ps, J_TRUE)) == UINT32_MAX)
			return -1;
		return match_word(ps, "true", 4);
	case 'f':
		if ((*out = new_node(ps, J_FALSE)) == UINT32_MAX)
			return -1;
		return match_word(ps, "false", 5);
	case 'n':
		if ((*out = new_node(ps, J_NULL)) == UINT32_MAX)
			return -1;
		return match_word(ps, "null", 4);
	default:
		if (*ps->p != '-' && (*ps->p < '0' || *ps->p > '9'))
			return fail(ps, "unexpected character");
		if ((self = new_node(ps, J_INT)) == UINT32_MAX)
			return -1;
		*out = self;
		return parse_number(ps, &ps->d->nodes[self]);
	}
}

int json_parse(struct json_doc *d, char *text, size_t len)
{
	struct parser ps;
	uint32_t root;
	ps.d = d;
	ps.p = ps.start = text;
	ps.end = text + len;
	ps.depth = 0;
	d->n = 0;
	d->err = NULL;
	d->err_off = 0;
	d->oom = 0;
	d->text = text;
	if (parse_value(&ps, &root))
		return -1;
	skip_ws(&ps);
	if (ps.p != ps.end)
		return fail(&ps, "trailing characters after JSON value");
	return 0;
}

const struct jnode *json_first(const struct json_doc *d, const struct jnode *n)
{
	if ((n->type != J_ARRAY && n->type != J_OBJECT) || !n->len || n->lazy)
		return NULL;
	return &d->nodes[n->first];
}

const struct jnode *json_next(const struct json_doc *d, const struct jnode *n)
{
	return n->next ? &d->nodes[n->next] : NULL;
}

const struct jnode *json_get(const struct json_doc *d, const struct jnode *n, const char *key)
{
	const struct jnode *c;
	if (n->type != J_OBJECT)
		return NULL;
	for (c = json_first(d, n); c; c = json_next(d, c))
		if (!strcmp(c->key, key))
			return c;
	return NULL;
}

int json_get_i64(const struct json_doc *d, const struct jnode *obj, const char *key, int64_t *out)
{
	const struct jnode *n = json_get(d, obj, key);
	if (!n || n->type != J_INT) {
		*out = 0;
		return -1;
	}
	*out = n->u.i;
	return 0;
}

const char *json_get_str(const struct json_doc *d, const struct jnode *obj, const char *key)
{
	const struct jnode *n = json_get(d, obj, key);
	return n && n->type == J_STRING ? n->u.s : NULL;
}

void json_quote(struct buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0, k, bad;
	buf_addch(b, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80) {	/* a character of UTF-8, or an invalid sequence: U+FFFD */
			if ((k = utf8_next(s + i, n - i, &bad))) {
				i += k - 1;
				continue;
			}
			buf_add(b, s + run, i - run);
			buf_add(b, UTF8_REPLACEMENT, 3);
			i += bad - 1;
			run = i + 1;
			continue;
		}
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		buf_add(b, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"': buf_add(b, "\\\"", 2); break;
		case '\\': buf_add(b, "\\\\", 2); break;
		case '\n': buf_add(b, "\\n", 2); break;
		case '\r': buf_add(b, "\\r", 2); break;
		case '\t': buf_add(b, "\\t", 2); break;
		default: {
			char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			buf_add(b, e, 6);
		}
		}
	}
	buf_add(b, s + run, n - run);
	buf_addch(b, '"');
}

void json_write(struct buf *b, const struct json_doc *d, const struct jnode *n)
{
	const struct jnode *c;
	switch (n->type) {
	case J_NULL: buf_addstr(b, "null"); break;
	case J_FALSE: buf_addstr(b, "false"); break;
	case J_TRUE: buf_addstr(b, "true"); break;
	case J_INT: buf_addi64(b, n->u.i); break;
	case J_REAL: buf_add(b, n->u.s, n->len); break;
	case J_STRING: json_quote(b, n->u.s, n->len); break;
	case J_ARRAY:
	case J_OBJECT:
		buf_addch(b, n->type == J_ARRAY ? '[' : '{');
		for (c = json_first(d, n); c; c = json_next(d, c)) {
			if (c != json_first(d, n))
				buf_addch(b, ',');
			if (n->type == J_OBJECT) {
				json_quote(b, c->key, strlen(c->key));
				buf_addch(b, ':');
			}
			json_write(b, d, c);
		}
		buf_addch(b, n->type == J_ARRAY ? ']' : '}');
		break;
	}
}

int json_decimal_scaled(const struct jnode *n, int digits, int64_t *out)
{
	char d[64];
	size_t nd = 0, i;
	const char *p, *end;
	int point = -1, neg = 0, exp10 = 0, round_up;
	uint64_t v = 0;

	if (n->type == J_INT) {
		int64_t scale = 1;
		for (i = 0; i < (size_t)digits; i++)
			scale *= 10;
		return __builtin_mul_overflow(n->u.i, scale, out) ? -1 : 0;
	}
	if (n->type != J_REAL)
		return -1;
	p = n->u.s;
	end = p + n->len;
	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	/* Significant digits into d[], remembering where the decimal point falls. */
	for (; p < end && ((*p >= '0' && *p <= '9') || *p == '.'); p++) {
		if (*p == '.') {
			point = (int)nd;
			continue;
		}
		if (nd == 0 && *p == '0' && point < 0)
			continue;	/* leading zeros of the integer part */
		if (nd < sizeof(d))
			d[nd++] = *p;
		else if (point < 0)
			return -1;	/* more integer digits than any int64 holds */
	}
	if (point < 0)
		point = (int)nd;
	if (p < end && (*p == 'e' || *p == 'E')) {
		int64_t e;
		p++;
		if (parse_i64(p, (size_t)(end - p), &e) && !(*p == '+' && !parse_i64(p + 1, (size_t)(end - p - 1), &e)))
			return -1;
		if (e > 400 || e < -400)
			return -1;
		exp10 = (int)e;
	}
	point += exp10 + digits;	/* digits before the point of the scaled value */
	for (i = 0; (int)i < point; i++) {
		unsigned dig = i < nd ? (unsigned)(d[i] - '0') : 0;
		if (v > (UINT64_MAX - dig) / 10)
			return -1;
		v = v * 10 + dig;
	}
	/* Round half away from zero on the first dropped digit. */
	round_up = point >= 0 && (size_t)point < nd && d[point] >= '5';
	v += (uint64_t)round_up;
	if (v > (uint64_t)INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

void json_iter_init(struct json_iter *it, const struct json_doc *d, const struct jnode *array)
{
	json_doc_init(&it->one);
	it->one.soft = d->soft;
	it->start = d->text;
	it->p = (char *)array->u.s + 1;	/* after '[' */
	it->end = (char *)array->u.s + array->first;
	it->done = !array->lazy || !array->len;	/* (a lazy array's text ends with ']') */
}

const struct jnode *json_iter_next(struct json_iter *it)
{
	struct parser ps;
	uint32_t v;
	if (it->done)
		return NULL;
	ps.d = &it->one;
	ps.p = it->p;
	ps.end = it->end;
	ps.start = (char *)it->start;
	ps.depth = 1;
	it->one.n = 0;
	it->one.err = NULL;
	it->one.text = it->start;
	if (parse_value(&ps, &v)) {
		it->done = 1;
		return NULL;
	}
	skip_ws(&ps);
	if (ps.p < ps.end && *ps.p == ',') {
		ps.p++;
	} else if (ps.p + 1 == ps.end && *ps.p == ']') {
		it->done = 1;	/* the last value: the next call says the end */
		ps.p = ps.end;
	} else {
		fail(&ps, "expected ',' or ']'");
		it->done = 1;
		return NULL;
	}
	it->p = ps.p;
	return &it->one.nodes[v];
}

void json_iter_release(struct json_iter *it)
{
	json_doc_release(&it->one);
}
