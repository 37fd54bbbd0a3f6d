/*
 * nsys_gpus: the GPUs: TARGET_INFO_GPU's properties, placed in processes under their CUDA device ids by
 * TARGET_INFO_CUDA_CONTEXT_INFO or TARGET_INFO_CUDA_DEVICE, and the device records declared from them.
 */
#include "nsys.h"

#include <stdlib.h>
#include <string.h>

/* TARGET_INFO_GPU columns for the numeric device fields, with the factor or divisor to our units. */
static const struct {
	const char *field, *column;
	int64_t mul, div;
} gpu_cols[] = {
	{ "cc_major", "computeMajor", 1, 1 }, { "cc_minor", "computeMinor", 1, 1 }, { "sms", "smCount", 1, 1 },
	{ "memory_bytes", "totalMemory", 1, 1 },
	{ "core_clock_khz", "clockRate", 1, 1000 },		/* Hz */
	{ "mem_bandwidth_kbs", "memoryBandwidth", 1, 1000 },	/* bytes/s */
	{ "max_threads_per_sm", "maxWarpsPerSm", 0, 1 },	/* times threadsPerWarp (0 here) */
	{ "max_regs_per_sm", "maxRegistersPerSm", 1, 1 }, { "max_smem_per_sm", "maxShmemPerSm", 1, 1 },
};
_Static_assert(sizeof(gpu_cols) / sizeof(gpu_cols[0]) == NGPU_NUM, "NGPU_NUM in nsys.h");

/* Set field `field` (wire name) of a type-t record; a field the record does not have is ignored. */
static void put(struct value *v, enum rec_type t, const char *field, int64_t x, int null)
{
	int f = rec_field(t, field);
	if (f >= 0)
		nsys_set(v, f, x, null);
}

