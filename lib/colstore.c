/*
 * colstore: column chunks of kernels and api_calls (see colstore.h).
 */
#include "colstore.h"

#include "db.h"
#include "util.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const struct colstore_spec colstore_specs[CS_TABLES] = {
	[CS_KERNELS] = { "kernels", R_KERNEL, CSK_COUNT, CSK_START, DB_V_SHARED_MEM },
	[CS_CALLS] = { "api_calls", R_API, CSC_COUNT, CSC_START, DB_V_CHUNKS },
};

/* How a chunk column gets its value from a record. */
enum cs_how {
	CS_PID,		/* the process's pid */
	CS_FIELD,	/* a field, `def` when NULL */
	CS_SPAN		/* end minus start, 0 when either is NULL */
};

struct cs_col {
	enum cs_how how;
	const char *field;	/* wire name */
	int64_t def;
	const char *sql;	/* the same value as an expression over the table */
};

/* INT64_MIN in SQL (whose integer literals stop at INT64_MAX). */
#define NULL64 "(-9223372036854775807 - 1)"

/* The columns of colstore.h's list, in order; CS_SPAN reads the "start" and "end" fields. */
static const struct cs_col cs_cols[CS_TABLES][COLSTORE_MAX_COLS] = {
	[CS_KERNELS] = {
		{ CS_PID, NULL, 0, "pid" },
		{ CS_FIELD, "device", 0, "coalesce(device_id, 0)" },
		{ CS_FIELD, "stream", -1, "coalesce(stream_id, -1)" },
		{ CS_FIELD, "name", 0, "coalesce(name_id, 0)" },
		{ CS_FIELD, "correlation", 0, "coalesce(correlation_id, 0)" },
		{ CS_FIELD, "start", 0, "start_ns" },
		{ CS_SPAN, "end", 0, "coalesce(end_ns - start_ns, 0)" },
		{ CS_FIELD, "grid_x", INT64_MIN, "coalesce(grid_x, " NULL64 ")" },
		{ CS_FIELD, "grid_y", INT64_MIN, "coalesce(grid_y, " NULL64 ")" },
		{ CS_FIELD, "grid_z", INT64_MIN, "coalesce(grid_z, " NULL64 ")" },
		{ CS_FIELD, "block_x", INT64_MIN, "coalesce(block_x, " NULL64 ")" },
		{ CS_FIELD, "block_y", INT64_MIN, "coalesce(block_y, " NULL64 ")" },
		{ CS_FIELD, "block_z", INT64_MIN, "coalesce(block_z, " NULL64 ")" },
		{ CS_FIELD, "registers", INT64_MIN, "coalesce(registers, " NULL64 ")" },
		{ CS_FIELD, "static_smem", INT64_MIN, "coalesce(static_smem, " NULL64 ")" },
		{ CS_FIELD, "dynamic_smem", INT64_MIN, "coalesce(dynamic_smem, " NULL64 ")" },
		{ CS_FIELD, "shared_mem", INT64_MIN, "coalesce(shared_mem, static_smem + dynamic_smem, " NULL64 ")" },
	},
	[CS_CALLS] = {
		{ CS_PID, NULL, 0, "pid" },
		{ CS_FIELD, "thread", 0, "coalesce(thread_id, 0)" },
		{ CS_FIELD, "name", 0, "coalesce(name_id, 0)" },
		{ CS_FIELD, "correlation", 0, "coalesce(correlation_id, 0)" },
		{ CS_FIELD, "start", 0, "start_ns" },
		{ CS_SPAN, "end", 0, "coalesce(end_ns - start_ns, 0)" },
	},
};

const char *colstore_sql(enum colstore_table t, int k)
{
	return cs_cols[t][k].sql;
}

int colstore_fields(enum colstore_table t, int idx[COLSTORE_MAX_COLS])
{
	const struct colstore_spec *sp = &colstore_specs[t];
	int k;
	for (k = 0; k < sp->ncols; k++) {
		const struct cs_col *c = &cs_cols[t][k];
		idx[k] = c->how == CS_PID ? 0 : rec_field(sp->rec, c->field);
		if (idx[k] < 0)
			return -1;
	}
	/* CS_SPAN subtracts the start column's field. */
	return cs_cols[t][sp->start_col].how == CS_FIELD ? 0 : -1;
}

int colstore_append(enum colstore_table t, struct colstore_buf *b, const int64_t *v)
{
	memcpy(b->v[b->n++], v, (size_t)colstore_specs[t].ncols * sizeof(*v));
	return b->n == COLSTORE_ROWS;
}

