/*
 * colstore: the two biggest tables, kernels and api_calls, kept a second time as column chunks (table
 * `column_chunks`, schemas/session.sql). The sink writes them as rows arrive; kernel_columns and
 * api_columns (analyze/ext/sqlext_vtab.c) read them instead of decoding millions of SQLite rows, which
 * costs about ten times more.
 *
 * A chunk holds up to COLSTORE_ROWS consecutive rows of one table, one process and one session, in table
 * order. Its blob is a header of one 32-bit little-endian byte length per column, then the columns one
 * after another. A column is the differences between its consecutive values (the first value's from 0,
 * or from the chunk's base_ns for start_ns, so that shifting a process's times is one UPDATE of base_ns)
 * as tokens: a LEB128 varint of the 65-bit number 2 * x + flag, where flag 0 makes x the zigzag-coded
 * next difference and flag 1 says the last difference (0 before any) repeats x more times. A constant
 * column, or a counter, takes a few bytes a chunk.
 *
 * The chunk columns of each table, in order, and the SQL expression over the table each one equals
 * (colstore_sql, which analyze/ext/sqlext_vtab.c reads rows with when a session has no chunks; tests/parallel.py
 * checks that both ways give the same answers):
 *   kernels:   pid, device_id, coalesce(stream_id, -1), name_id, coalesce(correlation_id, 0),
 *              start_ns, coalesce(end_ns - start_ns, 0), then grid_x, grid_y, grid_z, block_x,
 *              block_y, block_z, registers, static_smem, dynamic_smem, coalesce(shared_mem,
 *              static_smem + dynamic_smem) with INT64_MIN for NULL (kernel chunks of this layout since schema version 4,
 *              DB_V_SHARED_MEM; older ones are left unread)
 *   api_calls: pid, coalesce(thread_id, 0), coalesce(name_id, 0), coalesce(correlation_id, 0),
 *              start_ns, coalesce(end_ns - start_ns, 0)
 *
 * The chunks are a cache: triggers on the two tables delete a session's chunks on any INSERT, UPDATE or
 * DELETE of its rows that does not come from the sink (which drops the triggers for its own
 * transaction), and readers use them only when every process of the session has its row in
 * `column_sets`.
 *
 * Ownership: a colstore_buf is plain memory owned by its caller. A colstore_writer owns its buffers and
 * its encoder thread until colstore_writer_free; the chunk colstore_writer_done hands out stays valid
 * until the next call for its table. A writer is used from one thread.
 */
#ifndef GPUPROF_COLSTORE_H
#define GPUPROF_COLSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "records.h"

enum colstore_table { CS_KERNELS, CS_CALLS, CS_TABLES };

#define COLSTORE_ROWS 65536

/* Chunk columns of kernels and of api_calls. */
enum {
	CSK_PID, CSK_DEV, CSK_STREAM, CSK_NAME, CSK_CORR, CSK_START, CSK_DUR,
	CSK_GRID_X, CSK_GRID_Y, CSK_GRID_Z, CSK_BLOCK_X, CSK_BLOCK_Y, CSK_BLOCK_Z, CSK_REGS, CSK_SSMEM,
	CSK_DSMEM, CSK_SMEM, CSK_COUNT
};
enum { CSC_PID, CSC_THREAD, CSC_NAME, CSC_CORR, CSC_START, CSC_DUR, CSC_COUNT };

#define COLSTORE_MAX_COLS CSK_COUNT

/* What a table keeps as chunks. */
struct colstore_spec {
	const char *table;	/* session.db table */
	enum rec_type rec;	/* the record type the sink adds to it */
	int ncols;
	int start_col;		/* the start_ns column, stored relative to base_ns */
	int version;		/* the schema version whose chunks have these columns (older ones: read the rows) */
};

extern const struct colstore_spec colstore_specs[CS_TABLES];

/*
 * One row, one column: 1 when session ?1's rows of table ?2 are all in column chunks (a column_sets row
 * for every process, at least one, and as many rows in chunks as those promise). Only for a database
 * of the table's version or later (colstore_spec.version, db_schema_version): older ones lack the tables
 * or have chunks of other columns.
 */