/* Load TARGET_INFO_GPU, placed in processes by TARGET_INFO_CUDA_CONTEXT_INFO or _CUDA_DEVICE. */
int nsys_load_gpus(struct nsys *n)
{
	struct names cols = { NULL, 0, 0 };
	struct buf sql;
	sqlite3_stmt *st;
	const char *map_sql = NULL, *map_cols[3];
	struct gpu *hw = NULL;
	size_t nhw = 0, hw_alloc = 0, i, k;
	int status = EXIT_OK, rc, yes;

	if (!nsys_has_table(n, "TARGET_INFO_GPU"))
		goto mapping;
	if ((status = nsys_load_names(n, "TARGET_INFO_GPU", &cols)))
		return status;
	if (!nsys_names_has(&cols, "id", 2)) {
		nsys_names_release(&cols);
		error("%s: TARGET_INFO_GPU: no column \"id\"", n->path);
		return EXIT_DATA;
	}
	buf_init(&sql);
	buf_addstr(&sql, "SELECT t.id, ");
	nsys_add_expr(&sql, &cols, "name");
	buf_addstr(&sql, ", ");
	nsys_add_expr(&sql, &cols, "uuid");
	for (i = 0; i < NGPU_NUM; i++) {
		buf_addstr(&sql, ", ");
		nsys_add_expr(&sql, &cols, gpu_cols[i].column);
	}
	buf_addstr(&sql, ", ");
	nsys_add_expr(&sql, &cols, "threadsPerWarp");
	buf_addstr(&sql, ", t.rowid FROM TARGET_INFO_GPU AS t ORDER BY t.id");
	nsys_names_release(&cols);
	st = nsys_prepare_rowid(n, sql.s, "TARGET_INFO_GPU", &status);
	buf_release(&sql);
	if (!st)
		return status;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct row r = nsys_row_at("TARGET_INFO_GPU", st, 4 + (int)NGPU_NUM);
		struct gpu *g;
		const char *name, *uuid;
		int64_t id, warp, num[NGPU_NUM];
		int isnull, bad;
		bad = nsys_get_int(n, &r, 0, "id", 2, 0, &id, &isnull);
		if (!bad)
			bad = nsys_get_text(n, &r, 1, "name", 4, 1, &name);
		if (!bad)
			bad = nsys_get_text(n, &r, 2, "uuid", 4, 1, &uuid);
		for (i = 0; i < NGPU_NUM && !bad; i++)
			bad = nsys_get_int(n, &r, 3 + (int)i, gpu_cols[i].column, (int)strlen(gpu_cols[i].column), 1,
					   &num[i], &isnull);
		if (!bad)
			bad = nsys_get_int(n, &r, 3 + (int)NGPU_NUM, "threadsPerWarp", 14, 1, &warp, &isnull);
		if (bad < 0) {
			status = EXIT_SYSTEM;
			break;
		}
		if (bad)
			continue;	/* rejected: the device is declared without properties if used */
		ALLOC_GROW(hw, nhw + 1, hw_alloc);
		g = &hw[nhw++];
		memset(g, 0, sizeof(*g));
		g->pid = -1;
		g->id = g->hw = id;
		g->name = name ? xstrdup(name) : NULL;
		if (uuid && *uuid) {
			struct buf u;
			buf_init(&u);
			buf_addf(&u, "%s%s", strncmp(uuid, "GPU-", 4) ? "GPU-" : "", uuid);
			g->uuid = u.s;
		}
		for (i = 0; i < NGPU_NUM; i++)
			g->num[i] = num[i] * (gpu_cols[i].mul ? gpu_cols[i].mul : warp ? warp : 32) / gpu_cols[i].div;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		status = nsys_src_error(n, "TARGET_INFO_GPU");
	sqlite3_finalize(st);
	if (status)
		goto out;

mapping:
	/* Which process sees which GPU under which CUDA device id. */
	if ((yes = nsys_has_column(n, "TARGET_INFO_CUDA_CONTEXT_INFO", "hwId")) < 0 ||
	    (yes && (yes = nsys_has_column(n, "TARGET_INFO_CUDA_CONTEXT_INFO", "processId")) < 0)) {
		status = n->err;
		goto out;
	}
	if (yes) {
		n->map_table = "TARGET_INFO_CUDA_CONTEXT_INFO";
		n->map_pid = "processId";
		map_sql = "SELECT t.processId, t.deviceId, t.hwId, min(t.rowid) FROM TARGET_INFO_CUDA_CONTEXT_INFO "
			  "AS t WHERE t.processId IS NOT NULL AND t.deviceId IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2";
		map_cols[0] = "processId", map_cols[1] = "deviceId", map_cols[2] = "hwId";
	} else {
		if ((yes = nsys_has_column(n, "TARGET_INFO_CUDA_DEVICE", "gpuId")) < 0 ||
		    (yes && (yes = nsys_has_column(n, "TARGET_INFO_CUDA_DEVICE", "pid")) < 0)) {
			status = n->err;
			goto out;
		}
		if (yes) {
			n->map_table = "TARGET_INFO_CUDA_DEVICE";
			n->map_pid = "pid";
			map_sql = "SELECT t.pid, t.cudaId, t.gpuId, min(t.rowid) FROM TARGET_INFO_CUDA_DEVICE AS t "
				  "WHERE t.pid IS NOT NULL AND t.cudaId IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2";
			map_cols[0] = "pid", map_cols[1] = "cudaId", map_cols[2] = "gpuId";
		}
	}
	if (map_sql) {
		buf_init(&sql);
		buf_addstr(&sql, map_sql);
		st = nsys_prepare_rowid(n, sql.s, n->map_table, &status);
		buf_release(&sql);
	}
	if (map_sql && st) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct row r = nsys_row_at(n->map_table, st, 3);
			struct gpu *g;
			int64_t v[3];
			int isnull, bad = 0;
			for (i = 0; i < 3 && !bad; i++)
				bad = nsys_get_int(n, &r, (int)i, map_cols[i], (int)strlen(map_cols[i]), 1, &v[i], &isnull);
			if (bad < 0) {
				status = EXIT_SYSTEM;
				break;
			}
			if (bad)
				continue;
			if (isnull)
				v[2] = -1;	/* no hardware id: no properties */
			ALLOC_GROW(n->gpus, n->ngpus + 1, n->gpus_alloc);
			g = &n->gpus[n->ngpus++];
			memset(g, 0, sizeof(*g));
			g->pid = v[0];
			g->id = v[1];
			g->hw = v[2];
			for (k = 0; k < nhw; k++)
				if (hw[k].hw == g->hw) {
					g->name = hw[k].name ? xstrdup(hw[k].name) : NULL;
					g->uuid = hw[k].uuid ? xstrdup(hw[k].uuid) : NULL;
					memcpy(g->num, hw[k].num, sizeof(g->num));
					break;
				}
		}
		if (rc != SQLITE_DONE && !status)
			status = nsys_src_error(n, n->map_table);
		sqlite3_finalize(st);
	}
	if (status)
		goto out;
	if (!n->ngpus) {
		n->map_table = NULL;
		/* No mapping: every GPU of the machine goes to the first process under its nsys id. */
		n->gpus = hw;
		n->ngpus = nhw;
		n->gpus_alloc = hw_alloc;
		hw = NULL;
		nhw = 0;
	}
out:
	for (k = 0; k < nhw; k++) {
		free(hw[k].name);
		free(hw[k].uuid);
	}
	free(hw);
	return status;
}

/* Add one device record; g NULL declares a device seen in the records but not in the export's GPU list. */
int nsys_add_device(struct nsys *n, int64_t id, const struct gpu *g)
{
	struct value *v = n->vals;
	int name = rec_field(R_DEVICE, "name"), uuid = rec_field(R_DEVICE, "uuid");
	size_t i;
	nsys_clear(v, R_DEVICE);
	put(v, R_DEVICE, "id", id, 0);
	if (name >= 0 && g && g->name) {
		v[name].s = g->name;
		v[name].null = 0;
	}
	if (uuid >= 0 && g && g->uuid) {
		v[uuid].s = g->uuid;
		v[uuid].null = 0;
	}
	for (i = 0; i < NGPU_NUM; i++)
		put(v, R_DEVICE, gpu_cols[i].field, g ? g->num[i] : 0, 0);
	nsys_idset_add(&n->declared, id);
	return sink_add(n->sink, R_DEVICE, v);
}
