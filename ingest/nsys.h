/*
 * nsys: the insides of the Nsight Systems reader, shared by its files (never included outside ingest/nsys*.c).
 * nsys.c says how the reader works; each file has one job:
 *   nsys.c           the driver: the file check and session id, prepare, one sink process per pid, the summary
 *   nsys_schema.c    schema discovery: tables, columns, SELECT pieces, metadata, processes, unread tables
 *   nsys_check.c     the one validation path: nsys_get_int, _text, _string; rejected rows
 *   nsys_activity.c  the activity tables (nsys_sources): kernels, copies, memsets, syncs, memory events,
 *                    API calls, overheads
 *   nsys_nvtx.c      NVTX domains, ranges and marks
 *   nsys_gpus.c      GPUs and the device records
 *
 * Ownership: struct nsys owns everything it points to (statements on the export, names, GPUs, domains,
 * pending rejections, the unread counts) and nsys.c's release frees it all; its sink and options are
 * borrowed. Text read from a statement (nsys_get_text) is valid until that statement steps again. Functions
 * that return "an exit status" return EXIT_OK or the EXIT_* code with a message printed.
 */
#ifndef GPUPROF_NSYS_H
#define GPUPROF_NSYS_H

#include "reader.h"
#include "intmap.h"
#include "util.h"

#include <stddef.h>

#define MAX_COLS 28
#define MAX_RES (3 + 2 * MAX_COLS)	/* result columns of a source's SELECT */
#define NSOURCES 8			/* rows of nsys_sources (nsys_activity.c) */
#define NGPU_NUM 9			/* numeric device fields read from TARGET_INFO_GPU (nsys_gpus.c) */
#define SCAN_PIDS 8			/* up to this many processes: one scan per process, else one sort */
#define NVTX_MARK 34
#define NVTX_PUSHPOP 59
#define NVTX_STARTEND 60
#define NVTX_DOMAIN_CREATE 75

/* How an nsys value becomes a record value. */
enum xf {
	X_TIME,		/* origin + value */
	X_END,		/* X_TIME, and not before the col before it (the start) */
	X_INT,		/* the value; dflt when the column is absent or NULL (a req column: never NULL) */
	X_INTN,		/* the value, or NULL */
	X_OPT,		/* the value; NULL, negative or CUPTI_INVALID store NULL */
	X_NONE0,	/* the value; NULL or CUPTI_INVALID store 0 (ids where 0 means none) */
	X_CONST,	/* dflt, whatever the file holds */
	X_STR,		/* a StringIds id, stored as our string id; NULL when absent */
	X_MANGLED,	/* X_STR, but NULL when it is the same id as the column before it (the name) */
	X_INTERN,	/* a StringIds id only added to `strings` (no field): kernel short names */
	X_API,		/* X_STR for CUDA API names, less nsys's version suffix (cudaMemcpy_v3020) */
	X_TEXT,		/* an inline TEXT column, stored as our string id */
	X_TID,		/* globalTid: the thread id in its low 24 bits; dflt when absent (NULL if negative) */
	X_MEMKIND,	/* nsys memory kind to CUPTI's numbering */
	X_OVHKIND,	/* nsys CUPTI overhead type to CUPTI's overhead kind */
	X_SYNCKIND,	/* CUPTI synchronization type: 1..4 kept, others 0 */
	X_MEMOP		/* memoryOperationType 0 allocation, 1 free to op 1, 2; others reject the row */
};

struct col {
	const char *field;	/* record field (wire name), NULL for X_INTERN */
	const char *names;	/* candidate nsys columns "a|b": the first non-NULL existing one; NULL: none */
	enum xf xf;
	int64_t dflt;
	int req;		/* 1: the table must have one of the candidates, and a row a non-NULL value */
};

/* One nsys table and the record type it fills. Record fields no col names are stored as NULL. */
struct source {
	const char *table;
	enum rec_type type;
	const char *pid_col;	/* the column holding the process: globalPid or globalTid */
	int ncols;
	struct col cols[MAX_COLS];
};

/* Column names of one table of the export. */
struct names {
	char **v;
	size_t n, alloc;
};

/* One GPU to declare: from TARGET_INFO_GPU, placed in a process by the CUDA context tables. */
struct gpu {
	int64_t pid;		/* -1: the first process */
	int64_t id;		/* CUDA device id as the process's records use it */
	int64_t hw;		/* TARGET_INFO_GPU.id */
	char *name, *uuid;	/* owned, NULL when unknown */
	int64_t num[NGPU_NUM];
};

/* An NVTX domain named by an eventType 75 record. */
struct domain {
	int64_t pid, id;
	char *name;		/* owned */
};

/*
 * A source table being read. Result columns: 0 the pid, 1 the rowid, 2 the process column as stored,
 * then each existing candidate column of each col.
 */
