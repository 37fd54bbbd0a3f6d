#include "records.h"

#include <string.h>

const struct rec_spec rec_specs[R_COUNT] = {
	[R_KERNEL] = { "kernel", "kernels", 24, {
		{ "start", "start_ns", F_TIME }, { "end", "end_ns", F_TIME },
		{ "device", "device_id", F_INT }, { "context", "context_id", F_INT },
		{ "stream", "stream_id", F_INT }, { "correlation", "correlation_id", F_INT },
		{ "name", "name_id", F_STR, 1 }, { "mangled", "mangled_id", F_STR },
		{ "grid_x", "grid_x", F_INT }, { "grid_y", "grid_y", F_INT }, { "grid_z", "grid_z", F_INT },
		{ "block_x", "block_x", F_INT }, { "block_y", "block_y", F_INT }, { "block_z", "block_z", F_INT },
		{ "cluster_x", "cluster_x", F_INT }, { "cluster_y", "cluster_y", F_INT },
		{ "cluster_z", "cluster_z", F_INT }, { "registers", "registers", F_INT },
		{ "static_smem", "static_smem", F_INT }, { "dynamic_smem", "dynamic_smem", F_INT },
		{ "local_mem", "local_mem", F_INT }, { "graph_id", "graph_id", F_INT },
		{ "graph_node", "graph_node_id", F_INT }, { "shared_mem", "shared_mem", F_OPTN } } },
	[R_MEMCPY] = { "memcpy", "memcpys", 13, {
		{ "start", "start_ns", F_TIME }, { "end", "end_ns", F_TIME },
		{ "device", "device_id", F_INT }, { "context", "context_id", F_INT },
		{ "stream", "stream_id", F_INT }, { "correlation", "correlation_id", F_INT },
		{ "kind", "kind", F_INT }, { "src_kind", "src_kind", F_INT }, { "dst_kind", "dst_kind", F_INT },
		{ "bytes", "bytes", F_INT }, { "src_device", "src_device", F_OPT },
		{ "dst_device", "dst_device", F_OPT }, { "async", "async", F_INT } } },
	[R_MEMSET] = { "memset", "memsets", 9, {
		{ "start", "start_ns", F_TIME }, { "end", "end_ns", F_TIME },
		{ "device", "device_id", F_INT }, { "context", "context_id", F_INT },
		{ "stream", "stream_id", F_INT }, { "correlation", "correlation_id", F_INT },
		{ "bytes", "bytes", F_INT }, { "value", "value", F_INT }, { "mem_kind", "mem_kind", F_INT } } },
	[R_SYNC] = { "sync", "syncs", 9, {
		{ "start", "start_ns", F_TIME }, { "end", "end_ns", F_TIME },
		{ "device", "device_id", F_OPT }, { "context", "context_id", F_INT },
		{ "stream", "stream_id", F_OPT }, { "correlation", "correlation_id", F_INT },
		{ "kind", "kind", F_INT }, { "event", "event_id", F_INT }, { "thread", "thread_id", F_INT } } },
	[R_MEMORY] = { "memory", "memory_events", 14, {
		{ "ts", "ts_ns", F_TIME }, { "device", "device_id", F_OPT },
		{ "context", "context_id", F_INT }, { "stream", "stream_id", F_OPT },
		{ "correlation", "correlation_id", F_INT }, { "op", "op", F_INT },
		{ "mem_kind", "mem_kind", F_INT }, { "address", "address", F_INT },
		{ "bytes", "bytes", F_INT }, { "pc", "pc", F_INT }, { "site", "site_id", F_STR },
		{ "thread", "thread_id", F_INT }, { "async", "async", F_INT },
		{ "total_allocated", "total_allocated", F_OPTN } } },
	[R_API] = { "api", "api_calls", 8, {
		{ "start", "start_ns", F_TIME }, { "end", "end_ns", F_TIME },
		{ "thread", "thread_id", F_INT }, { "correlation", "correlation_id", F_INT },
		{ "name", "name_id", F_STR }, { "cbid", "cbid", F_INT }, { "domain", "domain", F_INT },
		{ "external", "external_id", F_OPTN } } },
	[R_RANGE] = { "range", "ranges", 8, {
		{ "start", "start_ns", F_TIME }, { "end", "end_ns", F_TIMEN },
		{ "thread", "thread_id", F_INT }, { "name", "name_id", F_STR, 1 },
		{ "domain", "domain_id", F_STR }, { "kind", "kind", F_INT },
		{ "depth", "depth", F_INTN }, { "id", "range_id", F_INT } } },
	[R_MARKER] = { "marker", "markers", 4, {
		{ "ts", "ts_ns", F_TIME }, { "thread", "thread_id", F_INT },
		{ "name", "name_id", F_STR, 1 }, { "domain", "domain_id", F_STR } } },
	[R_PC_SAMPLE] = { "pc_sample", "pc_samples", 10, {
		{ "ts", "ts_ns", F_TIME }, { "device", "device_id", F_INT },
		{ "function", "function_id", F_STR }, { "cubin_crc", "cubin_crc", F_INT },
		{ "pc_offset", "pc_offset", F_INT }, { "reason", "stall_reason_id", F_INT },
		{ "samples", "samples", F_INT }, { "correlation", "correlation_id", F_INT },
		{ "file", "file_id", F_STR }, { "line", "line", F_INT } } },
	[R_STALL_REASON] = { "stall_reason", "stall_reasons", 3, {
		{ "device", "device_id", F_INT }, { "id", "id", F_INT }, { "name", "name", F_STRTEXT, 1 } } },
	[R_DEVICE] = { "device", "devices", 12, {
		{ "id", "id", F_INT }, { "name", "name", F_TEXT }, { "uuid", "uuid", F_TEXT },
		{ "cc_major", "cc_major", F_INT }, { "cc_minor", "cc_minor", F_INT }, { "sms", "sms", F_INT },
		{ "memory_bytes", "memory_bytes", F_INT }, { "core_clock_khz", "core_clock_khz", F_INT },
		{ "mem_bandwidth_kbs", "mem_bandwidth_kbs", F_INT },
		{ "max_threads_per_sm", "max_threads_per_sm", F_INT },
		{ "max_regs_per_sm", "max_regs_per_sm", F_INT },
		{ "max_smem_per_sm", "max_smem_per_sm", F_INT } } },
	[R_DEVICE_METRIC] = { "device_metric", "device_metrics", 10, {
		{ "ts", "ts_ns", F_TIME }, { "device", "device_id", F_INT },
		{ "gpu_util", "gpu_util", F_INTN }, { "mem_util", "mem_util", F_INTN },
		{ "mem_used", "mem_used", F_INTN }, { "mem_total", "mem_total", F_INTN },
		{ "temp_c", "temp_c", F_INTN }, { "power_mw", "power_mw", F_INTN },
		{ "sm_clock_mhz", "sm_clock_mhz", F_INTN }, { "energy_mj", "energy_mj", F_INTN } } },
	[R_HOST_METRIC] = { "host_metric", "host_metrics", 9, {
		{ "ts", "ts_ns", F_TIME }, { "cpu_pct", "cpu_pct", F_NUM },
		{ "rss_bytes", "rss_bytes", F_INTN }, { "sys_mem_used", "sys_mem_used", F_INTN },
		{ "sys_mem_total", "sys_mem_total", F_INTN },
		{ "disk_read_bytes", "disk_read_bytes", F_OPTN }, { "disk_write_bytes", "disk_write_bytes", F_OPTN },
		{ "net_rx_bytes", "net_rx_bytes", F_OPTN }, { "net_tx_bytes", "net_tx_bytes", F_OPTN } } },
	[R_OVERHEAD] = { "overhead", "overheads", 9, {
		{ "start", "start_ns", F_TIMEN }, { "end", "end_ns", F_TIMEN },
		{ "kind", "kind", F_INT }, { "object_kind", "object_kind", F_INT },
		{ "thread", "thread_id", F_OPT }, { "device", "device_id", F_OPT },
		{ "context", "context_id", F_OPT }, { "stream", "stream_id", F_OPT },
		{ "correlation", "correlation_id", F_INT } } },
	[R_PC_TOTAL] = { "pc_total", "pc_totals", 5, {
		{ "ts", "ts_ns", F_TIME }, { "device", "device_id", F_INT },
		{ "total_samples", "total_samples", F_INT }, { "non_user_samples", "non_user_samples", F_INT },
		{ "dropped_samples", "dropped_samples", F_INT } } },
	[R_OP] = { "op", "flop_ops", 7, {
		{ "start", "start_ns", F_TIME }, { "end", "end_ns", F_TIME },
		{ "thread", "thread_id", F_INT }, { "name", "name_id", F_STR, 1 },
		{ "flops", "flops", F_INT }, { "dtype", "dtype_id", F_STR },
		{ "external", "external_id", F_INT } } },
	[R_ALLOC_FAIL] = { "alloc_fail", "alloc_failures", 13, {
		{ "ts", "ts_ns", F_TIME }, { "device", "device_id", F_OPT },
		{ "thread", "thread_id", F_INT }, { "correlation", "correlation_id", F_INT },
		{ "bytes", "bytes", F_INT }, { "call", "call_id", F_STR },
		{ "cbid", "cbid", F_INT }, { "domain", "domain", F_INT },
		{ "result", "result", F_OPT }, { "mem_kind", "mem_kind", F_INT },
		{ "total_allocated", "total_allocated", F_OPTN },
		{ "total_reserved", "total_reserved", F_OPTN }, { "path", "path_id", F_STR } } },
	[R_TORCH_OP] = { "torch_op", "ops", 13, {
		{ "thread", "thread_id", F_INTN }, { "start", "start_ns", F_TIME }, { "end", "end_ns", F_TIME },
		{ "name", "name_id", F_STR, 1 }, { "external", "external_id", F_INTN }, { "seq", "seq", F_INTN },
		{ "fwd_tid", "fwd_tid", F_INTN }, { "record_function", "record_function_id", F_INTN },
		{ "input_dims", "input_dims", F_TEXT }, { "input_types", "input_types", F_TEXT },
		{ "input_strides", "input_strides", F_TEXT }, { "concrete_inputs", "concrete_inputs", F_TEXT },
		{ "source", "source", F_INT } }, 1 },
	[R_OP_LINK] = { "op_link", "op_links", 5, {
		{ "flow", "flow_id", F_INT }, { "fwd_thread", "fwd_thread_id", F_INTN }, { "fwd", "fwd_ns", F_TIME },
		{ "bwd_thread", "bwd_thread_id", F_INTN }, { "bwd", "bwd_ns", F_TIME } }, 1 },
};