#define COLSTORE_COMPLETE_SQL "SELECT " COLSTORE_COMPLETE_SQL_OF("?1", "?2")
/* The same test as an expression over session S and table T (SQL text). */
#define COLSTORE_COMPLETE_SQL_OF(S, T) COLSTORE_COMPLETE_SQL_IN("", S, T)
/* The same with each table's name after the prefix P ("base.": an attached database's; five times). */
#define COLSTORE_COMPLETE_SQL_IN(P, S, T) \
	"(SELECT count(*) FROM " P "processes WHERE session_id = " S ") = " \
	"(SELECT count(*) FROM " P "column_sets WHERE session_id = " S " AND tbl = " T ") AND " \
	"EXISTS (SELECT 1 FROM " P "column_sets WHERE session_id = " S " AND tbl = " T ") AND " \
	"(SELECT coalesce(sum(rows), 0) FROM " P "column_sets WHERE session_id = " S " AND tbl = " T ") = " \
	"(SELECT coalesce(sum(rows), 0) FROM " P "column_chunks WHERE session_id = " S " AND tbl = " T ")"

/* Rows of one table not yet written as a chunk: v[row][column]. */
struct colstore_buf {
	size_t n;
	int64_t v[COLSTORE_ROWS][COLSTORE_MAX_COLS];
};

/*
 * Record field indexes the chunk columns of table t read (see colstore_add); fills idx[ncols].
 * 0, or -1 when records.c lacks a field.
 */
int colstore_fields(enum colstore_table t, int idx[COLSTORE_MAX_COLS]);

/* Column k of table t as an SQL expression over the table. */
const char *colstore_sql(enum colstore_table t, int k);

/* Append one row of column values v[ncols]; 1 when b is now full. */
int colstore_append(enum colstore_table t, struct colstore_buf *b, const int64_t *v);

/* Append one record (its values, in records.c order) of process pid; 1 when b is now full. */
int colstore_add(enum colstore_table t, const int idx[COLSTORE_MAX_COLS], struct colstore_buf *b, int64_t pid,
		 const struct value *vals);

/* The most bytes a chunk blob takes. */
#define COLSTORE_BLOB_MAX (4 * COLSTORE_MAX_COLS + 10 * COLSTORE_MAX_COLS * COLSTORE_ROWS)

/* Encode b's rows as a chunk blob into out[COLSTORE_BLOB_MAX]; its length, and *base_ns for the chunk. */
size_t colstore_encode(enum colstore_table t, const struct colstore_buf *b, unsigned char *out, int64_t *base_ns);

/*
 * 1 when a chunk whose column_chunks row says first_row and rows can come next in its session's table,
 * whose chunks so far held want_first rows (in id order, one after another, each of 1 to COLSTORE_ROWS
 * rows), else 0: the chunks are damaged.
 */
int colstore_chunk_follows(int64_t want_first, int64_t first_row, int64_t rows);

/*
 * Decode column k of a chunk blob holding n rows into out[n] (prev is the value before the first: 0, or
 * base_ns for the start column). 0, or -1 when the blob is malformed.
 */
int colstore_decode(const unsigned char *blob, size_t len, int ncols, int k, size_t n, int64_t prev,
		    int64_t *out);

/*
 * A writer buffers the rows of both tables and encodes full buffers on a thread of its own, so the
 * caller (the sink, which writes the blobs with SQLite) goes on inserting rows meanwhile.
 */
struct colstore_writer;

/* An encoded chunk and the tags its rows were sealed with. */
struct colstore_chunk {
	const unsigned char *blob;
	size_t len;
	size_t rows;
	int64_t base_ns;
	int64_t tag[3];		/* the caller's, from colstore_writer_seal */
};

/* A new writer; NULL with a message. */
struct colstore_writer *colstore_writer_new(void);
void colstore_writer_free(struct colstore_writer *w);
/* Buffer one record of table t from process pid; 1 when the buffer is full (seal it). */
int colstore_writer_add(struct colstore_writer *w, enum colstore_table t, int64_t pid, const struct value *vals);
/* Buffer one row of column values v[ncols] of table t; 1 when the buffer is full. */
int colstore_writer_append(struct colstore_writer *w, enum colstore_table t, const int64_t *v);
/* Rows buffered for t. */
size_t colstore_writer_rows(const struct colstore_writer *w, enum colstore_table t);
/*
 * Hand t's buffered rows to the encoder, tagged with tag[3]. The chunk sealed before must have been
 * taken with colstore_writer_done first.
 */
void colstore_writer_seal(struct colstore_writer *w, enum colstore_table t, const int64_t tag[3]);
/* Wait for t's sealed chunk: 1 with *c, 0 when none is sealed. */
int colstore_writer_done(struct colstore_writer *w, enum colstore_table t, struct colstore_chunk *c);
/* Add offset_ns to the start_ns of t's buffered rows (take the sealed chunk first). */
void colstore_writer_shift(struct colstore_writer *w, enum colstore_table t, int64_t offset_ns);
/* Forget every buffered and sealed row. */
void colstore_writer_discard(struct colstore_writer *w);

#endif
