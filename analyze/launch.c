/*
 * launch: launch configurations per kernel name (grid, block, registers, shared memory), how often each
 * ran and for how long, and the theoretical occupancy it reaches on its device.
 *
 * Occupancy follows NVIDIA's occupancy calculator (cuda_occupancy.h,
 * cudaOccMaxActiveBlocksPerMultiprocessor, default shared-memory carveout, partitioned global caching
 * off): the resident blocks per SM are the least of four limits, and occupancy is the resident warps
 * over the SM's maximum warps.
 *   warps          max_threads_per_sm / 32 / warps per block (0 for blocks over 1024 threads)
 *   registers      registers are allocated per warp in units of 256, from 4 sub-partitions of
 *                  max_regs_per_sm / 4 each: floor(max_regs_per_sm / 4 / regs_per_warp) * 4 warps fit,
 *                  divided by warps per block; 0 when a block needs more than 65536 registers (the
 *                  hardware check counts warps rounded up to a multiple of 4) or a thread more than 256
 *   shared memory  shared_mem (static + dynamic, or Kineto's total) + the per-block reserve (1 KB on cc >= 8.0), rounded up to the
 *                  allocation unit (256 B before cc 8.0, 128 B since); max_smem_per_sm over that, 0 when
 *                  one block needs more than max_smem_per_sm (NVIDIA's opt-in per-block limit plus the
 *                  reserve equals it on every listed architecture); no limit for blocks using none
 *   blocks         the architecture's resident-block limit (table `arches` below)
 * The limiter names every limit equal to the result, in that order, joined by "+" (e.g.
 * "warps+registers" for a block of 256 threads at 32 registers on an A100, 100 % occupancy).
 * Devices whose compute capability is not in the table, or whose properties are unknown (0 or NULL),
 * and launches without a block shape, registers or shared-memory sizes get occupancy NULL and the
 * limiter "unknown". Rows are sorted by total time; --top N keeps the first N configurations; --match and
 * --exclude filter names; --short and --group fold names as in hotspots (a family's configurations merge).
 */
#include "analysis.h"
#include "colstore.h"
#include "columns.h"
#include "db.h"
#include "names.h"
#include "scan.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per-architecture limits that the devices table does not carry (cuda_occupancy.h, CUDA 13.0). */
struct arch {
	int major, minor;
	int max_blocks;		/* resident blocks per SM */
	int smem_unit;		/* shared-memory allocation granularity, bytes */
	int smem_reserved;	/* shared memory the driver reserves per block, bytes */
};

static const struct arch arches[] = {
	{ 7, 0, 32, 256, 0 },		/* Volta */
	{ 7, 2, 32, 256, 0 },		/* Xavier */
	{ 7, 5, 16, 256, 0 },		/* Turing */
	{ 8, 0, 32, 128, 1024 },	/* A100 */
	{ 8, 6, 16, 128, 1024 },	/* GA10x */
	{ 8, 7, 16, 128, 1024 },	/* Orin */
	{ 8, 9, 24, 128, 1024 },	/* Ada */
	{ 9, 0, 32, 128, 1024 },	/* Hopper */
	{ 10, 0, 32, 128, 1024 },	/* Blackwell B200 */
	{ 10, 3, 32, 128, 1024 },	/* Blackwell B300 */
	{ 11, 0, 24, 128, 1024 },	/* Thor */
	{ 12, 0, 24, 128, 1024 },	/* Blackwell RTX */
	{ 12, 1, 24, 128, 1024 },	/* DGX Spark */
};

#define WARP_SIZE 32
#define MAX_THREADS_PER_BLOCK 1024
#define REGS_PER_BLOCK 65536	/* every architecture above */
#define REG_UNIT 256		/* registers are allocated per warp in units of 256 */
#define REG_PARTITIONS 4	/* register-file sub-partitions per SM */
#define MAX_REGS_PER_THREAD 256	/* cuda_occupancy.h for cc >= 7.0 (compilers stop at 255) */
#define NO_LIMIT INT64_MAX

/* What the occupancy calculation needs of a device; 0 where unknown. */
struct sm_props {
	int64_t cc_major, cc_minor;
	int64_t max_threads;	/* resident threads per SM */
	int64_t max_regs;	/* 32-bit registers per SM */
	int64_t max_smem;	/* shared memory per SM, bytes */
};

