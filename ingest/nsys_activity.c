/*
 * nsys_activity: the activity tables, one row of nsys_sources per table: kernels, copies, memsets and
 * synchronizations; GPU memory events; runtime and driver API calls; CUPTI overheads. Each is read by one
 * cursor whose SELECT is built from the columns the export has, and each row is checked and converted
 * (convert) as that row of the table says.
 */
#include "nsys.h"

#include <string.h>

#define CUPTI_INVALID 0xFFFFFFFFLL	/* CUPTI's "no stream / no event" value */

const struct source nsys_sources[] = {
	{ "CUPTI_ACTIVITY_KIND_KERNEL", R_KERNEL, "globalPid", 24, {
		{ "start", "start", X_TIME, 0, 1 }, { "end", "end", X_END, 0, 1 },
		{ "device", "deviceId", X_INT, 0, 1 }, { "context", "contextId", X_INT, 0, 0 },
		{ "stream", "streamId", X_INT, 0, 0 }, { "correlation", "correlationId", X_INT, 0, 0 },
		{ "name", "demangledName|shortName", X_STR, 0, 1 }, { "mangled", "mangledName", X_MANGLED, 0, 0 },
		{ "grid_x", "gridX", X_INT, 0, 0 }, { "grid_y", "gridY", X_INT, 0, 0 },
		{ "grid_z", "gridZ", X_INT, 0, 0 }, { "block_x", "blockX", X_INT, 0, 0 },
		{ "block_y", "blockY", X_INT, 0, 0 }, { "block_z", "blockZ", X_INT, 0, 0 },
		{ "cluster_x", "clusterX", X_INT, 0, 0 }, { "cluster_y", "clusterY", X_INT, 0, 0 },
		{ "cluster_z", "clusterZ", X_INT, 0, 0 }, { "registers", "registersPerThread", X_INT, 0, 0 },
		{ "static_smem", "staticSharedMemory", X_INT, 0, 0 },
		{ "dynamic_smem", "dynamicSharedMemory", X_INT, 0, 0 },
		{ "local_mem", "localMemoryPerThread", X_INT, 0, 0 }, { "graph_id", "graphId", X_INT, 0, 0 },
		{ "graph_node", "graphNodeId", X_INT, 0, 0 }, { NULL, "shortName", X_INTERN, 0, 0 } } },
	{ "CUPTI_ACTIVITY_KIND_MEMCPY", R_MEMCPY, "globalPid", 13, {
		{ "start", "start", X_TIME, 0, 1 }, { "end", "end", X_END, 0, 1 },
		{ "device", "deviceId", X_INT, 0, 1 }, { "context", "contextId", X_INT, 0, 0 },
		{ "stream", "streamId", X_INT, 0, 0 }, { "correlation", "correlationId", X_INT, 0, 0 },
		{ "kind", "copyKind", X_INT, 0, 1 }, { "src_kind", "srcKind", X_MEMKIND, 0, 0 },
		{ "dst_kind", "dstKind", X_MEMKIND, 0, 0 }, { "bytes", "bytes", X_INT, 0, 1 },
		{ "src_device", "srcDeviceId", X_OPT, 0, 0 }, { "dst_device", "dstDeviceId", X_OPT, 0, 0 },
		{ "async", NULL, X_INTN, 0, 0 } } },	/* not in the export: NULL */
	{ "CUPTI_ACTIVITY_KIND_MEMSET", R_MEMSET, "globalPid", 9, {
		{ "start", "start", X_TIME, 0, 1 }, { "end", "end", X_END, 0, 1 },
		{ "device", "deviceId", X_INT, 0, 1 }, { "context", "contextId", X_INT, 0, 0 },
		{ "stream", "streamId", X_INT, 0, 0 }, { "correlation", "correlationId", X_INT, 0, 0 },
		{ "bytes", "bytes", X_INT, 0, 1 }, { "value", "value", X_INT, 0, 0 },
		{ "mem_kind", "memKind", X_MEMKIND, 0, 0 } } },
	{ "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", R_SYNC, "globalPid", 9, {
		{ "start", "start", X_TIME, 0, 1 }, { "end", "end", X_END, 0, 1 },
		{ "device", "deviceId", X_OPT, 0, 0 }, { "context", "contextId", X_INT, 0, 0 },
		{ "stream", "streamId", X_OPT, 0, 0 }, { "correlation", "correlationId", X_INT, 0, 0 },
		{ "kind", "syncType", X_SYNCKIND, 0, 1 }, { "event", "eventId", X_NONE0, 0, 0 },
		{ "thread", NULL, X_INT, 0, 0 } } },	/* not in the export: 0 = unknown */
	{ "CUDA_GPU_MEMORY_USAGE_EVENTS", R_MEMORY, "globalPid", 13, {
		{ "ts", "start", X_TIME, 0, 1 }, { "device", "deviceId", X_OPT, 0, 0 },
		{ "context", "contextId", X_INT, 0, 0 }, { "stream", "streamId", X_OPT, 0, 0 },
		{ "correlation", "correlationId", X_INT, 0, 0 }, { "op", "memoryOperationType", X_MEMOP, 0, 1 },
		{ "mem_kind", "memKind", X_MEMKIND, 0, 0 }, { "address", "address", X_INT, 0, 0 },
		{ "bytes", "bytes", X_INT, 0, 1 }, { "pc", "pc", X_INT, 0, 0 }, { "site", "name", X_TEXT, 0, 0 },
		{ "thread", "globalTid", X_TID, 0, 0 }, { "async", NULL, X_INTN, 0, 0 } } },
	{ "CUPTI_ACTIVITY_KIND_RUNTIME", R_API, "globalTid", 7, {
		{ "start", "start", X_TIME, 0, 1 }, { "end", "end", X_END, 0, 1 },
		{ "thread", "globalTid", X_TID, 0, 0 }, { "correlation", "correlationId", X_INT, 0, 0 },
		{ "name", "nameId", X_API, 0, 0 }, { "cbid", "cbid", X_INT, 0, 0 },
		{ "domain", NULL, X_CONST, 1, 0 } } },	/* 1: runtime */
	{ "CUPTI_ACTIVITY_KIND_DRIVER", R_API, "globalTid", 7, {
		{ "start", "start", X_TIME, 0, 1 }, { "end", "end", X_END, 0, 1 },
		{ "thread", "globalTid", X_TID, 0, 0 }, { "correlation", "correlationId", X_INT, 0, 0 },
		{ "name", "nameId", X_API, 0, 0 }, { "cbid", "cbid", X_INT, 0, 0 },
		{ "domain", NULL, X_CONST, 2, 0 } } },	/* 2: driver */
	/* CUPTI's own overheads, each on the thread it happened on (nsys keeps no other object) */
	{ "CUPTI_ACTIVITY_KIND_OVERHEAD", R_OVERHEAD, "globalTid", 6, {
		{ "start", "start", X_TIME, 0, 1 }, { "end", "end", X_END, 0, 1 },
		{ "kind", "overheadType", X_OVHKIND, 0, 1 }, { "object_kind", NULL, X_CONST, 2, 0 },
		{ "thread", "globalTid", X_TID, -1, 0 }, { "correlation", "correlationId", X_NONE0, 0, 0 } } },
};
_Static_assert(sizeof(nsys_sources) / sizeof(nsys_sources[0]) == NSOURCES, "NSOURCES in nsys.h");