const char *const trace_device_metric_keys[] = { "GPU utilization %", "Memory utilization %", "Memory used bytes",
						 "Memory total bytes", "Temperature C", "Power mW", "SM clock MHz",
						 "Energy mJ", NULL };
const char *const trace_host_metric_keys[] = { "CPU % of a core", "RSS bytes", "System memory used bytes",
					       "System memory total bytes", "Disk read bytes", "Disk written bytes",
					       "Network received bytes", "Network sent bytes", NULL };

int rec_by_wire(const char *wire)
{
	int t;
	for (t = 0; t < R_COUNT; t++)
		if (!rec_specs[t].derived && !strcmp(rec_specs[t].wire, wire))
			return t;
	return -1;
}

int rec_field(enum rec_type t, const char *wire)
{
	int i;
	for (i = 0; i < rec_specs[t].nfields; i++)
		if (!strcmp(rec_specs[t].fields[i].wire, wire))
			return i;
	return -1;
}

int rec_indices(const struct rec_index *tab, size_t n, void *base)
{
	size_t i;
	int rc = 0;
	for (i = 0; i < n; i++) {
		int f = rec_field(tab[i].type, tab[i].field);
		*(int *)((char *)base + tab[i].off) = f;
		if (f < 0)
			rc = -1;
	}
	return rc;
}
