/* libFuzzer target: column chunk blobs (lib/colstore.h) as a damaged database could hold them. */
#include "colstore.h"

#include <stdint.h>
#include <stdlib.h>

/* Byte 0 picks the table, bytes 1-2 the row count; the rest is the blob. Every column decodes or fails. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int64_t out[COLSTORE_ROWS];
	enum colstore_table t;
	size_t n;
	int k;
	if (size < 3)
		return 0;
	t = data[0] % CS_TABLES;
	n = ((size_t)data[1] | (size_t)data[2] << 8) % (COLSTORE_ROWS + 1);
	for (k = 0; k < colstore_specs[t].ncols; k++)
		colstore_decode(data + 3, size - 3, colstore_specs[t].ncols, k, n,
				k == colstore_specs[t].start_col ? 7 : 0, out);
	return 0;
}
