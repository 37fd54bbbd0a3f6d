/*
 * records: the typed event records every reader produces and the sink stores.
 *
 * One table row per record type names its wire-format batch type, its session.db table and its fields
 * in column order. The wire format (schemas/wire-format.md), the SQL tables (schemas/session.sql) and
 * this table agree field for field; tests/unit checks that every column named here exists.
 * Everything here is static data.
 */
#ifndef GPUPROF_RECORDS_H
#define GPUPROF_RECORDS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The wire-format version this table describes. Version 2 added the `overhead` type, version 3 the
 * `pc_total`, `op` and `alloc_fail` types (and the `window` line); readers take every version from 1 to
 * this one, writers write this one.
 */
#define WIRE_VERSION 3

enum field_kind {
	F_TIME,		/* int, relative ns in the wire format, absolute ns in the database */
	F_TIMEN,	/* F_TIME or null */
	F_INT,		/* int */
	F_INTN,		/* int or null */
	F_OPTN,		/* int or null, and the key may be absent from a batch (added in v1: all null) */
	F_OPT,		/* int; negative means "none" and is stored as NULL */
	F_NUM,		/* number or null, stored as REAL */
	F_STR,		/* string id; 0 means none and is stored as NULL */
	F_STRTEXT,	/* string id, stored as the string itself (small lookup tables) */
	F_TEXT		/* inline JSON string */
};

enum rec_type {
	R_KERNEL, R_MEMCPY, R_MEMSET, R_SYNC, R_MEMORY, R_API, R_RANGE, R_MARKER, R_PC_SAMPLE,
	R_STALL_REASON, R_DEVICE, R_DEVICE_METRIC, R_HOST_METRIC, R_OVERHEAD, R_PC_TOTAL, R_OP, R_ALLOC_FAIL,
	R_TORCH_OP, R_OP_LINK,
	R_COUNT
};

#define REC_MAX_FIELDS 32

struct field {
	const char *wire;	/* key in the wire-format batch */
	const char *column;	/* column in the database table */
	enum field_kind kind;
	int required;		/* F_STR, F_STRTEXT: 0 (none) is refused, the column being NOT NULL */
};

struct rec_spec {
	const char *wire;	/* batch type in the wire format */
	const char *table;	/* table in session.db */
	int nfields;
	struct field fields[REC_MAX_FIELDS];
	int derived;		/* 1: made by ingest from traces (PyTorch ops), never a wire-format batch: rec_by_wire
				   does not name it and no collector writes it */
};

extern const struct rec_spec rec_specs[R_COUNT];

/*
 * The counter names (arg keys) that gpuprof's Chrome traces give NVML and host metrics, in the order of
 * the device_metric fields after "device" and the host_metric fields after "ts"; NULL-ended. The trace
 * writer (report/trace.c) and the Kineto reader (ingest/kineto.c) share them.
 */
extern const char *const trace_device_metric_keys[];
extern const char *const trace_host_metric_keys[];
/* The arg of PyTorch's cpu_op events that carries an op's FLOP count (with_flops=True): the Kineto reader
   reads it, report/trace.c writes it. */
#define TRACE_FLOPS_ARG "flops"

/* The record type whose wire name is `wire`, or -1 (also for a derived type's name). */
int rec_by_wire(const char *wire);
/* Index of field `wire` in type t, or -1. */
int rec_field(enum rec_type t, const char *wire);

/* An int member of some struct to fill with a field's index: see rec_indices. */
struct rec_index {
	size_t off;		/* offsetof the int in the caller's struct */
	enum rec_type type;
	const char *field;	/* wire name */
};

/* Fill, for each entry, the int at base + off with rec_field(type, field). -1 if one is unknown. */
int rec_indices(const struct rec_index *tab, size_t n, void *base);

/* One value of a record; the sink binds it by kind. */
struct value {
	int null;		/* 1: SQL NULL */
	int64_t i;		/* integers, times (absolute ns), string ids (database ids) */
	double d;		/* F_NUM */
	const char *s;		/* F_TEXT, NUL-terminated, owned by the caller */
};

#endif