struct occupancy {
	int known;		/* 0: occupancy unknown, pct not set */
	double pct;		/* active warps / max warps per SM, percent */
	char limiter[48];	/* "warps", "registers", "shared memory", "blocks" joined by "+", or "unknown" */
};

static int64_t round_up(int64_t x, int64_t unit)
{
	return (x + unit - 1) / unit * unit;
}

static const struct arch *arch_find(int64_t major, int64_t minor)
{
	size_t i;
	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i].major == major && arches[i].minor == minor)
			return &arches[i];
	return NULL;
}

/*
 * Theoretical occupancy of blocks of `threads` threads using `regs` registers per thread and `smem`
 * bytes of shared memory (static + dynamic) on a device with properties p. Negative arguments mean
 * unknown; the result is then unknown too.
 */
static void occupancy_of(const struct sm_props *p, int64_t threads, int64_t regs, int64_t smem,
			 struct occupancy *out)
{
	static const char *const names[] = { "warps", "registers", "shared memory", "blocks" };
	const struct arch *a = p ? arch_find(p->cc_major, p->cc_minor) : NULL;
	int64_t limit[4], active, wpb, max_warps, per_warp, alloc;
	int i;

	memset(out, 0, sizeof(*out));
	snprintf(out->limiter, sizeof(out->limiter), "unknown");
	if (!a || p->max_threads < WARP_SIZE || p->max_regs <= 0 || p->max_smem <= 0 || threads <= 0 || regs < 0 ||
	    smem < 0)
		return;
	wpb = (threads + WARP_SIZE - 1) / WARP_SIZE;
	max_warps = p->max_threads / WARP_SIZE;

	limit[0] = threads > MAX_THREADS_PER_BLOCK ? 0 : max_warps / wpb;

	per_warp = round_up(regs * WARP_SIZE, REG_UNIT);
	if (regs > MAX_REGS_PER_THREAD || per_warp * round_up(wpb, REG_PARTITIONS) > REGS_PER_BLOCK)
		limit[1] = 0;
	else if (per_warp == 0)
		limit[1] = NO_LIMIT;
	else
		limit[1] = p->max_regs / REG_PARTITIONS / per_warp * REG_PARTITIONS / wpb;

	alloc = round_up(smem + a->smem_reserved, a->smem_unit);
	if (alloc == 0)
		limit[2] = NO_LIMIT;
	else if (alloc > p->max_smem)
		limit[2] = 0;
	else
		limit[2] = p->max_smem / alloc;

	limit[3] = a->max_blocks;

	active = limit[0];
	for (i = 1; i < 4; i++)
		if (limit[i] < active)
			active = limit[i];
	out->known = 1;
	out->pct = 100.0 * (double)(active * wpb) / (double)max_warps;
	out->limiter[0] = '\0';
	for (i = 0; i < 4; i++) {
		size_t len = strlen(out->limiter);
		if (limit[i] == active)
			snprintf(out->limiter + len, sizeof(out->limiter) - len, "%s%s", len ? "+" : "", names[i]);
	}
}

/* One row of statement 1: a device and which distinct property set it has. */
struct device_row {
	int64_t pid, id;
	int props;		/* index into the distinct property sets */
};

enum { F_GX, F_GY, F_GZ, F_BX, F_BY, F_BZ, F_REGS, F_SSMEM, F_DSMEM, F_SMEM, NFIELDS };
#define CFG_NULL INT64_MIN	/* a launch field the source did not record */

/* One launch configuration of one kernel name on one kind of device. */
struct config {
	int64_t name;		/* strings.id */
	int64_t f[NFIELDS];	/* launch fields, CFG_NULL when NULL */
	int props;		/* distinct device property set, -1 when the device is unknown */
	int64_t calls, total;	/* kernels, summed duration in ns */
};

/* Configurations, hashed on everything but calls and total. */
struct config_set {
	struct config *v;
	size_t n, alloc;
	size_t *slots;		/* index + 1 into v, 0 = empty */
	size_t cap;		/* power of two */
};

static uint64_t config_hash(const struct config *c)
{
	uint64_t h = (uint64_t)c->name * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(c->props + 1);
	int i;
	for (i = 0; i < NFIELDS; i++)
		h = (h ^ (uint64_t)c->f[i]) * 0x100000001B3ULL;
	return h ^ (h >> 29);
}

static int config_same(const struct config *a, const struct config *b)
{
	return a->name == b->name && a->props == b->props && !memcmp(a->f, b->f, sizeof(a->f));
}

