/*
 * nsys_schema: what the export holds, found before anything is read: its tables and their columns, the
 * SELECT pieces built from what exists, the connection's errors, the session metadata (time origin,
 * hostname, exporter and schema versions, enumerations), the processes, and the GPU-activity tables no
 * source reads (counted, not read).
 */
#include "nsys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nsys_names_release(struct names *l)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int nsys_names_has(const struct names *l, const char *name, size_t len)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		if (strlen(l->v[i]) == len && !memcmp(l->v[i], name, len))
			return 1;
	return 0;
}

/*
 * A failure of the export connection: print FILE: where: what. Returns EXIT_SYSTEM for resource and I/O
 * failures, EXIT_DATA for everything else (corrupt file, not a database, missing table or column).
 */
int nsys_src_error(struct nsys *n, const char *where)
{
	int code = sqlite3_errcode(n->db) & 0xff;
	error("%s: %s: %s", n->path, where, sqlite3_errmsg(n->db));
	if (code == SQLITE_NOMEM || code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN)
		n->err = EXIT_SYSTEM;
	else
		n->err = EXIT_DATA;
	return n->err;
}

/* Prepare a statement on the export; NULL with a message (and *status set) on failure. */
sqlite3_stmt *nsys_src_prepare(struct nsys *n, const char *sql, const char *where, int *status)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(n->db, sql, -1, &st, NULL) != SQLITE_OK) {
		*status = nsys_src_error(n, where);
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

int nsys_has_table(const struct nsys *n, const char *name)
{
	return nsys_names_has(&n->tables, name, strlen(name));
}

/*
 * Prepare sql, a SELECT of table alias t that reads t.rowid; for a table without rowids (a view, a
 * WITHOUT ROWID table) every "t.rowid" is read as NULL instead (rowid 0 in messages). NULL with a
 * message and *status set when neither prepares.
 */
sqlite3_stmt *nsys_prepare_rowid(struct nsys *n, char *sql, const char *where, int *status)
{
	sqlite3_stmt *st = NULL;
	char *p;
	if (sqlite3_prepare_v2(n->db, sql, -1, &st, NULL) == SQLITE_OK)
		return st;
	sqlite3_finalize(st);
	for (p = sql; (p = strstr(p, "t.rowid")); p += 7)
		memcpy(p, "NULL   ", 7);
	return nsys_src_prepare(n, sql, where, status);
}

/* Fill `out` with the tables of the export (table NULL) or the columns of `table`. Returns an exit status. */
int nsys_load_names(struct nsys *n, const char *table, struct names *out)
{
	sqlite3_stmt *st;
	int rc, status = EXIT_OK;
	st = nsys_src_prepare(n, table ? "SELECT name FROM pragma_table_info(?)" :
			      "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')", "schema", &status);
	if (!st)
		return status;
	if (table)
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, 0);
		ALLOC_GROW(out->v, out->n + 1, out->alloc);
		out->v[out->n++] = xstrdup(s ? s : "");
	}
	if (rc != SQLITE_DONE)
		status = nsys_src_error(n, table ? table : "schema");
	sqlite3_finalize(st);
	return status;
}

/*
 * Append to sql the expression for candidate columns "a|b" of alias t: one column, coalesce() of several,
 * or NULL when none exists. Returns how many exist.
 */
int nsys_add_expr(struct buf *sql, const struct names *cols, const char *cands)
{
	const char *p;
	int found = 0, pass;
	for (pass = 0; pass < 2; pass++) {
		int k = 0;
		if (pass == 1 && found > 1)
			buf_addstr(sql, "coalesce(");
		for (p = cands; p && *p;) {
			size_t len = strcspn(p, "|");
			if (nsys_names_has(cols, p, len)) {
				if (pass == 0)
					found++;
				else
					buf_addf(sql, "%st.\"%.*s\"", k++ ? ", " : "", (int)len, p);
			}
			p += len;
			if (*p == '|')
				p++;
		}
		if (pass == 1 && found > 1)
			buf_addch(sql, ')');
	}
	if (!found)
		buf_addstr(sql, "NULL");
	return found;
}

