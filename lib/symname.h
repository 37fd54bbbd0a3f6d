/*
 * symname: names without their noise, in plain C (no SQLite), shared by the collector (collector/activity.c)
 * and the SQL functions short_name and fold_name (analyze/ext/sqlext.c).
 *
 * Both write into a caller's struct buf, replacing its contents.
 */
#ifndef GPUPROF_SYMNAME_H
#define GPUPROF_SYMNAME_H

#include "util.h"

/*
 * Base name of a C++ function signature, as --short shows it (Nsight style: no return type, template
 * arguments or parameters): "void at::native::vectorized_elementwise_kernel<4, ...>(int, ...)" gives
 * "vectorized_elementwise_kernel".
 */
void name_short(const char *name, struct buf *out);
/*
 * A range name without the per-call counters PyTorch's emit_nvtx adds (", seq = 45328", ", op_id = 990724"),
 * which make every call of an op a name of its own.
 */
void range_name_clean(const char *name, struct buf *out);

#endif