struct cursor {
	const struct source *src;
	sqlite3_stmt *st;
	int started, has_row;
	int64_t pid;			/* of the current row */
	int at[MAX_COLS];		/* result column of each col's first candidate */
	int ncand[MAX_COLS];		/* how many of its candidates the table has */
	const char *cname[MAX_RES];	/* the export's column name of each result column (not NUL-ended) */
	int clen[MAX_RES];
	int field[MAX_COLS];		/* record field of each col, -1 for X_INTERN */
};

/* A row being validated: where it comes from, for messages and ingest_errors. */
struct row {
	const char *table;
	sqlite3_stmt *st;
	int64_t rowid;			/* 0 when the table has none */
	int has_rowid;
};

/* A rejected row found before any process was begun (GPUs, NVTX domains), recorded by the first one. */
struct pending {
	int64_t rowid;
	char *reason, *excerpt;		/* owned */
};

/* Rows of one GPU-activity table gpuprof does not read, in process pid. */
struct unread {
	const char *table;		/* an entry of n->tables */
	int64_t pid, count;
};

/* The set of device ids of the current process (few: linear search). */
struct idset {
	int64_t *v;
	size_t n, alloc;
};

/* The range and marker fields NVTX events fill, resolved once (nsys_nvtx_fields). */
struct nvtx_fields {
	int r_start, r_end, r_thread, r_name, r_domain, r_kind, r_depth, r_id;
	int m_ts, m_thread, m_name, m_domain;
};

struct nsys {
	struct sink *sink;
	const struct reader_opts *opts;
	const char *path;
	sqlite3 *db;			/* the export, read-only */
	char uuid[96];
	struct names tables;
	int has_strings;		/* StringIds exists */
	int64_t origin;			/* utcEpochNs, or 0 */
	int64_t format_version;		/* export schema X.Y.Z as X*10000 + Y*100 + Z */
	char *hostname, *collector;
	int memkind[16];		/* nsys memory kind -> CUPTI memory kind */
	int ovhkind[16];		/* nsys CUPTI overhead type -> CUPTI overhead kind */
	struct intmap strs;
	int64_t *pids;
	size_t npids, pids_alloc;
	struct gpu *gpus;
	size_t ngpus, gpus_alloc;
	struct domain *domains;
	size_t ndomains, domains_alloc;
	struct cursor cursors[NSOURCES];
	struct cursor nvtx;
	int per_pid;			/* cursors take the pid as parameter 1 (see SCAN_PIDS) */
	sqlite3_stmt *program_st;	/* SELECT name FROM PROCESSES WHERE pid = ? */
	struct idset seen, declared;	/* devices of the current process */
	int64_t *stack;			/* NVTX push/pop ends, for depths */
	size_t nstack, stack_alloc;
	int64_t stack_tid, stack_domain;
	const char *map_table;		/* TARGET_INFO_CUDA_CONTEXT_INFO or _CUDA_DEVICE, when used */
	const char *map_pid;		/* its process column */
	int err;			/* exit status of the last failure reading the export */
	sqlite3_stmt *str_st;		/* SELECT value FROM StringIds WHERE id = ? */
	int in_process;			/* rejected rows can be recorded now (else they wait in pending) */
	struct pending *pending;
	size_t npending, pending_alloc;
	struct unread *unread;
	size_t nunread, unread_alloc;
	int64_t unread_rows;		/* in all */
	int64_t rejected;		/* rows rejected in all */
	int64_t gpu_rejected;		/* of them, kernel, copy and memset rows */
	int64_t totals[R_COUNT];
	size_t ingested;		/* processes written (not already in the database) */
	struct value vals[REC_MAX_FIELDS + MAX_COLS];
	int64_t raw[MAX_COLS];
	int raw_null[MAX_COLS];
	struct nvtx_fields fx;		/* where nsys_drain_nvtx puts what */
};

/* The tables read as activity, each with the record type it fills (nsys_activity.c). */
extern const struct source nsys_sources[];

/* Set every field of a type-t record to NULL (fields the export has nothing for stay so). */
static inline void nsys_clear(struct value *v, enum rec_type t)
{
	int i;
	for (i = 0; i < rec_specs[t].nfields; i++) {
		v[i].null = 1;
		v[i].i = 0;
		v[i].s = NULL;
	}
}

/* Set field f (an index into the record's fields) of a record. */
static inline void nsys_set(struct value *v, int f, int64_t x, int null)
{
	v[f].i = x;
	v[f].null = null;
}

static inline int nsys_idset_has(const struct idset *s, int64_t v)
{
	size_t i;
	for (i = 0; i < s->n; i++)
		if (s->v[i] == v)
			return 1;
	return 0;
}

static inline void nsys_idset_add(struct idset *s, int64_t v)
{
	if (nsys_idset_has(s, v))
		return;
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n++] = v;
}

