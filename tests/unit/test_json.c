/* Unit tests for lib/json: exact integers, escapes, errors. */
#include "check.h"
#include "json.h"
#include "util.h"

#include <stdlib.h>

static int parse(struct json_doc *d, const char *text, char **keep)
{
	*keep = xstrdup(text);
	return json_parse(d, *keep, strlen(*keep));
}

int main(void)
{
	struct json_doc d;
	const struct jnode *r, *a, *v;
	struct buf b;
	char *s;
	int64_t i;

	util_init("test_json");
	json_doc_init(&d);

	/* Integers above 2^53 stay exact (a double would round 1763822038123456789 to ...456768). */
	CHECK(parse(&d, "{\"t\":1763822038123456789,\"neg\":-9223372036854775808}", &s) == 0);
	r = json_root(&d);
	CHECK(json_get_i64(&d, r, "t", &i) == 0);
	CHECK_EQ_I64(i, 1763822038123456789LL);
	CHECK(json_get_i64(&d, r, "neg", &i) == 0);
	CHECK(i == INT64_MIN);
	free(s);

	/* Beyond int64 becomes a real, not a wrapped integer. */
	CHECK(parse(&d, "[9223372036854775808, 1.5, -2e3]", &s) == 0);
	r = json_root(&d);
	a = json_first(&d, r);
	CHECK(a->type == J_REAL);
	v = json_next(&d, a);
	CHECK(v->type == J_REAL && v->num == 1.5);
	v = json_next(&d, v);
	CHECK(v->type == J_REAL && v->num == -2000);
	free(s);

	/* Escapes, including a surrogate pair, decode to UTF-8 in place. */
	CHECK(parse(&d, "{\"k\":\"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00<&>\"}", &s) == 0);
	CHECK_EQ_STR(json_get_str(&d, json_root(&d), "k"), "a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80<&>");
	free(s);

	/* Scalars of one array are consecutive nodes (the batch reader relies on it). */
	CHECK(parse(&d, "{\"x\":[1,2,3],\"y\":[4,5,6]}", &s) == 0);
	a = json_first(&d, json_get(&d, json_root(&d), "y"));
	CHECK_EQ_I64(a[0].u.i, 4);
	CHECK_EQ_I64(a[2].u.i, 6);
	free(s);

	/* Exact decimal scaling: microseconds to nanoseconds without binary rounding. */
	{
		static const struct { const char *text; int64_t want; int ok; } cases[] = {
			{ "1712195495505543.2", 1712195495505543200LL, 1 },
			{ "1712195495505543.0", 1712195495505543000LL, 1 },
			{ "22.545", 22545, 1 },
			{ "1.2345", 1235, 1 },		/* the half rounds away from zero */
			{ "1.2344", 1234, 1 },
			{ "-1.2345", -1235, 1 },
			{ "0.0004", 0, 1 },
			{ "0.0005", 1, 1 },
			{ "4203669603187.439", 4203669603187439LL, 1 },
			{ "1.5e3", 1500000, 1 },
			{ "25e-4", 3, 1 },
			{ "1e30", 0, 0 },
			{ "42", 42000, 1 },
		};
		size_t k;
		for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			char text[64];
			snprintf(text, sizeof(text), "[%s]", cases[k].text);
			CHECK(json_parse(&d, text, strlen(text)) == 0);
			i = -7;
			if (cases[k].ok) {
				CHECK(json_decimal_scaled(json_first(&d, json_root(&d)), 3, &i) == 0);
				if (i != cases[k].want)
					fprintf(stderr, "%s -> %lld, want %lld\n", cases[k].text, (long long)i,
						(long long)cases[k].want);
				CHECK(i == cases[k].want);
			} else {
				CHECK(json_decimal_scaled(json_first(&d, json_root(&d)), 3, &i) == -1);
			}
		}
	}

	/* Errors. */
	{
		static const char *bad[] = { "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "\"abc", "nul",
					     "\"\\x\"", "\"\\ud800\"", "[1] x", "{\"a\":1,}", "\"\t\"", "1e" };
		size_t k;
		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			int rc = parse(&d, bad[k], &s);
			if (rc != -1)
				fprintf(stderr, "accepted bad JSON: %s\n", bad[k]);
			CHECK(rc == -1 && d.err);
			free(s);
		}
	}
	/* \u0000 is no error: U+FFFD in its place (a C string cannot hold a NUL), counted in d.nuls. */
	{
		struct json_doc n;
		json_doc_init(&n);
		CHECK(parse(&n, "{\"k\\u0000\":\"a\\u0000b\\u0000\"}", &s) == 0);
		r = json_root(&n);
		CHECK(json_first(&n, r) && !strcmp(json_first(&n, r)->key, "k\xef\xbf\xbd"));
		CHECK_EQ_STR(json_get_str(&n, r, "k\xef\xbf\xbd"), "a\xef\xbf\xbd" "b\xef\xbf\xbd");
		CHECK_EQ_I64(json_first(&n, r)->len, 8);
		CHECK_EQ_I64(n.nuls, 3);
		free(s);
		CHECK(parse(&n, "[\"\\u0000\"]", &s) == 0);
		CHECK_EQ_I64(n.nuls, 4);	/* counted since json_doc_init */
		free(s);
		json_doc_release(&n);
		CHECK_EQ_I64(n.nuls, 0);
	}
	/* json_quote writes valid UTF-8 whatever it is given: each invalid sequence as U+FFFD. */
	{
		struct buf q;
		buf_init(&q);
		json_quote(&q, "k\xff\x1b\xe4\xb8\xad\xe4\xb8", 8);
		CHECK_EQ_STR(q.s, "\"k\xef\xbf\xbd\\u001b\xe4\xb8\xad\xef\xbf\xbd\"");
		buf_release(&q);
	}
	/* Nesting is bounded, so hostile input cannot overflow the stack. */
	{
		char deep[300];
		memset(deep, '[', sizeof(deep) - 1);
		deep[sizeof(deep) - 1] = '\0';
		CHECK(parse(&d, deep, &s) == -1);
		free(s);
	}

	/* Writing back round-trips. */
	CHECK(parse(&d, "{\"a\":[1,-2,\"x\\\"y\"],\"b\":{\"c\":null,\"d\":true},\"e\":0.25}", &s) == 0);
	buf_init(&b);
	json_write(&b, &d, json_root(&d));
	CHECK_EQ_STR(b.s, "{\"a\":[1,-2,\"x\\\"y\"],\"b\":{\"c\":null,\"d\":true},\"e\":0.25}");
	buf_release(&b);
	free(s);

	/* parse_i64 rejects overflow and junk. */
	CHECK(parse_i64("9223372036854775807", 19, &i) == 0 && i == INT64_MAX);
	CHECK(parse_i64("9223372036854775808", 19, &i) == -1);
	CHECK(parse_i64("12a", 3, &i) == -1);
	CHECK(parse_i64("-", 1, &i) == -1);

	json_doc_release(&d);
	return check_done("test_json");
}
