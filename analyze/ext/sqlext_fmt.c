/*
 * sqlext_fmt: numbers printed as C prints them, for SQL. Compiled twice like analyze/ext/sqlext.c: into gpuprof's
 * programs and into the extension.
 *
 * SQLite 3.40's printf('%.2f', x) rounds the decimal digits it has made, so 2.675 (whose binary value is
 * 2.67499...) reads 2.68 and 0.125 reads 0.13; C's printf rounds the binary value, to even on a tie, and
 * gives 2.67 and 0.12. Text an analysis makes in SQL (growth's verdict) reads as the C-printed figures
 * beside it only with C's rounding. fmt_bytes prints sizes as every table shows them (lib/table.c).
 */
#ifdef GPUPROF_SQLITE_LOADABLE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif

#include "sqlext.h"
#include "table.h"

#include <stdio.h>

/* fmt_fixed(x, decimals): printf("%.*f"); NULL for a NULL x, decimals clamped to 0..17. */
static void sql_fmt_fixed(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char out[400];
	int d = sqlite3_value_int(argv[1]);
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	d = d < 0 ? 0 : d > 17 ? 17 : d;
	snprintf(out, sizeof(out), "%.*f", d, sqlite3_value_double(argv[0]));
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/* fmt_bytes(x): bytes as gpuprof's tables print them ("12.30 MB"); NULL for a NULL x. */
static void sql_fmt_bytes(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char out[64];
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	fmt_bytes(out, sizeof(out), sqlite3_value_double(argv[0]));
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

int gpuprof_sqlite_fmt(sqlite3 *db)
{
	int rc = sqlite3_create_function(db, "fmt_fixed", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
					 NULL, sql_fmt_fixed, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(db, "fmt_bytes", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
					     NULL, sql_fmt_bytes, NULL, NULL);
	return rc;
}