/* nsys_schema.c */
void nsys_names_release(struct names *l);
int nsys_names_has(const struct names *l, const char *name, size_t len);
int nsys_has_table(const struct nsys *n, const char *name);
/* 1 when table `table` of the export has column `col`, 0 when not, -1 on failure (status in n->err). */
int nsys_has_column(struct nsys *n, const char *table, const char *col);
/* Fill `out` with the tables of the export (table NULL) or the columns of `table`. Returns an exit status. */
int nsys_load_names(struct nsys *n, const char *table, struct names *out);
/* A failure of the export connection, printed: EXIT_SYSTEM for resource and I/O failures, else EXIT_DATA. */
int nsys_src_error(struct nsys *n, const char *where);
/* Prepare a statement on the export; NULL with a message (and *status set) on failure. */
sqlite3_stmt *nsys_src_prepare(struct nsys *n, const char *sql, const char *where, int *status);
/* Prepare a SELECT of alias t that reads t.rowid, read as NULL for a table without rowids. */
sqlite3_stmt *nsys_prepare_rowid(struct nsys *n, char *sql, const char *where, int *status);
/* Append the expression for candidate columns "a|b" of alias t; returns how many exist. */
int nsys_add_expr(struct buf *sql, const struct names *cols, const char *cands);
/* Append the pid expression for the process column `col` of alias t. */
void nsys_add_pid_expr(struct buf *sql, const struct names *cols, const char *col);
/* Append the condition that the process column `col` of alias t holds no text or blob. */
void nsys_add_pid_ok(struct buf *sql, const struct names *cols, const char *col);
/* Append a cursor's pid expression: text or a blob in `col` reads as the first process (n->pids[0]). */
void nsys_add_row_pid(const struct nsys *n, struct buf *sql, const struct names *cols, const char *col);
/* Session metadata and the enumerations' numbering. Returns an exit status. */
int nsys_load_meta(struct nsys *n);
/* The processes into n->pids. Returns an exit status. */
int nsys_load_pids(struct nsys *n);
/* The rows of GPU-activity tables no source reads, per process, into n->unread. Returns an exit status. */
int nsys_count_unread(struct nsys *n);

/* nsys_check.c */
/* The row of st whose rowid is result column i (NULL for a table without rowids). */
struct row nsys_row_at(const char *table, sqlite3_stmt *st, int i);
/* 1 with *x when d is an integral value in int64_t's range (what INTEGER affinity would store), else 0. */
int nsys_integral(double d, int64_t *x);
/* Reject the current row of r (excerpt: result column i, or none when i < 0). Returns 1, or -1. */
int nsys_reject(struct nsys *n, const struct row *r, int i, const char *name, int len, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Result column i of r's row as an integer: 0 with *x (*isnull), 1 when the row is rejected, -1. */
int nsys_get_int(struct nsys *n, const struct row *r, int i, const char *name, int len, int nullable,
		 int64_t *x, int *isnull);
/* Result column i of r's row as text: 0 with *s (NULL when NULL and nullable), 1 when rejected, -1. */
int nsys_get_text(struct nsys *n, const struct row *r, int i, const char *name, int len, int nullable,
		  const char **s);
/* Our string id for StringIds id `id` into *out: 0, 1 when the row is rejected, -1 on a failure. */
int nsys_get_string(struct nsys *n, const struct row *r, int i, const char *name, int len, int64_t id,
		    int api, int64_t *out);
/* A process is begun: record the rejections that waited for one. 0, or -1 on a sink failure. */
int nsys_record_pending(struct nsys *n);

/* nsys_activity.c */
/* Build and prepare the SELECT of one source (no statement for a missing table). Returns an exit status. */
int nsys_open_cursor(struct nsys *n, struct cursor *c, const struct source *src);
/* Step a cursor; returns EXIT_OK or the status of a read failure. */
int nsys_advance(struct nsys *n, struct cursor *c, const char *where);
/* Position a cursor on the first row of process pid. Returns an exit status. */
int nsys_restart(struct nsys *n, struct cursor *c, int64_t pid, const char *where);
/* Store the rows of process `pid` from one source (or pass over them when skip). Returns an exit status. */
int nsys_drain(struct nsys *n, struct cursor *c, int64_t pid, int skip);

/* nsys_nvtx.c */
/* Resolve the record fields NVTX events fill into *fx. 0, or -1 when records.c lacks one. */
int nsys_nvtx_fields(struct nvtx_fields *fx);
/* NVTX domains named by domain-create events, into n->domains. Returns an exit status. */
int nsys_load_domains(struct nsys *n, const struct names *cols);
/* Prepare the NVTX cursor n->nvtx. Returns an exit status. */
int nsys_open_nvtx(struct nsys *n, const struct names *cols);
/* Store the NVTX ranges and marks of process pid (or pass over them). Returns an exit status. */
int nsys_drain_nvtx(struct nsys *n, int64_t pid, int skip);

/* nsys_gpus.c */
/* Load the GPUs and where each process sees them into n->gpus. Returns an exit status. */
int nsys_load_gpus(struct nsys *n);
/* Add one device record; g NULL declares a device seen in the records but not in the export's GPU list. */
int nsys_add_device(struct nsys *n, int64_t id, const struct gpu *g);

#endif