static void config_slots_rebuild(struct config_set *s, size_t cap)
{
	size_t i;
	free(s->slots);
	s->cap = cap;
	s->slots = xcalloc(cap, sizeof(*s->slots));
	for (i = 0; i < s->n; i++) {
		size_t j = (size_t)config_hash(&s->v[i]) & (cap - 1);
		while (s->slots[j])
			j = (j + 1) & (cap - 1);
		s->slots[j] = i + 1;
	}
}

/* Count one kernel of configuration c (its calls and total are ignored) lasting dur ns. */
/* Count `calls` kernels of `total` ns for configuration c. */
static void config_add(struct config_set *s, const struct config *c, int64_t calls, int64_t total)
{
	size_t j = (size_t)config_hash(c) & (s->cap - 1);
	struct config *e;
	while (s->slots[j] && !config_same(&s->v[s->slots[j] - 1], c))
		j = (j + 1) & (s->cap - 1);
	if (!s->slots[j]) {
		ALLOC_GROW(s->v, s->n + 1, s->alloc);
		s->v[s->n] = *c;
		s->v[s->n].calls = s->v[s->n].total = 0;
		s->slots[j] = ++s->n;
		e = &s->v[s->n - 1];
		if (s->n * 2 > s->cap)
			config_slots_rebuild(s, s->cap * 2);
	} else {
		e = &s->v[s->slots[j] - 1];
	}
	e->calls += calls;
	e->total += total;
}

/* By total time, then calls, then name id and fields, so the order is stable. */
static int cmp_config(const void *pa, const void *pb)
{
	const struct config *a = pa, *b = pb;
	int i;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	for (i = 0; i < NFIELDS; i++)
		if (a->f[i] != b->f[i])
			return a->f[i] < b->f[i] ? -1 : 1;
	return (a->props > b->props) - (a->props < b->props);
}

/*
 * Statement 1: the devices and their distinct property sets. Returns 0, or -1 with a message (st is
 * finalized either way).
 */
static int devices_load(sqlite3_stmt *st, struct device_row **rows, size_t *nrows, struct sm_props **props,
			size_t *nprops)
{
	size_t ralloc = 0, palloc = 0, i;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct sm_props p;
		p.cc_major = sqlite3_column_int64(st, 2);	/* NULL reads as 0: unknown */
		p.cc_minor = sqlite3_column_int64(st, 3);
		p.max_threads = sqlite3_column_int64(st, 4);
		p.max_regs = sqlite3_column_int64(st, 5);
		p.max_smem = sqlite3_column_int64(st, 6);
		for (i = 0; i < *nprops; i++)
			if (!memcmp(&(*props)[i], &p, sizeof(p)))
				break;
		if (i == *nprops) {
			ALLOC_GROW(*props, *nprops + 1, palloc);
			(*props)[(*nprops)++] = p;
		}
		ALLOC_GROW(*rows, *nrows + 1, ralloc);
		(*rows)[*nrows].pid = sqlite3_column_int64(st, 0);
		(*rows)[*nrows].id = sqlite3_column_int64(st, 1);
		(*rows)[*nrows].props = (int)i;
		(*nrows)++;
	}
	if (rc != SQLITE_DONE)
		return step_error(st);
	sqlite3_finalize(st);
	return 0;
}

/* The property set of device `id` as seen by process pid: its own row, else the row of pid 0, else -1. */
static int device_props(const struct device_row *rows, size_t n, int64_t pid, int64_t id)
{
	size_t i;
	int fallback = -1;
	for (i = 0; i < n; i++) {
		if (rows[i].id != id)
			continue;
		if (rows[i].pid == pid)
			return rows[i].props;
		if (rows[i].pid == 0)
			fallback = rows[i].props;
	}
	return fallback;
}

static const struct colspec launch_cols[] = {
	{ "total_ns", "Total", C_NS },
	{ "calls", "Calls", C_INT },
	{ "occupancy_pct", "Occupancy %", C_PCT },
	{ "limiter", "Limited by", C_TEXT },
	{ "grid_x", "Grid x", C_INT },
	{ "grid_y", "y", C_INT },
	{ "grid_z", "z", C_INT },
	{ "block_x", "Block x", C_INT },
	{ "block_y", "y", C_INT },
	{ "block_z", "z", C_INT },
	{ "registers", "Regs", C_INT },
	{ "static_smem", "Static smem", C_BYTES },
	{ "dynamic_smem", "Dynamic smem", C_BYTES },
	{ "shared_mem", "Shared mem", C_BYTES },
	{ "name", "Name", C_TEXT },
};