/* The pid expression for the process column `col` of alias t (0 when the table has none). */
void nsys_add_pid_expr(struct buf *sql, const struct names *cols, const char *col)
{
	if (col && nsys_names_has(cols, col, strlen(col)))
		buf_addf(sql, "coalesce((t.\"%s\" >> 24) & 16777215, 0)", col);
	else
		buf_addstr(sql, "0");
}

/*
 * The condition that the process column `col` of alias t holds no text or blob ("1" when the table has
 * none): nsys_load_pids reads no process from such a row, so none is made up from it.
 */
void nsys_add_pid_ok(struct buf *sql, const struct names *cols, const char *col)
{
	if (col && nsys_names_has(cols, col, strlen(col)))
		buf_addf(sql, "typeof(t.\"%s\") NOT IN ('text', 'blob')", col);
	else
		buf_addstr(sql, "1");
}

/*
 * The pid expression of a cursor's row: as nsys_add_pid_expr, but a process column holding text or a blob
 * reads as the first process, whose drain rejects the row when it checks that column (nsys_get_int).
 */
void nsys_add_row_pid(const struct nsys *n, struct buf *sql, const struct names *cols, const char *col)
{
	if (!col || !nsys_names_has(cols, col, strlen(col))) {
		buf_addstr(sql, "0");
		return;
	}
	buf_addf(sql, "CASE WHEN typeof(t.\"%s\") IN ('text', 'blob') THEN %lld ELSE ", col, (long long)n->pids[0]);
	nsys_add_pid_expr(sql, cols, col);
	buf_addstr(sql, " END");
}

/* Read a one-row, one-column text query with one bound text value into *out (NULL when no row). */
static int query_text(struct nsys *n, const char *sql, const char *bind, char **out)
{
	sqlite3_stmt *st;
	int rc, status = EXIT_OK;
	*out = NULL;
	if (!(st = nsys_src_prepare(n, sql, "metadata", &status)))
		return status;
	if (bind)
		sqlite3_bind_text(st, 1, bind, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*out = xstrdup((const char *)sqlite3_column_text(st, 0));
	else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		status = nsys_src_error(n, "metadata");
	sqlite3_finalize(st);
	return status;
}

/* 1 when table `table` of the export has column `col`, 0 when not, -1 on failure (status in n->err). */
int nsys_has_column(struct nsys *n, const char *table, const char *col)
{
	struct names cols = { NULL, 0, 0 };
	int yes;
	if (!nsys_has_table(n, table))
		return 0;
	if (nsys_load_names(n, table, &cols)) {
		nsys_names_release(&cols);
		return -1;
	}
	yes = nsys_names_has(&cols, col, strlen(col));
	nsys_names_release(&cols);
	return yes;
}

/*
 * The time origin, TARGET_INFO_SESSION_START_TIME.utcEpochNs: every time depends on it, so a value that is
 * no integer refuses the whole export (EXIT_DATA); NULL or no row keeps times session-relative (origin 0).
 */
static int load_origin(struct nsys *n)
{
	sqlite3_stmt *st;
	int status = EXIT_OK, rc;
	if (!(st = nsys_src_prepare(n, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1",
				    "TARGET_INFO_SESSION_START_TIME", &status)))
		return status;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		switch (sqlite3_column_type(st, 0)) {
		case SQLITE_INTEGER:
			n->origin = sqlite3_column_int64(st, 0);
			break;
		case SQLITE_NULL:
			break;
		case SQLITE_FLOAT:
			if (nsys_integral(sqlite3_column_double(st, 0), &n->origin))
				break;
			/* fall through */
		default:
			error("%s: TARGET_INFO_SESSION_START_TIME: \"utcEpochNs\" is no integer, so no time can be "
			      "placed", n->path);
			status = EXIT_DATA;
		}
	} else if (rc != SQLITE_DONE) {
		status = nsys_src_error(n, "TARGET_INFO_SESSION_START_TIME");
	}
	sqlite3_finalize(st);
	return status;
}