int colstore_add(enum colstore_table t, const int idx[COLSTORE_MAX_COLS], struct colstore_buf *b, int64_t pid,
		 const struct value *vals)
{
	const struct colstore_spec *sp = &colstore_specs[t];
	const struct cs_col *c = cs_cols[t];
	int64_t *row = b->v[b->n++];
	int k;
	/* Every column as a field (the sink's hot path: one pass, no switch), then the two that are not. */
	for (k = 0; k < sp->ncols; k++) {
		const struct value *v = &vals[idx[k]];
		row[k] = v->null ? c[k].def : v->i;
	}
	row[0] = pid;
	for (k = 0; k < sp->ncols; k++)
		if (c[k].how == CS_SPAN) {
			const struct value *end = &vals[idx[k]], *start = &vals[idx[sp->start_col]];
			/* As SQLite computes end_ns - start_ns: wrapping, never undefined. */
			row[k] = end->null || start->null ? 0 : (int64_t)((uint64_t)end->i - (uint64_t)start->i);
		}
	return b->n == COLSTORE_ROWS;
}

/*
 * One token: a flag bit and a 64-bit value, as a LEB128 varint of the 65-bit number value * 2 + flag
 * (the first byte carries the flag and 6 bits, the next ones 7 bits each).
 */
static unsigned char *put_token(unsigned char *p, uint64_t v, int flag)
{
	unsigned b = (unsigned)(v & 0x3F) << 1 | (unsigned)flag;
	v >>= 6;
	while (v) {
		*p++ = (unsigned char)(b | 0x80);
		b = v & 0x7F;
		v >>= 7;
	}
	*p++ = (unsigned char)b;
	return p;
}

/* Read one token from p (before end) into *v and *flag; the byte after it, or NULL when malformed. */
static const unsigned char *get_token(const unsigned char *p, const unsigned char *end, uint64_t *v, int *flag)
{
	uint64_t x;
	int shift = 6;
	if (p == end)
		return NULL;
	*flag = *p & 1;
	x = (uint64_t)(*p & 0x7E) >> 1;
	while (*p++ & 0x80) {
		if (p == end || shift > 63)
			return NULL;
		x |= (uint64_t)(*p & 0x7F) << shift;
		shift += 7;
	}
	*v = x;
	return p;
}

static void put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

size_t colstore_encode(enum colstore_table t, const struct colstore_buf *b, unsigned char *out, int64_t *base_ns)
{
	const struct colstore_spec *sp = &colstore_specs[t];
	struct {
		uint64_t prev, delta, run;
		unsigned char *from, *p;
	} c[COLSTORE_MAX_COLS];
	unsigned char *p = out + 4 * sp->ncols;
	size_t i;
	int k;
	*base_ns = b->n ? b->v[0][sp->start_col] : 0;
	/* One pass over the rows, each column written into a region of its own... */
	for (k = 0; k < sp->ncols; k++) {
		c[k].prev = k == sp->start_col ? (uint64_t)*base_ns : 0;
		c[k].delta = c[k].run = 0;
		c[k].from = c[k].p = p + (size_t)k * 10 * COLSTORE_ROWS;
	}
	for (i = 0; i < b->n; i++)
		for (k = 0; k < sp->ncols; k++) {
			uint64_t v = (uint64_t)b->v[i][k], d = v - c[k].prev;	/* wrapping difference */
			c[k].prev = v;
			if (d == c[k].delta) {
				c[k].run++;
				continue;
			}
			if (c[k].run)
				c[k].p = put_token(c[k].p, c[k].run, 1);
			c[k].run = 0;
			c[k].delta = d;
			c[k].p = put_token(c[k].p, d << 1 ^ (uint64_t)-(int64_t)(d >> 63), 0);	/* zigzag */
		}
	/* ...then the regions closed up, one after another. */
	for (k = 0; k < sp->ncols; k++) {
		size_t len;
		if (c[k].run)
			c[k].p = put_token(c[k].p, c[k].run, 1);
		len = (size_t)(c[k].p - c[k].from);
		memmove(p, c[k].from, len);
		p += len;
		put_u32(out + 4 * k, (uint32_t)len);
	}
	return (size_t)(p - out);
}

int colstore_chunk_follows(int64_t want_first, int64_t first_row, int64_t rows)
{
	return first_row == want_first && rows > 0 && rows <= COLSTORE_ROWS;
}

int colstore_decode(const unsigned char *blob, size_t len, int ncols, int k, size_t n, int64_t prev,
		    int64_t *out)
{
	const unsigned char *p, *end;
	size_t at = 4 * (size_t)ncols, i = 0;
	uint64_t x = (uint64_t)prev, delta = 0, v;
	int j, run;
	if (len < at)
		return -1;
	for (j = 0; j < k; j++)
		at += get_u32(blob + 4 * j);
	if (at > len || get_u32(blob + 4 * k) > len - at)
		return -1;
	p = blob + at;
	end = p + get_u32(blob + 4 * k);
	while (i < n) {
		if (!(p = get_token(p, end, &v, &run)))
			return -1;
		if (!run) {
			delta = v >> 1 ^ (uint64_t)-(int64_t)(v & 1);
			v = 1;
		} else if (v == 0 || v > n - i) {
			return -1;
		}
		for (; v; v--) {
			x += delta;
			out[i++] = (int64_t)x;
		}
	}
	return p == end ? 0 : -1;
}