/* Fill row r from configuration c on a device with properties p (NULL when unknown). */
static void launch_row(struct table *t, size_t r, const struct config *c, const struct sm_props *p)
{
	struct occupancy occ;
	int64_t threads = -1, smem = -1;
	int i;

	table_set_int(t, r, 0, c->total);
	table_set_int(t, r, 1, c->calls);
	for (i = 0; i < NFIELDS; i++)
		if (c->f[i] != CFG_NULL)
			table_set_int(t, r, 4 + i, c->f[i]);
	/* Block dimensions beyond CUDA's (1024 threads a block) would overflow nothing below 2^20. */
	if (c->f[F_BX] > 0 && c->f[F_BY] > 0 && c->f[F_BZ] > 0 && c->f[F_BX] < (1 << 20) && c->f[F_BY] < (1 << 20) &&
	    c->f[F_BZ] < (1 << 20))
		threads = c->f[F_BX] * c->f[F_BY] * c->f[F_BZ];
	if (c->f[F_SMEM] >= 0 && c->f[F_SMEM] < INT64_MAX / 4)	/* static + dynamic, or a source's total */
		smem = c->f[F_SMEM];
	occupancy_of(p, threads, c->f[F_REGS] == CFG_NULL || c->f[F_REGS] > INT32_MAX ? -1 : c->f[F_REGS], smem,
		     &occ);
	if (occ.known)
		table_set_real(t, r, 2, occ.pct);
	table_set_text(t, r, 3, occ.limiter);
}

/* One slice of the scan of kernels: its configurations. */
struct launch_slice {
	const struct device_row *rows;
	size_t nrows;
	const struct fold *fold;	/* --group/--short, or NULL */
	const unsigned char *pass;	/* with --match/--exclude: pass[name id], else NULL */
	size_t npass;
	struct config_set set;
	int64_t last_pid, last_dev;	/* the previous row's device, and its property set */
	int last_props, have_last;
};

/* Count one kernel of name id `name` on device dev of process pid, in configuration c->f, lasting dur. */
static void launch_add(struct launch_slice *ls, struct config *c, int64_t name, int64_t pid, int64_t dev,
		       int64_t dur)
{
	c->name = ls->fold ? fold_key((void *)ls->fold, name) : name;
	if (!ls->have_last || pid != ls->last_pid || dev != ls->last_dev) {
		ls->last_props = device_props(ls->rows, ls->nrows, pid, dev);
		ls->last_pid = pid;
		ls->last_dev = dev;
		ls->have_last = 1;
	}
	c->props = ls->last_props;
	config_add(&ls->set, c, 1, dur);
}

/* 0 when --match/--exclude leave name id `name` out. */
static int passes(const struct launch_slice *ls, int64_t name)
{
	return !ls->pass || (name >= 0 && (size_t)name < ls->npass && ls->pass[name]);
}

static int launch_scan_row(sqlite3_stmt *st, void *arg)
{
	struct config c;
	int i;
	if (!passes(arg, sqlite3_column_int64(st, 0)))
		return 0;
	for (i = 0; i < NFIELDS; i++) {
		c.f[i] = sqlite3_column_int64(st, 3 + i);
		if (!c.f[i] && sqlite3_column_type(st, 3 + i) == SQLITE_NULL)	/* NULL reads 0 */
			c.f[i] = CFG_NULL;
	}
	launch_add(arg, &c, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
		   sqlite3_column_int64(st, 3 + NFIELDS));
	return 0;
}

/* The launch fields in chunk column order (colstore.h keeps NULL as INT64_MIN, which is CFG_NULL). */
static const int chunk_fields[NFIELDS] = {
	[F_GX] = CSK_GRID_X, [F_GY] = CSK_GRID_Y, [F_GZ] = CSK_GRID_Z, [F_BX] = CSK_BLOCK_X,
	[F_BY] = CSK_BLOCK_Y, [F_BZ] = CSK_BLOCK_Z, [F_REGS] = CSK_REGS, [F_SSMEM] = CSK_SSMEM,
	[F_DSMEM] = CSK_DSMEM, [F_SMEM] = CSK_SMEM,
};