/*
 * Build and prepare the SELECT of one source: pid, rowid, the process column, then every existing candidate
 * column of every col as stored (checked and converted in C: convert). A missing table leaves the cursor
 * without a statement. Returns an exit status.
 */
int nsys_open_cursor(struct nsys *n, struct cursor *c, const struct source *src)
{
	struct names cols = { NULL, 0, 0 };
	struct buf sql, pid;
	int i, status, next_col = 3;

	memset(c, 0, sizeof(*c));
	c->src = src;
	if (!nsys_has_table(n, src->table))
		return EXIT_OK;
	if ((status = nsys_load_names(n, src->table, &cols)))
		return status;
	buf_init(&sql);
	buf_init(&pid);
	nsys_add_row_pid(n, &pid, &cols, src->pid_col);
	buf_addf(&sql, "SELECT %s, t.rowid, ", pid.s);
	if (nsys_names_has(&cols, src->pid_col, strlen(src->pid_col))) {
		buf_addf(&sql, "t.\"%s\"", src->pid_col);
		c->cname[2] = src->pid_col;
		c->clen[2] = (int)strlen(src->pid_col);
	} else {
		buf_addstr(&sql, "NULL");
	}
	for (i = 0; i < src->ncols; i++) {
		const struct col *k = &src->cols[i];
		const char *p;
		c->at[i] = next_col;
		c->field[i] = k->field ? rec_field(src->type, k->field) : -1;
		if (k->field && c->field[i] < 0) {
			error("%s: internal error: record %s has no field \"%s\"", n->path,
			      rec_specs[src->type].wire, k->field);
			status = EXIT_SYSTEM;
			goto out;
		}
		for (p = k->names; p && *p;) {
			size_t len = strcspn(p, "|");
			if (nsys_names_has(&cols, p, len)) {
				buf_addf(&sql, ", t.\"%.*s\"", (int)len, p);
				c->cname[next_col] = p;
				c->clen[next_col++] = (int)len;
				c->ncand[i]++;
			}
			p += len;
			if (*p == '|')
				p++;
		}
		if (k->req && !c->ncand[i]) {
			error("%s: %s: no column \"%s\"", n->path, src->table, k->names);
			status = EXIT_DATA;
			goto out;
		}
		if (c->ncand[i] && (k->xf == X_STR || k->xf == X_MANGLED || k->xf == X_INTERN || k->xf == X_API) &&
		    !n->has_strings) {
			error("%s: %s: string ids in \"%s\" but no table StringIds", n->path, src->table, k->names);
			status = EXIT_DATA;
			goto out;
		}
	}
	buf_addf(&sql, " FROM \"%s\" AS t", src->table);
	if (n->per_pid)
		buf_addf(&sql, " WHERE %s = ?1", pid.s);
	else if (n->npids > 1)
		buf_addstr(&sql, " ORDER BY 1");
	c->st = nsys_prepare_rowid(n, sql.s, src->table, &status);
out:
	buf_release(&sql);
	buf_release(&pid);
	nsys_names_release(&cols);
	return status;
}

