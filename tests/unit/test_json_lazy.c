/* Unit tests for lib/json's lazy arrays (json_doc.lazy, json_iter): what the NDJSON decoder reads. */
#include "check.h"
#include "json.h"
#include "util.h"

#include <stdlib.h>

/* Parse text lazily (a copy kept in *keep); 0 or -1 as json_parse. */
static int parse(struct json_doc *d, const char *text, char **keep)
{
	*keep = xstrdup(text);
	d->lazy = 1;
	d->soft = 1;
	return json_parse(d, *keep, strlen(*keep));
}

/* The values of lazy array `key` as compact JSON, ";"-separated, into b; the iterator's error or NULL. */
static const char *values(const struct json_doc *d, const char *key, struct buf *b)
{
	const struct jnode *a = json_get(d, json_root(d), key), *v;
	struct json_iter it;
	static char err[128];
	int failed;
	buf_reset(b);
	json_iter_init(&it, d, a);
	while ((v = json_iter_next(&it))) {
		if (b->len)
			buf_addch(b, ';');
		json_write(b, &it.one, v);
	}
	failed = it.one.err != NULL;
	if (failed)
		snprintf(err, sizeof(err), "%s at %zu", it.one.err, it.one.err_off);
	json_iter_release(&it);
	return failed ? err : NULL;
}

int main(void)
{
	struct json_doc d;
	const struct jnode *r, *a;
	struct buf b;
	char *s;

	util_init("test_json_lazy");
	json_doc_init(&d);
	buf_init(&b);

	/* Members of the root object that are arrays are left unparsed, counted; other members are parsed. */
	CHECK(parse(&d, "{\"type\":\"kernel\",\"n\":3,\"a\":[1, -2 ,3],\"e\":[ ],\"o\":{\"x\":[1]},"
			"\"s\":[\"x,]\\\"y\",\"\\u00e9\",null],\"nest\":[[1,2],{\"k\":[3]},[]]}", &s) == 0);
	r = json_root(&d);
	CHECK_EQ_STR(json_get_str(&d, r, "type"), "kernel");
	a = json_get(&d, r, "a");
	CHECK(a && a->type == J_ARRAY && a->lazy && a->len == 3);
	CHECK(json_first(&d, a) == NULL);	/* no children: read with json_iter */
	CHECK(values(&d, "a", &b) == NULL);
	CHECK_EQ_STR(b.s, "1;-2;3");
	a = json_get(&d, r, "e");
	CHECK(a && a->lazy && a->len == 0);
	CHECK(values(&d, "e", &b) == NULL);
	CHECK_EQ_STR(b.s, "");
	/* An array deeper than the root's members is parsed as always. */
	a = json_get(&d, json_get(&d, r, "o"), "x");
	CHECK(a && !a->lazy && a->len == 1 && json_first(&d, a)->u.i == 1);
	/* Commas and brackets inside strings are no values' ends; escapes are undone once. */
	a = json_get(&d, r, "s");
	CHECK(a && a->len == 3);
	CHECK(values(&d, "s", &b) == NULL);
	CHECK_EQ_STR(b.s, "\"x,]\\\"y\";\"\xc3\xa9\";null");
	a = json_get(&d, r, "nest");
	CHECK(a && a->len == 3);
	CHECK(values(&d, "nest", &b) == NULL);
	CHECK_EQ_STR(b.s, "[1,2];{\"k\":[3]};[]");
	free(s);

	/* Invalid JSON inside a lazy array is found when it is read, with its offset in the whole text. */
	CHECK(parse(&d, "{\"a\":[1,,2]}", &s) == 0);
	CHECK_EQ_STR(values(&d, "a", &b), "unexpected character at 8");
	CHECK_EQ_STR(b.s, "1");
	free(s);
	CHECK(parse(&d, "{\"a\":[1,2,]}", &s) == 0);
	CHECK(values(&d, "a", &b) != NULL);
	free(s);
	CHECK(parse(&d, "{\"a\":[1 2]}", &s) == 0);
	CHECK_EQ_STR(values(&d, "a", &b), "expected ',' or ']' at 8");
	free(s);
	CHECK(parse(&d, "{\"a\":[1}", &s) == -1);	/* the '}' ends the array: the object is unterminated */
	free(s);
	CHECK(parse(&d, "{\"a\":[\"x\\q\"]}", &s) == 0);
	CHECK(values(&d, "a", &b) != NULL);
	free(s);
	/* An array that never ends is an error of the parse itself. */
	CHECK(parse(&d, "{\"a\":[1,2", &s) == -1);
	CHECK_EQ_STR(d.err, "unterminated array");
	free(s);
	CHECK(parse(&d, "{\"a\":[\"]\"", &s) == -1);
	free(s);
	/* The root itself an array: parsed as always. */
	CHECK(parse(&d, "[1,[2]]", &s) == 0);
	r = json_root(&d);
	CHECK(!r->lazy && r->len == 2 && json_first(&d, r)->u.i == 1);
	free(s);

	buf_release(&b);
	json_doc_release(&d);
	return check_done("test_json_lazy");
}