static int launch_chunk(void *arg, int64_t *const *cols, size_t n)
{
	struct launch_slice *ls = arg;
	struct config c;
	size_t i;
	int f;
	for (i = 0; i < n; i++) {
		int64_t name = cols[CSK_NAME][i];
		if (!passes(ls, name))
			continue;
		for (f = 0; f < NFIELDS; f++)
			c.f[f] = cols[chunk_fields[f]][i];
		launch_add(ls, &c, name, cols[CSK_PID][i], cols[CSK_DEV][i], cols[CSK_DUR][i]);
	}
	return 0;
}

int run_launch(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("launch", "Launch configurations per kernel, with theoretical occupancy");
	struct config_set set = { NULL, 0, 0, NULL, 0 };
	struct fold f;
	struct device_row *rows = NULL;
	struct sm_props *props = NULL;
	struct launch_slice ls[SCAN_MAX_SLICES];
	struct scan_plan p;
	size_t nrows = 0, nprops = 0, npass = 0, i;
	unsigned char *pass = NULL;
	int rc, j, status = -1, folded = names_folded(o), version;
	sqlite3_stmt *st, *name = NULL;

	tables_add(out, t);
	table_cols(t, launch_cols, NCOLS(launch_cols));
	if (folded && fold_load(db, o, &f))
		return -1;

	if (!(st = script_next(&sc)) || devices_load(st, &rows, &nrows, &props, &nprops))
		goto done;
	/*
	 * The kernels' column chunks, else statement 2 (3 before schema version 4), on every core: a
	 * configuration set per slice, merged in table order.
	 */
	memset(ls, 0, sizeof(ls));
	if ((o->match || o->exclude) && !(pass = names_pass(db, o, &npass)))
		goto done;
	for (j = 0; j < SCAN_MAX_SLICES; j++) {
		ls[j].rows = rows;
		ls[j].nrows = nrows;
		ls[j].fold = folded ? &f : NULL;
		ls[j].pass = pass;
		ls[j].npass = npass;
		config_slots_rebuild(&ls[j].set, 1024);
	}
	rc = chunks_each(db, o->session, CS_KERNELS, 1u << CSK_PID | 1u << CSK_DEV | 1u << CSK_NAME |
			 1u << CSK_DUR | ((1u << CSK_COUNT) - (1u << CSK_GRID_X)), launch_chunk, ls, sizeof(ls[0]));
	if ((version = db_schema_version(db)) < 0)
		rc = -1;
	if (rc == 0) {
		/* Statement 3 instead on a database from before kernels.shared_mem. */
		struct script kernels = sc;
		if (version < DB_V_SHARED_MEM)
			script_skip(&kernels);
		rc = scan_plan(db, "kernels", &p) ||
		     scan_run(db, &p, kernels.tail, o, launch_scan_row, ls, sizeof(ls[0]));
	} else {
		rc = rc < 0;
	}
	config_slots_rebuild(&set, 1024);
	for (j = 0; j < SCAN_MAX_SLICES; j++) {
		for (i = 0; !rc && i < ls[j].set.n; i++)
			config_add(&set, &ls[j].set.v[i], ls[j].set.v[i].calls, ls[j].set.v[i].total);
		free(ls[j].set.v);
		free(ls[j].set.slots);
	}
	if (rc)
		goto done;
	script_skip(&sc);	/* past statements 2 and 3 */
	script_skip(&sc);

	if (set.n)
		xqsort(set.v, set.n, sizeof(*set.v), cmp_config);
	if (!(name = script_next(&sc)))
		goto done;
	for (i = 0; i < set.n && (o->top <= 0 || i < (size_t)o->top); i++) {
		size_t r = table_row(t);
		launch_row(t, r, &set.v[i], set.v[i].props >= 0 ? &props[set.v[i].props] : NULL);
		if (folded) {
			table_set_text(t, r, 4 + NFIELDS, set.v[i].name ? fold_name(&f, set.v[i].name) : "(unknown)");
			continue;
		}
		sqlite3_bind_int64(name, sqlite3_bind_parameter_index(name, ":id"), set.v[i].name);
		if (sqlite3_step(name) == SQLITE_ROW)
			set_col_text(t, r, 4 + NFIELDS, name, 0);
		else
			table_set_text(t, r, 4 + NFIELDS, "(unknown)");
		sqlite3_reset(name);
	}
	status = 0;
done:
	sqlite3_finalize(name);
	free(pass);
	free(set.v);
	free(set.slots);
	free(rows);
	free(props);
	if (folded)
		fold_release(&f);
	return status;
}