/*
 * Check the current row of c and convert it into n->vals. Returns 1 to store it, 0 when it was rejected
 * (recorded), -1 on a failure.
 */
static int convert(struct nsys *n, struct cursor *c)
{
	const struct source *src = c->src;
	struct row r = nsys_row_at(src->table, c->st, 1);
	struct value scratch;
	int i, rc, pick[MAX_COLS];
	for (i = 0; i < rec_specs[src->type].nfields; i++) {
		n->vals[i].null = 1;	/* fields no col fills */
		n->vals[i].i = 0;
	}
	if (c->clen[2]) {	/* the process column, read by the SELECT's pid */
		int64_t x;
		int isnull;
		if ((rc = nsys_get_int(n, &r, 2, c->cname[2], c->clen[2], 1, &x, &isnull)))
			return rc < 0 ? -1 : 0;
	}
	for (i = 0; i < src->ncols; i++) {
		const struct col *k = &src->cols[i];
		struct value *v = c->field[i] >= 0 ? &n->vals[c->field[i]] : &scratch;
		const char *text = NULL, *name;
		int at = c->at[i], len, isnull = 1, j;
		int64_t x = 0, id;

		v->null = 0;
		v->i = 0;
		/* the first candidate column that is not NULL (or the last one) */
		for (j = 0; j + 1 < c->ncand[i] && sqlite3_column_type(c->st, at + j) == SQLITE_NULL; j++)
			;
		at += j;
		pick[i] = at;
		name = c->ncand[i] ? c->cname[at] : k->field;
		len = c->ncand[i] ? c->clen[at] : (int)strlen(name ? name : "");
		if (!c->ncand[i] || k->xf == X_CONST)
			rc = 0;
		else if (k->xf == X_TEXT)
			rc = nsys_get_text(n, &r, at, name, len, !k->req, &text), isnull = !text;
		else
			rc = nsys_get_int(n, &r, at, name, len, !k->req, &x, &isnull);
		if (rc)
			return rc < 0 ? -1 : 0;
		n->raw[i] = x;
		n->raw_null[i] = isnull;
		switch (k->xf) {
		case X_END:
			if (x < n->raw[i - 1])
				return nsys_reject(n, &r, at, name, len, "\"%.*s\" %lld is before \"%.*s\" %lld", len, name,
						   (long long)x, c->clen[pick[i - 1]], c->cname[pick[i - 1]],
						   (long long)n->raw[i - 1]) < 0 ? -1 : 0;
			/* fall through */
		case X_TIME:
			if (__builtin_add_overflow(n->origin, x, &v->i))
				return nsys_reject(n, &r, at, name, len, "\"%.*s\" %lld overflows the time origin %lld",
						   len, name, (long long)x, (long long)n->origin) < 0 ? -1 : 0;
			break;
		case X_INT:
			v->i = isnull ? k->dflt : x;
			break;
		case X_INTN:
			v->null = isnull;
			v->i = x;
			break;
		case X_OPT:
			v->null = isnull || x < 0 || x == CUPTI_INVALID;
			v->i = x;
			break;
		case X_NONE0:
			v->i = isnull || x == CUPTI_INVALID ? 0 : x;
			break;
		case X_CONST:
			v->i = k->dflt;
			break;
		case X_MANGLED:
			if (!isnull && i > 0 && !n->raw_null[i - 1] && n->raw[i - 1] == x)
				isnull = 1;
			/* fall through */
		case X_STR:
		case X_INTERN:
		case X_API:
			if (isnull) {
				v->null = 1;
				break;
			}
			if ((rc = nsys_get_string(n, &r, at, name, len, x, k->xf == X_API, &id)))
				return rc < 0 ? -1 : 0;
			v->i = id;
			break;
		case X_TEXT:
			if (!text) {
				v->null = 1;
				break;
			}
			if ((v->i = sink_string(n->sink, text, strlen(text))) < 0)
				return -1;
			break;
		case X_TID:
			v->i = isnull ? k->dflt : (x & 0xFFFFFF);
			v->null = v->i < 0;
			break;
		case X_MEMKIND:
			v->i = !isnull && x >= 0 && x < 16 ? n->memkind[x] : 0;
			break;
		case X_OVHKIND:
			v->i = !isnull && x >= 0 && x < 16 ? n->ovhkind[x] : 0;
			break;
		case X_SYNCKIND:
			v->i = x >= 1 && x <= 4 ? x : 0;
			break;
		case X_MEMOP:
			if (x != 0 && x != 1)
				return nsys_reject(n, &r, at, name, len, "\"%.*s\" is %lld, not 0 (allocation) or 1 (free)",
						   len, name, (long long)x) < 0 ? -1 : 0;
			v->i = x + 1;
			break;
		}
	}
	return 1;
}