/* An nsys enumeration's value name (by its suffix) and the CUPTI value it stands for. */
struct enum_map {
	const char *suffix;
	int cupti;
};

static const struct enum_map mem_kinds[] = {
	{ "_PAGEABLE", 1 }, { "_PINNED", 2 }, { "_DEVICE", 3 }, { "_ARRAY", 4 }, { "_MANAGED", 5 },
	{ "_DEVICE_STATIC", 6 }, { "_MANAGED_STATIC", 7 },
};

static const struct enum_map overhead_kinds[] = {
	{ "_DRIVER_COMPILER", 1 }, { "_CUPTI_BUFFER_FLUSH", 1 << 16 }, { "_CUPTI_INSTRUMENTATION", 2 << 16 },
	{ "_CUPTI_RESOURCE", 3 << 16 }, { "_RUNTIME_TRIGGERED_MODULE_LOADING", 4 << 16 },
	{ "_LAZY_FUNCTION_LOADING", 5 << 16 }, { "_COMMAND_BUFFER_FULL", 6 << 16 },
	{ "_ACTIVITY_BUFFER_REQUEST", 7 << 16 }, { "_UVM_ACTIVITY_INIT", 8 << 16 },
};

/*
 * Fill map[16] (nsys value -> CUPTI value) from the export's table `table` (id, name) when it has one,
 * names matched by suffix and the rest 0; otherwise leave map as the caller set it. Returns an exit status.
 */
static int load_enum(struct nsys *n, const char *table, const struct enum_map *m, size_t nm, int map[16])
{
	struct buf sql;
	sqlite3_stmt *st;
	int status = EXIT_OK, yes, rc;
	if ((yes = nsys_has_column(n, table, "name")) <= 0)
		return yes < 0 ? n->err : EXIT_OK;
	buf_init(&sql);
	buf_addf(&sql, "SELECT t.id, t.name, t.rowid FROM \"%s\" AS t", table);
	st = nsys_prepare_rowid(n, sql.s, table, &status);
	buf_release(&sql);
	if (!st)
		return status;
	memset(map, 0, 16 * sizeof(*map));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct row r = nsys_row_at(table, st, 2);
		const char *name;
		int64_t id;
		int isnull, bad;
		size_t k;
		if (!(bad = nsys_get_int(n, &r, 0, "id", 2, 0, &id, &isnull)))
			bad = nsys_get_text(n, &r, 1, "name", 4, 0, &name);
		if (bad < 0) {
			status = EXIT_SYSTEM;
			break;
		}
		if (bad || id < 0 || id >= 16)
			continue;	/* rejected, or a value no record can hold: its kind reads as 0 */
		for (k = 0; k < nm; k++)
			if (ends_with(name, m[k].suffix))
				map[id] = m[k].cupti;
	}
	if (rc != SQLITE_DONE && !status)
		status = nsys_src_error(n, table);
	sqlite3_finalize(st);
	return status;
}

/*
 * Session metadata: the time origin, hostname, exporter and schema versions, and the numbering of
 * memory kinds and overhead types (ENUM_CUDA_MEM_KIND, ENUM_CUPTI_OVERHEAD_TYPE when the export has
 * them). Returns an exit status.
 */
