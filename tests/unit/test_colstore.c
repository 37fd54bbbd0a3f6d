/* Unit tests for lib/colstore: chunk columns round-trip, NULL defaults, and damaged blobs are refused. */
#include "check.h"
#include "colstore.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>

static struct colstore_buf buf;
static unsigned char blob[COLSTORE_BLOB_MAX];
static int64_t out[COLSTORE_ROWS];

/* Encode buf as table t's chunk, decode every column back, and compare with what went in. */
static void round_trip(enum colstore_table t)
{
	const struct colstore_spec *sp = &colstore_specs[t];
	int64_t base;
	size_t len = colstore_encode(t, &buf, blob, &base), i;
	int k, same;
	CHECK(len <= COLSTORE_BLOB_MAX);
	CHECK_EQ_I64(base, buf.n ? buf.v[0][sp->start_col] : 0);
	for (k = 0; k < sp->ncols; k++) {
		CHECK(colstore_decode(blob, len, sp->ncols, k, buf.n, k == sp->start_col ? base : 0, out) == 0);
		for (i = 0, same = 1; i < buf.n; i++)
			same &= out[i] == buf.v[i][k];
		CHECK(same);
	}
}

int main(void)
{
	struct value vals[REC_MAX_FIELDS];
	int idx[COLSTORE_MAX_COLS], k, f;
	uint64_t seed = 99;
	int64_t base;
	size_t len, i;

	util_init("test_colstore");
	/* The extremes: every difference wraps, zigzag covers both signs. */
	buf.n = 6;
	for (k = 0; k < CSK_COUNT; k++) {
		int64_t v[6] = { 0, INT64_MAX, INT64_MIN, -1, 1, INT64_MIN + 1 };
		for (i = 0; i < 6; i++)
			buf.v[i][k] = v[(i + (size_t)k) % 6];
	}
	round_trip(CS_KERNELS);
	round_trip(CS_CALLS);

	/* A full chunk of random walks and random values. */
	buf.n = COLSTORE_ROWS;
	for (k = 0; k < CSK_COUNT; k++)
		for (i = 0; i < COLSTORE_ROWS; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			buf.v[i][k] = k % 2 ? (int64_t)seed : (i ? buf.v[i - 1][k] : 0) + (int64_t)(seed >> 50) - 4096;
		}
	round_trip(CS_KERNELS);

	/* Constant columns and counters are runs: a few bytes a column for a full chunk. */
	for (k = 0; k < CSK_COUNT; k++)
		for (i = 0; i < COLSTORE_ROWS; i++)
			buf.v[i][k] = k == CSK_CORR ? 1000 + (int64_t)i : k == CSK_START ? INT64_MAX - 7 : 42 * k;
	round_trip(CS_KERNELS);
	len = colstore_encode(CS_KERNELS, &buf, blob, &base);
	CHECK(len < 4 * CSK_COUNT + 8 * CSK_COUNT);
	/* Runs end where the difference changes, and a run of one is still a run. */
	for (i = 0; i < COLSTORE_ROWS; i++)
		buf.v[i][CSK_NAME] = (int64_t)(i / 3 % 2) - (int64_t)(i % 5 == 0) * 7;
	round_trip(CS_KERNELS);

	/* colstore_add: record fields in records.c order, NULLs as documented in colstore.h. */
	CHECK(colstore_fields(CS_KERNELS, idx) == 0);
	memset(vals, 0, sizeof(vals));
	for (f = 0; f < rec_specs[R_KERNEL].nfields; f++) {
		vals[f].i = 100 + f;
		vals[f].null = 1;
	}
	vals[rec_field(R_KERNEL, "start")] = (struct value){ 0, 5000, 0, NULL };
	vals[rec_field(R_KERNEL, "end")] = (struct value){ 0, 5750, 0, NULL };
	vals[rec_field(R_KERNEL, "device")] = (struct value){ 0, 3, 0, NULL };
	vals[rec_field(R_KERNEL, "name")] = (struct value){ 0, 17, 0, NULL };
	vals[rec_field(R_KERNEL, "block_x")] = (struct value){ 0, 256, 0, NULL };
	buf.n = 0;
	CHECK(colstore_add(CS_KERNELS, idx, &buf, 4242, vals) == 0);
	CHECK_EQ_I64(buf.n, 1);
	CHECK_EQ_I64(buf.v[0][CSK_PID], 4242);
	CHECK_EQ_I64(buf.v[0][CSK_DEV], 3);
	CHECK_EQ_I64(buf.v[0][CSK_STREAM], -1);		/* coalesce(stream_id, -1) */
	CHECK_EQ_I64(buf.v[0][CSK_NAME], 17);
	CHECK_EQ_I64(buf.v[0][CSK_CORR], 0);		/* coalesce(correlation_id, 0) */
	CHECK_EQ_I64(buf.v[0][CSK_START], 5000);
	CHECK_EQ_I64(buf.v[0][CSK_DUR], 750);
	CHECK_EQ_I64(buf.v[0][CSK_BLOCK_X], 256);
	CHECK(buf.v[0][CSK_GRID_X] == INT64_MIN && buf.v[0][CSK_DSMEM] == INT64_MIN);
	vals[rec_field(R_KERNEL, "end")].null = 1;
	colstore_add(CS_KERNELS, idx, &buf, 4242, vals);
	CHECK_EQ_I64(buf.v[1][CSK_DUR], 0);		/* NULL end: coalesce(end_ns - start_ns, 0) */
	/* The last row of a chunk says so. */
	buf.n = COLSTORE_ROWS - 1;
	CHECK(colstore_add(CS_KERNELS, idx, &buf, 1, vals) == 1);

	/* Damaged blobs are refused, never read past. */
	buf.n = 1000;
	len = colstore_encode(CS_CALLS, &buf, blob, &base);
	CHECK(colstore_decode(blob, len - 1, CSC_COUNT, CSC_DUR, 1000, 0, out) == -1);	/* truncated */
	CHECK(colstore_decode(blob, 3, CSC_COUNT, 0, 1000, 0, out) == -1);		/* no header */
	CHECK(colstore_decode(blob, len, CSC_COUNT, CSC_DUR, 1001, 0, out) == -1);	/* too few values */
	CHECK(colstore_decode(blob, len, CSC_COUNT, CSC_DUR, 999, 0, out) == -1);	/* values left over */
	blob[0] = 0xFF, blob[1] = 0xFF, blob[2] = 0xFF, blob[3] = 0x7F;
	CHECK(colstore_decode(blob, len, CSC_COUNT, 1, 1000, 0, out) == -1);		/* lengths past the end */
	/* Endless varints, on a fresh blob whose header is whole: every column must stop at its end. */
	len = colstore_encode(CS_CALLS, &buf, blob, &base);
	CHECK(colstore_decode(blob, len, CSC_COUNT, 0, 1000, 0, out) == 0);
	CHECK(colstore_decode(blob, len, CSC_COUNT, CSC_DUR, 1000, 0, out) == 0);
	for (i = 4 * CSC_COUNT; i < len; i++)
		blob[i] = 0x80;
	CHECK(colstore_decode(blob, len, CSC_COUNT, 0, 1000, 0, out) == -1);
	CHECK(colstore_decode(blob, len, CSC_COUNT, CSC_DUR, 1000, 0, out) == -1);
	return check_done("test_colstore");
}