/* Step a cursor; returns EXIT_OK or the status of a read failure. */
int nsys_advance(struct nsys *n, struct cursor *c, const char *where)
{
	int rc = sqlite3_step(c->st);
	c->started = 1;
	if (rc == SQLITE_ROW) {
		c->has_row = 1;
		c->pid = sqlite3_column_int64(c->st, 0);
		return EXIT_OK;
	}
	c->has_row = 0;
	return rc == SQLITE_DONE ? EXIT_OK : nsys_src_error(n, where);
}

/* Position a cursor on the first row of process pid: run it again for that pid, or once at the start. */
int nsys_restart(struct nsys *n, struct cursor *c, int64_t pid, const char *where)
{
	if (n->per_pid) {
		sqlite3_reset(c->st);
		sqlite3_bind_int64(c->st, 1, pid);
		c->started = 0;
	}
	return c->started ? EXIT_OK : nsys_advance(n, c, where);
}

/* Store the rows of process `pid` from one source (or pass over them when skip). Returns an exit status. */
int nsys_drain(struct nsys *n, struct cursor *c, int64_t pid, int skip)
{
	enum rec_type t;
	int status, dev;
	if (!c->st || (skip && (n->per_pid || n->npids == 1)))
		return EXIT_OK;		/* nothing to pass over: the next process runs its own scan */
	t = c->src->type;
	dev = t == R_KERNEL || t == R_MEMCPY || t == R_MEMSET ? rec_field(t, "device") : -1;
	if ((status = nsys_restart(n, c, pid, c->src->table)))
		return status;
	while (c->has_row && c->pid <= pid) {
		if (!skip) {
			int rc = convert(n, c);
			if (rc < 0)
				return n->err ? n->err : EXIT_SYSTEM;
			if (rc == 0 && dev >= 0)
				n->gpu_rejected++;
			if (rc == 1 && sink_add(n->sink, t, n->vals))
				return EXIT_SYSTEM;
			if (rc == 1 && dev >= 0 && !n->vals[dev].null)
				nsys_idset_add(&n->seen, n->vals[dev].i);
		}
		if ((status = nsys_advance(n, c, c->src->table)))
			return status;
	}
	return EXIT_OK;
}
