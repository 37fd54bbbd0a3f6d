/* libFuzzer target: the Kineto / Chrome trace JSON reader.  make fuzz FUZZ_SECONDS=60 */
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_reader(&kineto_reader, data, size);
}
