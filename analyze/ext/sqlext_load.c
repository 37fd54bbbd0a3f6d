/*
 * The loadable-extension entry point of build/lib/gpuprof_sqlite.so: `.load gpuprof_sqlite` in sqlite3
 * finds sqlite3_gpuprofsqlite_init by the file's name. This file defines the API pointer
 * (SQLITE_EXTENSION_INIT1); analyze/ext/sqlext.c, compiled for the extension with GPUPROF_SQLITE_LOADABLE,
 * calls SQLite through it, and compiled without it links to SQLite directly inside gpuprof's programs.
 * Loading also makes the TEMP views that shadow the database's slow ones (gpuprof_sqlite_views) and
 * registers gpuprof_schema_version() (which gpuprof's programs define themselves, lib/db.c).
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "sqlext.h"

__attribute__((visibility("default"))) int sqlite3_gpuprofsqlite_init(sqlite3 *db, char **err,
								   const sqlite3_api_routines *api);

int sqlite3_gpuprofsqlite_init(sqlite3 *db, char **err, const sqlite3_api_routines *api)
{
	int rc;
	SQLITE_EXTENSION_INIT2(api);
	rc = gpuprof_sqlite_register(db);
	if (rc == SQLITE_OK)
		rc = gpuprof_sqlite_schema_version(db);
	if (rc == SQLITE_OK)
		rc = gpuprof_sqlite_views(db);
	if (rc != SQLITE_OK && err)
		*err = sqlite3_mprintf("gpuprof_sqlite: %s", sqlite3_errmsg(db));
	return rc;
}