int nsys_load_meta(struct nsys *n)
{
	const char *meta = nsys_has_table(n, "META_DATA_EXPORT") ? "META_DATA_EXPORT" :
			   nsys_has_table(n, "EXPORT_META_DATA") ? "EXPORT_META_DATA" : NULL;
	char *s = NULL;
	int status = EXIT_OK, i, yes;

	/* Without the enum tables: nsys numbers 0 pageable .. 6 managed static, 7 unknown; and overheads
	   0 undefined, 1 unknown, 2 driver compiler .. 8 command buffer full, in CUPTI's order. */
	memset(n->memkind, 0, sizeof(n->memkind));
	for (i = 0; i < 7; i++)
		n->memkind[i] = i + 1;
	memset(n->ovhkind, 0, sizeof(n->ovhkind));
	n->ovhkind[2] = 1;
	for (i = 3; i <= 8; i++)
		n->ovhkind[i] = (i - 2) << 16;
	if ((status = load_enum(n, "ENUM_CUDA_MEM_KIND", mem_kinds, sizeof(mem_kinds) / sizeof(mem_kinds[0]),
				n->memkind)) ||
	    (status = load_enum(n, "ENUM_CUPTI_OVERHEAD_TYPE", overhead_kinds,
				sizeof(overhead_kinds) / sizeof(overhead_kinds[0]), n->ovhkind)))
		return status;

	n->origin = 0;
	if ((yes = nsys_has_column(n, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs")) < 0)
		return n->err;
	if (yes && (status = load_origin(n)))
		return status;
	if ((yes = nsys_has_column(n, "TARGET_INFO_SYSTEM_ENV", "value")) < 0)
		return n->err;
	if (yes && (status = query_text(n, "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = ? LIMIT 1",
					"Hostname", &n->hostname)))
		return status;
	if (meta) {
		struct buf sql;
		buf_init(&sql);
		buf_addf(&sql, "SELECT value FROM \"%s\" WHERE name = ? LIMIT 1", meta);
		status = query_text(n, sql.s, "EXPORT_PRODUCT_VERSION", &s);
		if (!status && s) {
			struct buf c;
			buf_init(&c);
			buf_addf(&c, "Nsight Systems %s", s);
			n->collector = c.s;
		}
		free(s);
		s = NULL;
		if (!status)
			status = query_text(n, sql.s, "EXPORT_SCHEMA_VERSION", &s);
		if (!status && s) {
			unsigned a = 0, b = 0, c = 0;
			if (sscanf(s, "%u.%u.%u", &a, &b, &c) >= 1 && a < 1000 && b < 100 && c < 100)
				n->format_version = (int64_t)a * 10000 + b * 100 + c;
		}
		free(s);
		buf_release(&sql);
	}
	return status;
}

/* The processes: every pid with records in any source, sorted; {0} when there is none. */
int nsys_load_pids(struct nsys *n)
{
	struct buf sql;
	sqlite3_stmt *st;
	size_t i;
	int k = 0, rc, status = EXIT_OK;

	buf_init(&sql);
	buf_addstr(&sql, "SELECT DISTINCT p FROM (");
	for (i = 0; i < NSOURCES; i++) {
		struct names cols = { NULL, 0, 0 };
		if (!nsys_has_table(n, nsys_sources[i].table))
			continue;
		if ((status = nsys_load_names(n, nsys_sources[i].table, &cols)))
			goto out;
		buf_addf(&sql, "%sSELECT ", k++ ? " UNION " : "");
		nsys_add_pid_expr(&sql, &cols, nsys_sources[i].pid_col);
		buf_addf(&sql, " AS p FROM \"%s\" AS t WHERE ", nsys_sources[i].table);
		nsys_add_pid_ok(&sql, &cols, nsys_sources[i].pid_col);
		nsys_names_release(&cols);
	}
	if (nsys_has_table(n, "NVTX_EVENTS")) {
		struct names cols = { NULL, 0, 0 };
		if ((status = nsys_load_names(n, "NVTX_EVENTS", &cols)))
			goto out;
		if (nsys_names_has(&cols, "eventType", 9)) {
			buf_addf(&sql, "%sSELECT ", k++ ? " UNION " : "");
			nsys_add_pid_expr(&sql, &cols, "globalTid");
			buf_addf(&sql, " AS p FROM NVTX_EVENTS AS t WHERE t.eventType IN (%d, %d, %d) AND ", NVTX_MARK,
				 NVTX_PUSHPOP, NVTX_STARTEND);
			nsys_add_pid_ok(&sql, &cols, "globalTid");
		}
		nsys_names_release(&cols);
	}
	if (n->map_table) {
		/* Processes that opened a CUDA context, even if they recorded nothing. */
		buf_addf(&sql, "%sSELECT \"%s\" AS p FROM \"%s\" WHERE typeof(\"%s\") = 'integer'", k++ ? " UNION " : "",
			 n->map_pid, n->map_table, n->map_pid);
	}
	buf_addstr(&sql, ") ORDER BY p");
	if (k) {
		if (!(st = nsys_src_prepare(n, sql.s, "processes", &status)))
			goto out;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			ALLOC_GROW(n->pids, n->npids + 1, n->pids_alloc);
			n->pids[n->npids++] = sqlite3_column_int64(st, 0);
		}
		if (rc != SQLITE_DONE)
			status = nsys_src_error(n, "processes");
		sqlite3_finalize(st);
	}
	if (!status && !n->npids) {
		ALLOC_GROW(n->pids, 1, n->pids_alloc);
		n->pids[n->npids++] = 0;
	}
out:
	buf_release(&sql);
	return status;
}

/*
 * Tables of GPU activity, by name: those no source reads are counted (nsys_count_unread). Prefixes, and
 * "*_WORKLOAD" for the graphics APIs' GPU workloads (DX12, Vulkan, OpenGL).
 */
static const char *const gpu_tables[] = { "CUPTI_ACTIVITY_KIND_", "CUDA_GPU_", "CUDA_UM_", "CUDA_GRAPH_",
					  "GPU_", "NVVIDEO_", "*_WORKLOAD" };

static int is_gpu_table(const char *name)
{
	size_t i;
	for (i = 0; i < NSOURCES; i++)
		if (!strcmp(name, nsys_sources[i].table))
			return 0;	/* read */
	for (i = 0; i < sizeof(gpu_tables) / sizeof(gpu_tables[0]); i++)
		if (gpu_tables[i][0] == '*' ? ends_with(name, gpu_tables[i] + 1) :
		    !strncmp(name, gpu_tables[i], strlen(gpu_tables[i])))
			return 1;
	return 0;
}

/*
 * Count the rows of the export's GPU-activity tables that gpuprof does not read, per process (by globalPid
 * or globalTid; rows of a process that has nothing gpuprof reads go to the first process), into n->unread.
 * Returns an exit status.
 */
int nsys_count_unread(struct nsys *n)
{
	size_t i, k;
	int status = EXIT_OK, rc;
	for (i = 0; i < n->tables.n && !status; i++) {
		struct names cols = { NULL, 0, 0 };
		struct buf sql;
		sqlite3_stmt *st;
		const char *table = n->tables.v[i];
		if (!is_gpu_table(table))
			continue;
		if ((status = nsys_load_names(n, table, &cols)))
			break;
		buf_init(&sql);
		buf_addstr(&sql, "SELECT ");
		nsys_add_pid_expr(&sql, &cols, nsys_names_has(&cols, "globalPid", 9) ? "globalPid" : "globalTid");
		buf_addf(&sql, ", count(*) FROM \"%s\" AS t GROUP BY 1", table);
		nsys_names_release(&cols);
		st = nsys_src_prepare(n, sql.s, table, &status);
		buf_release(&sql);
		if (!st)
			break;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct unread *u;
			int64_t pid = sqlite3_column_int64(st, 0);
			for (k = 0; k < n->npids && n->pids[k] != pid; k++)
				;
			ALLOC_GROW(n->unread, n->nunread + 1, n->unread_alloc);
			u = &n->unread[n->nunread++];
			u->table = table;
			u->pid = k < n->npids ? pid : n->pids[0];
			u->count = sqlite3_column_int64(st, 1);
			n->unread_rows += u->count;
		}
		if (rc != SQLITE_DONE)
			status = nsys_src_error(n, table);
		sqlite3_finalize(st);
	}
	return status;
}
