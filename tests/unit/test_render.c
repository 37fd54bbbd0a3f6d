/* Unit tests for lib/table renderers: CSV quoting and formula guards, JSON escaping, number forms. */
#include "check.h"
#include "table.h"
#include "util.h"

#include <stdlib.h>

static char *render(int fmt, const struct table *t)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);
	if (fmt == FMT_CSV)
		render_csv(f, t);
	else if (fmt == FMT_JSON)
		render_json(f, t, NULL);
	else if (fmt == FMT_MD)
		render_md(f, t);
	else
		render_text(f, t, NULL);
	fclose(f);
	return p;
}

int main(void)
{
	struct table *t = table_new("t", "Test");
	char buf[32], *out;
	size_t r;

	util_init("test_render");
	table_col(t, "name", "Name", C_TEXT);
	table_col(t, "n", "N", C_INT);
	table_col(t, "avg_ns", "Avg", C_NS);
	r = table_row(t);
	table_set_text(t, r, 0, "=HYPERLINK(\"x\")");
	table_set_int(t, r, 1, -5);
	table_set_real(t, r, 2, 1234.5);
	r = table_row(t);
	table_set_text(t, r, 0, "a,b \"c\"\nd");
	table_set_int(t, r, 1, 1763822038123456789LL);
	table_set_real(t, r, 2, 2000.0);

	out = render(FMT_CSV, t);
	CHECK_EQ_STR(out, "\"name\",\"n\",\"avg_ns\"\r\n"
			  "\"'=HYPERLINK(\"\"x\"\")\",-5,1234.5\r\n"
			  "\"a,b \"\"c\"\"\nd\",1763822038123456789,2000\r\n");
	free(out);

	out = render(FMT_JSON, t);
	CHECK_EQ_STR(out, "[\n  {\"name\": \"=HYPERLINK(\\\"x\\\")\", \"n\": -5, \"avg_ns\": 1234.5},\n"
			  "  {\"name\": \"a,b \\\"c\\\"\\nd\", \"n\": 1763822038123456789, \"avg_ns\": 2000}\n]");
	free(out);

	out = render(FMT_MD, t);
	CHECK(strstr(out, "| Name | N | Avg |") != NULL);
	CHECK(strstr(out, "|---|---:|---:|") != NULL);
	free(out);

	fmt_ns(buf, sizeof(buf), 999);
	CHECK_EQ_STR(buf, "999 ns");
	fmt_ns(buf, sizeof(buf), 1234567);
	CHECK_EQ_STR(buf, "1.235 ms");
	fmt_bytes(buf, sizeof(buf), 4096);
	CHECK_EQ_STR(buf, "4.10 kB");
	table_free(t);
	return check_done("test_render");
}
