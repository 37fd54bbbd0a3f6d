/*
 * sampler: host and GPU metrics sampled from outside CUDA: CPU use and resident memory of a process
 * tree and system memory (from /proc), and NVML device metrics (libnvidia-ml.so.1 loaded with dlopen;
 * without it there are simply no device metrics). Pull-based: the caller asks for a sample at its own
 * interval and writes it to its wire file with sampler_write_*, so the sampler owns no thread and no output.
 *
 * Ownership: sampler_open allocates, sampler_close frees. Values a device does not report are marked
 * null (the `have_*` flags), never invented.
 */
#ifndef GPUPROF_SAMPLER_H
#define GPUPROF_SAMPLER_H

#include <stdint.h>
#include <sys/types.h>

struct host_sample {
	int64_t ts_ns;			/* CLOCK_REALTIME */
	int have_cpu;
	double cpu_pct;			/* since the previous sample, percent of one core; the first sample has none */
	int64_t rss_bytes;		/* resident memory of the process tree */
	int64_t sys_mem_used, sys_mem_total;
	int have_disk, have_net;	/* the counters below were read */
	int64_t disk_read_bytes, disk_write_bytes;	/* the system's whole disks, since boot */
	int64_t net_rx_bytes, net_tx_bytes;	/* the system's interfaces but lo, since boot */
};

struct gpu_sample {
	int64_t ts_ns;
	int device;			/* NVML index (the CUDA ordinal when CUDA_DEVICE_ORDER=PCI_BUS_ID) */
	int have_util, have_mem, have_temp, have_power, have_clock, have_energy;
	int64_t gpu_util, mem_util;	/* percent */
	int64_t mem_used, mem_total;	/* bytes */
	int64_t temp_c, power_mw, sm_clock_mhz, energy_mj;
};

struct sampler;
struct wire;

/*
 * Start sampling the process tree rooted at root (root itself and all its descendants); with
 * tree = 0 only root. NVML is tried once here. Never fails for lack of NVML.
 */
/* NULL when out of memory (it never aborts: libgpuprof.so runs it inside other programs). */
struct sampler *sampler_open(pid_t root, int tree);
/* One host sample; 0, or -1 when /proc cannot be read (the root is gone). */
int sampler_host(struct sampler *s, struct host_sample *out);
/* Number of NVML devices (0 without NVML). */
int sampler_gpus(const struct sampler *s);
/* One sample of NVML device i; 0 or -1. */
int sampler_gpu(struct sampler *s, int i, struct gpu_sample *out);
/*
 * Add a sample to w (wire.h) as one host_metric or device_metric record, what the sample lacks as null.
 * 0, or -1 on a write error (see wire_add) or when records.c lacks a field the sampler writes.
 */
int sampler_write_host(const struct sampler *s, struct wire *w, const struct host_sample *h);
int sampler_write_gpu(const struct sampler *s, struct wire *w, const struct gpu_sample *g);
/*
 * The system's disk I/O from the text of /proc/diskstats: bytes read and written (sectors, fields 6 and
 * 10, x 512) summed over whole disks. A partition (a name that is another listed device's name plus
 * digits, or plus "p" and digits: sda1, nvme0n1p2, mmcblk0p1) is its disk's I/O again, and device-mapper,
 * md RAID, loop, ram and zram devices are I/O of other devices (or of none): all are left out. 0, or -1
 * when no line parses.
 */
int sampler_parse_diskstats(const char *text, int64_t *read_bytes, int64_t *write_bytes);
/*
 * The system's network I/O from the text of /proc/net/dev: bytes received and sent (the first receive and
 * first transmit column) summed over every interface but lo. 0, or -1 when no interface line parses.
 */
int sampler_parse_netdev(const char *text, int64_t *rx_bytes, int64_t *tx_bytes);
/* Why NVML is not available ("libnvidia-ml.so.1 not found", ...), or NULL when it is. */
const char *sampler_gpu_error(const struct sampler *s);
void sampler_close(struct sampler *s);

#endif