/* One table's pipeline: rows filling `fill`, and a sealed buffer the thread encodes. */
struct cs_lane {
	struct colstore_buf *fill, *sealed;
	int idx[COLSTORE_MAX_COLS];	/* record fields of the chunk columns */
	int state;			/* of sealed: 0 none, 1 waiting to be encoded, 2 encoded */
	struct colstore_chunk chunk;	/* state 2: the result (blob below) */
	unsigned char *blob;		/* COLSTORE_BLOB_MAX bytes, allocated on first use */
};

struct colstore_writer {
	struct cs_lane lane[CS_TABLES];
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* a state changed, or quit */
	pthread_t thread;
	int started, quit;
};

static void *encoder(void *arg)
{
	struct colstore_writer *w = arg;
	int t;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		for (t = 0; t < CS_TABLES && w->lane[t].state != 1; t++)
			;
		if (t == CS_TABLES) {
			if (w->quit)
				break;
			pthread_cond_wait(&w->cv, &w->mu);
			continue;
		}
		pthread_mutex_unlock(&w->mu);
		{
			struct cs_lane *l = &w->lane[t];
			l->chunk.len = colstore_encode(t, l->sealed, l->blob, &l->chunk.base_ns);
			l->chunk.rows = l->sealed->n;
			l->chunk.blob = l->blob;
		}
		pthread_mutex_lock(&w->mu);
		w->lane[t].state = 2;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

struct colstore_writer *colstore_writer_new(void)
{
	struct colstore_writer *w = xcalloc(1, sizeof(*w));
	int t;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	for (t = 0; t < CS_TABLES; t++) {
		struct cs_lane *l = &w->lane[t];
		if (colstore_fields(t, l->idx)) {
			error("colstore: table '%s' names a field the records lack", colstore_specs[t].table);
			colstore_writer_free(w);
			return NULL;
		}
		l->fill = xmalloc(sizeof(*l->fill));
		l->sealed = xmalloc(sizeof(*l->sealed));
		l->fill->n = l->sealed->n = 0;
	}
	return w;
}

void colstore_writer_free(struct colstore_writer *w)
{
	int t;
	if (!w)
		return;
	if (w->started) {
		pthread_mutex_lock(&w->mu);
		w->quit = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thread, NULL);
	}
	for (t = 0; t < CS_TABLES; t++) {
		free(w->lane[t].fill);
		free(w->lane[t].sealed);
		free(w->lane[t].blob);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w);
}

int colstore_writer_add(struct colstore_writer *w, enum colstore_table t, int64_t pid, const struct value *vals)
{
	struct cs_lane *l = &w->lane[t];
	return colstore_add(t, l->idx, l->fill, pid, vals);
}

int colstore_writer_append(struct colstore_writer *w, enum colstore_table t, const int64_t *v)
{
	return colstore_append(t, w->lane[t].fill, v);
}

size_t colstore_writer_rows(const struct colstore_writer *w, enum colstore_table t)
{
	return w->lane[t].fill->n;
}

void colstore_writer_seal(struct colstore_writer *w, enum colstore_table t, const int64_t tag[3])
{
	struct cs_lane *l = &w->lane[t];
	struct colstore_buf *b;
	if (!l->blob)
		l->blob = xmalloc(COLSTORE_BLOB_MAX);
	pthread_mutex_lock(&w->mu);
	b = l->sealed;		/* state 0: nobody else touches it */
	l->sealed = l->fill;
	l->fill = b;
	l->fill->n = 0;
	memcpy(l->chunk.tag, tag, sizeof(l->chunk.tag));
	l->state = 1;
	if (!w->started && !pthread_create(&w->thread, NULL, encoder, w))
		w->started = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	if (!w->started) {
		/* No thread to be had: encode here. */
		l->chunk.len = colstore_encode(t, l->sealed, l->blob, &l->chunk.base_ns);
		l->chunk.rows = l->sealed->n;
		l->chunk.blob = l->blob;
		l->state = 2;
	}
}

int colstore_writer_done(struct colstore_writer *w, enum colstore_table t, struct colstore_chunk *c)
{
	struct cs_lane *l = &w->lane[t];
	int had;
	pthread_mutex_lock(&w->mu);
	while (l->state == 1)
		pthread_cond_wait(&w->cv, &w->mu);
	had = l->state == 2;
	if (had)
		*c = l->chunk;
	l->state = 0;
	pthread_mutex_unlock(&w->mu);
	return had;
}

void colstore_writer_shift(struct colstore_writer *w, enum colstore_table t, int64_t offset_ns)
{
	struct colstore_buf *b = w->lane[t].fill;
	int k = colstore_specs[t].start_col;
	size_t i;
	for (i = 0; i < b->n; i++)
		b->v[i][k] = (int64_t)((uint64_t)b->v[i][k] + (uint64_t)offset_ns);
}

void colstore_writer_discard(struct colstore_writer *w)
{
	struct colstore_chunk c;
	int t;
	for (t = 0; t < CS_TABLES; t++) {
		colstore_writer_done(w, t, &c);
		w->lane[t].fill->n = 0;
	}
}
