/* libFuzzer target: the wire-format (NDJSON) reader.  make fuzz FUZZ_SECONDS=60 */
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_reader(&ndjson_reader, data, size);
}
