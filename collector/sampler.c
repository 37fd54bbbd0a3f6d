/*
 * sampler: host metrics from /proc and device metrics from NVML (see sampler.h).
 *
 * CPU use of a process tree. Each sample lists /proc, reads /proc/[pid]/stat and takes the tree: the
 * root, every process tracked at the previous sample that is still alive (same pid and start time, so a
 * daemon that left the tree by double-forking is still counted), and their descendants by ppid. A
 * process outside the tree can never join it, so between full scans (one a second) only the stat of
 * new pids and of the tree is read: with 70 processes on the machine that cut the launcher's CPU time
 * at a 10 ms interval from 7.6 % to 2 % of a core.
 * The tree's time is the sum of utime+stime+cutime+cstime over its live members: a child reaped by a
 * parent inside the tree moves its time into the parent's cutime/cstime, so the sum only grows. A
 * member that vanished without a reaper inside the tree (orphaned to init) takes its time with it; its
 * last known time is added back so it contributes nothing rather than a negative amount.
 *
 * Orphans: a process whose parent exits between two samples is reparented before it was ever seen. When
 * the caller is a child subreaper (prctl PR_SET_CHILD_SUBREAPER, as gpuprof-collect makes itself), such
 * orphans are reparented to the caller instead, and its children other than root count as the tree's.
 *
 * The system's disk and network I/O: the counters of /proc/diskstats (whole disks) and /proc/net/dev (all
 * interfaces but lo) at each sample, since boot; rates are the analysis's (differences between samples).
 *
 * struct host_sample has no flag for system memory: when /proc/meminfo cannot be read, sys_mem_used
 * and sys_mem_total are -1 (unknown). sampler_host fills ts and system memory even when it returns -1.
 */
#include "sampler.h"
#include "records.h"
#include "util.h"
#include "wire.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define MAX_GPUS 64
#define FULL_SCAN_NS 1000000000LL	/* read every process's stat at least this often */

/* NVML, declared here because there is no nvml.h on build machines without the driver. */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
	unsigned int gpu, memory;	/* percent of the last sample period */
} nvmlUtilization_t;
typedef struct {
	unsigned long long total, free, used;	/* bytes */
} nvmlMemory_t;
typedef struct {
	unsigned int version;		/* sizeof | 2 << 24 */
	unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
typedef struct {
	unsigned int version;		/* sizeof | 1 << 24 */
	int sensorType;			/* 0: the GPU die */
	int temperature;		/* degrees C */
} nvmlTemperature_v1_t;

#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_CLOCK_SM 1
#define NVML_TEMPERATURE_GPU 0

struct nvml {
	void *dl;
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	const char *(*error_string)(nvmlReturn_t);
	nvmlReturn_t (*count)(unsigned int *);
	nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*util)(nvmlDevice_t, nvmlUtilization_t *);
	nvmlReturn_t (*mem)(nvmlDevice_t, nvmlMemory_t *);
	nvmlReturn_t (*mem_v2)(nvmlDevice_t, nvmlMemory_v2_t *);
	nvmlReturn_t (*temp_v)(nvmlDevice_t, nvmlTemperature_v1_t *);
	nvmlReturn_t (*temp)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*power)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long *);
};

/* Metrics a device answered NOT_SUPPORTED for once: never asked again. */
enum { NO_UTIL = 1, NO_MEM_V2 = 2, NO_MEM = 4, NO_TEMP_V = 8, NO_TEMP = 16, NO_POWER = 32,
       NO_CLOCK = 64, NO_ENERGY = 128 };

struct gpu {
	nvmlDevice_t dev;
	unsigned int index;	/* NVML index */
	unsigned unsupported;	/* NO_* bits */
};

struct proc {
	pid_t pid, ppid;
	unsigned long long start;	/* start time in clock ticks since boot: tells pid reuse apart */
	unsigned long long ticks;	/* utime + stime + cutime + cstime */
	int tracked;
};

/* Field indexes of the records samples are written as (sampler_write_*). */
struct metric_ix {
	int h_ts, h_cpu, h_rss, h_used, h_total, h_disk_rd, h_disk_wr, h_net_rx, h_net_tx;
	int g_ts, g_device, g_gpu_util, g_mem_util, g_mem_used, g_mem_total, g_temp, g_power, g_clock, g_energy;
};

#define I(m, t, f) { offsetof(struct metric_ix, m), t, f }
static const struct rec_index metric_table[] = {
	I(h_ts, R_HOST_METRIC, "ts"), I(h_cpu, R_HOST_METRIC, "cpu_pct"), I(h_rss, R_HOST_METRIC, "rss_bytes"),
	I(h_used, R_HOST_METRIC, "sys_mem_used"), I(h_total, R_HOST_METRIC, "sys_mem_total"),
	I(h_disk_rd, R_HOST_METRIC, "disk_read_bytes"), I(h_disk_wr, R_HOST_METRIC, "disk_write_bytes"),
	I(h_net_rx, R_HOST_METRIC, "net_rx_bytes"), I(h_net_tx, R_HOST_METRIC, "net_tx_bytes"),
	I(g_ts, R_DEVICE_METRIC, "ts"), I(g_device, R_DEVICE_METRIC, "device"),
	I(g_gpu_util, R_DEVICE_METRIC, "gpu_util"), I(g_mem_util, R_DEVICE_METRIC, "mem_util"),
	I(g_mem_used, R_DEVICE_METRIC, "mem_used"), I(g_mem_total, R_DEVICE_METRIC, "mem_total"),
	I(g_temp, R_DEVICE_METRIC, "temp_c"), I(g_power, R_DEVICE_METRIC, "power_mw"),
	I(g_clock, R_DEVICE_METRIC, "sm_clock_mhz"), I(g_energy, R_DEVICE_METRIC, "energy_mj"),
};
#undef I

struct sampler {
	pid_t root;
	int tree;
	long page_size, clk_tck;
	/* The tree at the previous sample, sorted by pid. */
	struct proc *prev;
	size_t nprev, aprev;
	/* This sample's scan of /proc, sorted by pid. */
	struct proc *cur;
	size_t ncur, acur;
	/* Pids known to be outside the tree, sorted; and those skipped by this sample's scan. */
	pid_t *outside, *skipped;
	size_t nout, aout, nskip, askip;
	int64_t last_full;		/* CLOCK_MONOTONIC ns of the last scan that read every process */
	unsigned long long prev_ticks;	/* tree ticks at the previous sample */
	unsigned long long cum_ticks;	/* CPU ticks the tree used since the first sample, never falling */
	struct mark {
		int64_t mono;		/* CLOCK_MONOTONIC ns; 0: none yet */
		unsigned long long cum;	/* cum_ticks then */
	} marks[2];			/* the previous sample and the one before */
	int subreaper;			/* the caller adopts the tree's orphans (PR_SET_CHILD_SUBREAPER) */
	struct nvml nvml;
	int nvml_up;			/* nvmlInit succeeded, nvmlShutdown owed */
	struct gpu *gpus;
	int ngpus;
	char gpu_error[256];		/* why there are no GPUs, "" when NVML works */
	struct metric_ix ix;		/* resolved by sampler_open */
	int ix_bad;			/* a field of metric_table is not in records.c */
	char *io_text;			/* read_sys_io's buffer, SYS_IO_BYTES */
};

/* Read a small /proc file whole into buf (NUL-terminated); its length, or -1. */
static ssize_t read_small(int dirfd, const char *path, char *buf, size_t size)
{
	ssize_t n = 0, len = 0;
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((size_t)len < size - 1) {
		n = read(fd, buf + len, size - 1 - (size_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return n < 0 ? -1 : len;
}

/*
 * Parse /proc/PID/stat text into p: ppid (field 4), utime..cstime (14..17) and starttime (22).
 * The command name (field 2) may hold spaces and parentheses: fields are counted from the last ')'.
 * Returns 0, or -1 when the text is not a stat line.
 */
static int parse_stat(const char *text, struct proc *p)
{
	const char *s = strrchr(text, ')');
	unsigned long long v[20];	/* fields 4..23 */
	int field;
	char *end;
	if (!s || s[1] != ' ' || !s[2])
		return -1;
	s += 3;				/* past ") " and the state letter */
	for (field = 0; field < 20; field++) {
		errno = 0;
		v[field] = strtoull(s, &end, 10);
		if (end == s || errno)
			return -1;
		s = end;		/* negative fields (priority, nice) wrap around: unused */
	}
	p->ppid = (pid_t)v[0];
	p->ticks = v[10] + v[11] + v[12] + v[13];
	p->start = v[18];
	return 0;
}

/* The entry for pid in a pid-sorted array, or NULL. */
static struct proc *find_proc(struct proc *a, size_t n, pid_t pid)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid].pid == pid)
			return &a[mid];
		if (a[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = ((const struct proc *)a)->pid, y = ((const struct proc *)b)->pid;
	return (x > y) - (x < y);
}

/* Read the stat of one pid into s->cur; 0, or -1 when it is gone. */
static int scan_one(struct sampler *s, int procfd, pid_t pid)
{
	char path[32], text[1024];
	struct proc p;
	snprintf(path, sizeof(path), "%d/stat", (int)pid);
	if (read_small(procfd, path, text, sizeof(text)) <= 0)
		return -1;
	memset(&p, 0, sizeof(p));
	p.pid = pid;
	if (parse_stat(text, &p) || ALLOC_GROW_SOFT(s->cur, s->ncur + 1, s->acur))
		return -1;	/* out of memory: left out of this sample */
	s->cur[s->ncur++] = p;
	return 0;
}

static int cmp_pid_t(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* 1 when pid is in the sorted array a[0..n). */
static int has_pid(const pid_t *a, size_t n, pid_t pid)
{
	return n && bsearch(&pid, a, n, sizeof(*a), cmp_pid_t) != NULL;
}

/*
 * Fill s->cur with the processes of /proc (only the root when not following the tree), sorted by pid.
 * A process outside the tree never joins it (only new processes do), so unless `full` the stat of a
 * pid already known to be outside is not read again; such pids go to s->skipped. A pid reused within
 * one full-scan period is missed until the next full scan. Processes that vanish while being read
 * are skipped. Returns 0, or -1 when /proc cannot be listed.
 */
static int scan_procs(struct sampler *s, int procfd, int full)
{
	DIR *d;
	struct dirent *e;
	int fd, sorted = 1;
	s->ncur = 0;
	s->nskip = 0;
	if (!s->tree) {
		scan_one(s, procfd, s->root);
		return 0;
	}
	if ((fd = openat(procfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d))) {
		char *end;
		long pid;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		if (!full && has_pid(s->outside, s->nout, (pid_t)pid)) {
			/* Out of memory: forgotten, so read again next time. */
			if (!ALLOC_GROW_SOFT(s->skipped, s->nskip + 1, s->askip))
				s->skipped[s->nskip++] = (pid_t)pid;
			continue;
		}
		if (scan_one(s, procfd, (pid_t)pid) == 0 && s->ncur > 1 &&
		    s->cur[s->ncur - 2].pid > s->cur[s->ncur - 1].pid)
			sorted = 0;
	}
	closedir(d);
	if (!sorted)
		qsort(s->cur, s->ncur, sizeof(*s->cur), cmp_pid);
	return 0;
}

/* Remember the pids outside the tree of this sample: those skipped and those read but not marked. */
static void keep_outside(struct sampler *s)
{
	size_t i;
	pid_t *tmp;
	for (i = 0; i < s->ncur; i++) {
		if (s->cur[i].tracked || ALLOC_GROW_SOFT(s->skipped, s->nskip + 1, s->askip))
			continue;	/* out of memory: read again next time */
		s->skipped[s->nskip++] = s->cur[i].pid;
	}
	qsort(s->skipped, s->nskip, sizeof(*s->skipped), cmp_pid_t);
	tmp = s->outside;
	s->outside = s->skipped;
	s->skipped = tmp;
	s->nout = s->nskip;
	s->nskip = 0;
	i = s->aout;
	s->aout = s->askip;
	s->askip = i;
}

/*
 * Mark the tree in s->cur: the root, survivors of the previous tree, orphans adopted by a subreaping
 * caller, and their descendants.
 */
static void mark_tree(struct sampler *s)
{
	size_t i;
	int changed = 1;
	pid_t self = getpid();
	for (i = 0; i < s->ncur; i++) {
		struct proc *p = &s->cur[i], *old = find_proc(s->prev, s->nprev, p->pid);
		p->tracked = p->pid == s->root || (old && old->start == p->start) ||
			     (s->subreaper && p->ppid == self);
	}
	/* Children usually have larger pids than their parents, so one pass mostly settles it. */
	while (changed) {
		changed = 0;
		for (i = 0; i < s->ncur; i++) {
			struct proc *p = &s->cur[i], *parent;
			if (p->tracked || p->ppid <= 0)
				continue;
			parent = find_proc(s->cur, s->ncur, p->ppid);
			if (parent && parent->tracked) {
				p->tracked = 1;
				changed = 1;
			}
		}
	}
}

/* Resident bytes of one process from /proc/PID/statm (0 when it is gone or a zombie). */
static int64_t proc_rss(const struct sampler *s, int procfd, pid_t pid)
{
	char path[32], text[256];
	unsigned long long size, resident;
	snprintf(path, sizeof(path), "%d/statm", (int)pid);
	if (read_small(procfd, path, text, sizeof(text)) <= 0 ||
	    sscanf(text, "%llu %llu", &size, &resident) != 2)
		return 0;
	return (int64_t)resident * s->page_size;
}

/* MemTotal and MemTotal - MemAvailable from /proc/meminfo, in bytes; 0, or -1. */
static int read_meminfo(int procfd, int64_t *total, int64_t *used)
{
	char text[8192];
	const char *line;
	long long mem_total = -1, avail = -1, mem_free = -1, buffers = -1, cached = -1;
	if (read_small(procfd, "meminfo", text, sizeof(text)) <= 0)
		return -1;
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		long long kb;
		if (sscanf(line, "MemTotal: %lld", &kb) == 1)
			mem_total = kb;
		else if (sscanf(line, "MemAvailable: %lld", &kb) == 1)
			avail = kb;
		else if (sscanf(line, "MemFree: %lld", &kb) == 1)
			mem_free = kb;
		else if (sscanf(line, "Buffers: %lld", &kb) == 1)
			buffers = kb;
		else if (sscanf(line, "Cached: %lld", &kb) == 1)
			cached = kb;
	}
	if (avail < 0 && mem_free >= 0 && buffers >= 0 && cached >= 0)
		avail = mem_free + buffers + cached;	/* kernels before 3.14 */
	if (mem_total < 0 || avail < 0)
		return -1;
	*total = mem_total * 1024;
	*used = (mem_total - avail) * 1024;
	return 0;
}

/* One /proc/diskstats line: the device's name and sectors read and written. */
struct disk_line {
	char name[64];
	unsigned long long rd, wr;	/* sectors read and written */
};

/* One line of /proc/diskstats (major, minor, name, then at least seven counters) into d; 0, or -1. */
static int parse_disk_line(const char *line, struct disk_line *d)
{
	unsigned major, minor;
	unsigned long long f[5];	/* the counters around the two kept */
	return sscanf(line, " %u %u %63s %llu %llu %llu %llu %llu %llu %llu", &major, &minor, d->name, &f[0], &f[1],
		      &d->rd, &f[2], &f[3], &f[4], &d->wr) == 10 ? 0 : -1;
}

/*
 * 1 when name is a partition of disk: disk's name plus digits (sda1), or, when that name ends in a digit,
 * plus "p" and digits (nvme0n1p1, mmcblk0p1: nvme0n10 is a disk of its own).
 */
static int partition_of(const char *name, const char *disk)
{
	size_t n = strlen(disk);
	const char *p = name + n;
	if (!n || strncmp(name, disk, n) || !*p)
		return 0;
	if (disk[n - 1] >= '0' && disk[n - 1] <= '9') {
		if (*p != 'p' || !p[1])
			return 0;
		p++;
	}
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

/* 1 for the kinds of block device whose I/O is another device's, or no disk's. */
static int virtual_disk(const char *name)
{
	static const char *const prefixes[] = { "dm-", "md", "loop", "ram", "zram" };
	size_t i;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/*
 * The kernel lists each disk, then its partitions (block/genhd.c walks a disk's partitions after it): one
 * pass keeps the last whole disk and leaves out what is a partition of it.
 */
int sampler_parse_diskstats(const char *text, int64_t *read_bytes, int64_t *write_bytes)
{
	const char *line;
	char disk[64] = "";
	unsigned long long rd = 0, wr = 0;
	int any = 0;
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		struct disk_line d;
		if (parse_disk_line(line, &d))
			continue;
		any = 1;
		if (virtual_disk(d.name) || partition_of(d.name, disk))
			continue;
		snprintf(disk, sizeof(disk), "%s", d.name);
		rd += d.rd;
		wr += d.wr;
	}
	if (!any)
		return -1;
	*read_bytes = (int64_t)(rd * 512);
	*write_bytes = (int64_t)(wr * 512);
	return 0;
}

int sampler_parse_netdev(const char *text, int64_t *rx_bytes, int64_t *tx_bytes)
{
	const char *line;
	unsigned long long rx = 0, tx = 0;
	int any = 0;
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *colon = strchr(line, ':'), *eol = strchr(line, '\n'), *name = line;
		unsigned long long f[9];
		size_t n;
		if (!colon || (eol && colon > eol))
			continue;	/* the two heading lines */
		while (*name == ' ' || *name == '\t')
			name++;
		n = (size_t)(colon - name);
		if (sscanf(colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4],
			   &f[5], &f[6], &f[7], &f[8]) != 9)
			continue;
		any = 1;
		if (n == 2 && !strncmp(name, "lo", 2))
			continue;
		rx += f[0];
		tx += f[8];
	}
	if (!any)
		return -1;
	*rx_bytes = (int64_t)rx;
	*tx_bytes = (int64_t)tx;
	return 0;
}

#define SYS_IO_BYTES 65536	/* /proc/diskstats and /proc/net/dev read whole; a fuller file is unknown */

/*
 * The system's disk and network counters into out (have_disk, have_net say which were read), through the
 * sampler's buffer (not the stack: the library samples on its writer thread; made on the first sample).
 */
static void read_sys_io(struct sampler *s, int procfd, struct host_sample *out)
{
	char *text = s->io_text ? s->io_text : (s->io_text = malloc(SYS_IO_BYTES));
	ssize_t n;
	if (!text)
		return;
	n = read_small(procfd, "diskstats", text, SYS_IO_BYTES);
	out->have_disk = n > 0 && n < SYS_IO_BYTES - 1 &&
			 !sampler_parse_diskstats(text, &out->disk_read_bytes, &out->disk_write_bytes);
	n = read_small(procfd, "net/dev", text, SYS_IO_BYTES);
	out->have_net = n > 0 && n < SYS_IO_BYTES - 1 &&
			!sampler_parse_netdev(text, &out->net_rx_bytes, &out->net_tx_bytes);
}

/*
 * 1 when the time of `old`, a member of the previous tree that is no longer in it, went into the
 * cutime of a live member: its nearest ancestor still alive (walking up the previous tree past members
 * that vanished too) is in the tree. 0 when the time left the tree with it.
 */
static int absorbed(const struct sampler *s, const struct proc *old)
{
	pid_t ppid = old->ppid;
	size_t steps;
	for (steps = 0; steps <= s->nprev && ppid > 0; steps++) {
		const struct proc *alive = find_proc(s->cur, s->ncur, ppid);
		const struct proc *was = find_proc(s->prev, s->nprev, ppid);
		if (alive)
			return alive->tracked;
		if (!was)
			return 0;
		ppid = was->ppid;
	}
	return 0;
}

/*
 * CPU percent of one core since the previous sample into *pct; 1, or 0 before there is one. Ticks
 * are coarse (1/CLK_TCK s), so a window much shorter than the one before it (the last sample, taken
 * as the program ends) is measured from the sample before instead, rather than as 0 % or 5000 %.
 */
static int cpu_since(const struct sampler *s, int64_t mono, double *pct)
{
	const struct mark *m = &s->marks[0];
	if (!m->mono || mono <= m->mono)
		return 0;
	if (s->marks[1].mono && mono - m->mono < (m->mono - s->marks[1].mono) / 2)
		m = &s->marks[1];
	*pct = 100.0 * ((double)(s->cum_ticks - m->cum) / (double)s->clk_tck) /
	       ((double)(mono - m->mono) / 1e9);
	return 1;
}

int sampler_host(struct sampler *s, struct host_sample *out)
{
	int procfd, root_alive = 0, full;
	size_t i;
	unsigned long long ticks = 0, gone = 0;
	int64_t mono = now_ns();
	struct proc *tmp;

	memset(out, 0, sizeof(*out));
	out->ts_ns = realtime_ns();
	if ((procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if (read_meminfo(procfd, &out->sys_mem_total, &out->sys_mem_used))
		out->sys_mem_total = out->sys_mem_used = -1;	/* unknown: struct host_sample has no flag */
	read_sys_io(s, procfd, out);
	full = !s->last_full || mono - s->last_full >= FULL_SCAN_NS;
	if (scan_procs(s, procfd, full)) {
		close(procfd);
		return -1;
	}
	if (full)
		s->last_full = mono;
	mark_tree(s);
	if (s->tree)
		keep_outside(s);
	for (i = 0; i < s->ncur; i++) {
		const struct proc *p = &s->cur[i];
		if (!p->tracked)
			continue;
		if (p->pid == s->root)
			root_alive = 1;
		ticks += p->ticks;
		out->rss_bytes += proc_rss(s, procfd, p->pid);
	}
	close(procfd);
	/* Members of the previous tree that left it or vanished with no reaper inside it. */
	for (i = 0; i < s->nprev; i++) {
		const struct proc *old = &s->prev[i];
		const struct proc *now = find_proc(s->cur, s->ncur, old->pid);
		if (now && now->start == old->start && now->tracked)
			continue;
		if (!absorbed(s, old))
			gone += old->ticks;
	}
	if (s->marks[0].mono) {
		long long delta = (long long)(ticks + gone) - (long long)s->prev_ticks;
		if (delta > 0)
			s->cum_ticks += (unsigned long long)delta;
	}
	out->have_cpu = cpu_since(s, mono, &out->cpu_pct);
	s->marks[1] = s->marks[0];
	s->marks[0].mono = mono;
	s->marks[0].cum = s->cum_ticks;
	/* Keep this tree as the previous one: move tracked entries to the front of cur and swap. */
	s->prev_ticks = ticks;
	{
		size_t n = 0, a;
		for (i = 0; i < s->ncur; i++)
			if (s->cur[i].tracked)
				s->cur[n++] = s->cur[i];
		tmp = s->prev;
		a = s->aprev;
		s->prev = s->cur;
		s->nprev = n;
		s->aprev = s->acur;
		s->cur = tmp;
		s->acur = a;
		s->ncur = 0;
	}
	return root_alive ? 0 : -1;
}

/* The NVML entry points, by name and place in struct nvml; the required ones must all exist. */
static const struct nvml_sym {
	const char *name;
	size_t offset;
	int required;
} nvml_syms[] = {
	{ "nvmlInit_v2", offsetof(struct nvml, init), 1 },
	{ "nvmlShutdown", offsetof(struct nvml, shutdown), 1 },
	{ "nvmlDeviceGetCount_v2", offsetof(struct nvml, count), 1 },
	{ "nvmlDeviceGetHandleByIndex_v2", offsetof(struct nvml, handle), 1 },
	{ "nvmlErrorString", offsetof(struct nvml, error_string), 0 },
	{ "nvmlDeviceGetUtilizationRates", offsetof(struct nvml, util), 0 },
	{ "nvmlDeviceGetMemoryInfo", offsetof(struct nvml, mem), 0 },
	{ "nvmlDeviceGetMemoryInfo_v2", offsetof(struct nvml, mem_v2), 0 },
	{ "nvmlDeviceGetTemperatureV", offsetof(struct nvml, temp_v), 0 },
	{ "nvmlDeviceGetTemperature", offsetof(struct nvml, temp), 0 },
	{ "nvmlDeviceGetPowerUsage", offsetof(struct nvml, power), 0 },
	{ "nvmlDeviceGetClockInfo", offsetof(struct nvml, clock), 0 },
	{ "nvmlDeviceGetTotalEnergyConsumption", offsetof(struct nvml, energy), 0 },
};

/* Describe NVML return code rc for messages. */
static void nvml_describe(const struct sampler *s, char *buf, size_t size, const char *what, nvmlReturn_t rc)
{
	const char *msg = s->nvml.error_string ? s->nvml.error_string(rc) : NULL;
	snprintf(buf, size, "%s: error %d%s%s", what, rc, msg ? ": " : "", msg ? msg : "");
}

/*
 * Load libnvidia-ml.so.1, initialise it and take a handle per device. On any failure leaves
 * ngpus = 0 and the reason in gpu_error.
 */
static void nvml_open(struct sampler *s)
{
	struct nvml *n = &s->nvml;
	unsigned int count = 0, i;
	nvmlReturn_t rc;
	const char *err;

	dlerror();
	if (!(n->dl = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL))) {
		err = dlerror();
		/* dlerror names the library: "libnvidia-ml.so.1: cannot open shared object file: ..." */
		snprintf(s->gpu_error, sizeof(s->gpu_error), "%s", err ? err : "libnvidia-ml.so.1 not found");
		return;
	}
	/* dlsym's void * stored into function pointers (POSIX guarantees they have the same size). */
	for (i = 0; i < sizeof(nvml_syms) / sizeof(nvml_syms[0]); i++) {
		void *fn = dlsym(n->dl, nvml_syms[i].name);
		if (!fn && nvml_syms[i].required) {
			snprintf(s->gpu_error, sizeof(s->gpu_error), "libnvidia-ml.so.1 lacks %s",
				 nvml_syms[i].name);
			goto fail;
		}
		memcpy((char *)n + nvml_syms[i].offset, &fn, sizeof(fn));
	}
	if ((rc = n->init()) != NVML_SUCCESS) {
		nvml_describe(s, s->gpu_error, sizeof(s->gpu_error), "nvmlInit_v2", rc);
		goto fail;
	}
	s->nvml_up = 1;
	if ((rc = n->count(&count)) != NVML_SUCCESS) {
		nvml_describe(s, s->gpu_error, sizeof(s->gpu_error), "nvmlDeviceGetCount_v2", rc);
		goto fail;
	}
	if (count > MAX_GPUS)
		count = MAX_GPUS;
	if (!(s->gpus = calloc(count ? count : 1, sizeof(*s->gpus)))) {
		snprintf(s->gpu_error, sizeof(s->gpu_error), "out of memory for %u NVML devices", count);
		goto fail;
	}
	for (i = 0; i < count; i++) {
		nvmlDevice_t dev;
		/* A device that cannot be opened (lost, no permission) is left out; the others stay. */
		if (n->handle(i, &dev) != NVML_SUCCESS)
			continue;
		s->gpus[s->ngpus].dev = dev;
		s->gpus[s->ngpus].index = i;
		s->ngpus++;
	}
	if (!s->ngpus) {
		snprintf(s->gpu_error, sizeof(s->gpu_error), count ? "no NVML device could be opened" :
			 "NVML reports no devices");
		goto fail;
	}
	return;
fail:
	free(s->gpus);
	s->gpus = NULL;
	s->ngpus = 0;
	if (s->nvml_up)
		n->shutdown();
	s->nvml_up = 0;
	dlclose(n->dl);
	memset(n, 0, sizeof(*n));
}

struct sampler *sampler_open(pid_t root, int tree)
{
	struct sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->root = root;
	s->tree = tree;
	s->page_size = sysconf(_SC_PAGESIZE);
	s->clk_tck = sysconf(_SC_CLK_TCK);
	if (tree) {
		int on = 0;
		s->subreaper = prctl(PR_GET_CHILD_SUBREAPER, &on, 0, 0, 0) == 0 && on;
	}
	if (s->page_size <= 0)
		s->page_size = 4096;
	if (s->clk_tck <= 0)
		s->clk_tck = 100;
	nvml_open(s);
	s->ix_bad = rec_indices(metric_table, sizeof(metric_table) / sizeof(metric_table[0]), &s->ix) != 0;
	return s;
}

/* Set value i: x, or null when !have. */
static void set_value(struct value *v, int i, int have, int64_t x)
{
	v[i].i = x;
	v[i].null = !have;
}

int sampler_write_host(const struct sampler *s, struct wire *w, const struct host_sample *h)
{
	struct value v[REC_MAX_FIELDS];
	if (s->ix_bad)
		return error("host_metric or device_metric lacks a field the sampler writes");
	memset(v, 0, sizeof(v));
	set_value(v, s->ix.h_ts, 1, h->ts_ns);
	v[s->ix.h_cpu].d = h->cpu_pct;
	v[s->ix.h_cpu].null = !h->have_cpu;
	set_value(v, s->ix.h_rss, 1, h->rss_bytes);
	set_value(v, s->ix.h_used, h->sys_mem_used >= 0, h->sys_mem_used);
	set_value(v, s->ix.h_total, h->sys_mem_total >= 0, h->sys_mem_total);
	set_value(v, s->ix.h_disk_rd, h->have_disk, h->disk_read_bytes);
	set_value(v, s->ix.h_disk_wr, h->have_disk, h->disk_write_bytes);
	set_value(v, s->ix.h_net_rx, h->have_net, h->net_rx_bytes);
	set_value(v, s->ix.h_net_tx, h->have_net, h->net_tx_bytes);
	return wire_add(w, R_HOST_METRIC, v);
}

int sampler_write_gpu(const struct sampler *s, struct wire *w, const struct gpu_sample *g)
{
	struct value v[REC_MAX_FIELDS];
	if (s->ix_bad)
		return error("host_metric or device_metric lacks a field the sampler writes");
	memset(v, 0, sizeof(v));
	set_value(v, s->ix.g_ts, 1, g->ts_ns);
	set_value(v, s->ix.g_device, 1, g->device);
	set_value(v, s->ix.g_gpu_util, g->have_util, g->gpu_util);
	set_value(v, s->ix.g_mem_util, g->have_util, g->mem_util);
	set_value(v, s->ix.g_mem_used, g->have_mem, g->mem_used);
	set_value(v, s->ix.g_mem_total, g->have_mem, g->mem_total);
	set_value(v, s->ix.g_temp, g->have_temp, g->temp_c);
	set_value(v, s->ix.g_power, g->have_power, g->power_mw);
	set_value(v, s->ix.g_clock, g->have_clock, g->sm_clock_mhz);
	set_value(v, s->ix.g_energy, g->have_energy, g->energy_mj);
	return wire_add(w, R_DEVICE_METRIC, v);
}

int sampler_gpus(const struct sampler *s)
{
	return s->ngpus;
}

const char *sampler_gpu_error(const struct sampler *s)
{
	return s->ngpus ? NULL : s->gpu_error;
}

/* Note rc for metric bit `bit` of g: NOT_SUPPORTED is remembered so it is not asked again. */
static int nvml_ok(struct gpu *g, unsigned bit, nvmlReturn_t rc)
{
	if (rc == NVML_ERROR_NOT_SUPPORTED)
		g->unsupported |= bit;
	return rc == NVML_SUCCESS;
}

int sampler_gpu(struct sampler *s, int i, struct gpu_sample *out)
{
	struct nvml *n = &s->nvml;
	struct gpu *g;
	memset(out, 0, sizeof(*out));
	if (i < 0 || i >= s->ngpus)
		return -1;
	g = &s->gpus[i];
	out->ts_ns = realtime_ns();
	out->device = (int)g->index;
	if (n->util && !(g->unsupported & NO_UTIL)) {
		nvmlUtilization_t u;
		if (nvml_ok(g, NO_UTIL, n->util(g->dev, &u))) {
			out->have_util = 1;
			out->gpu_util = u.gpu;
			out->mem_util = u.memory;
		}
	}
	if (n->mem_v2 && !(g->unsupported & NO_MEM_V2)) {
		nvmlMemory_v2_t m;
		memset(&m, 0, sizeof(m));
		m.version = (unsigned int)sizeof(m) | 2u << 24;
		if (nvml_ok(g, NO_MEM_V2, n->mem_v2(g->dev, &m))) {
			out->have_mem = 1;
			out->mem_used = (int64_t)m.used;
			out->mem_total = (int64_t)m.total;
		} else {
			g->unsupported |= NO_MEM_V2;	/* version mismatch or absent: use v1 from now on */
		}
	}
	if (!out->have_mem && n->mem && !(g->unsupported & NO_MEM)) {
		nvmlMemory_t m;
		if (nvml_ok(g, NO_MEM, n->mem(g->dev, &m))) {
			out->have_mem = 1;
			out->mem_used = (int64_t)m.used;
			out->mem_total = (int64_t)m.total;
		}
	}
	if (n->temp_v && !(g->unsupported & NO_TEMP_V)) {
		nvmlTemperature_v1_t t;
		memset(&t, 0, sizeof(t));
		t.version = (unsigned int)sizeof(t) | 1u << 24;
		t.sensorType = NVML_TEMPERATURE_GPU;
		if (nvml_ok(g, NO_TEMP_V, n->temp_v(g->dev, &t))) {
			out->have_temp = 1;
			out->temp_c = t.temperature;
		} else {
			g->unsupported |= NO_TEMP_V;	/* fall back to the deprecated call */
		}
	}
	if (!out->have_temp && n->temp && !(g->unsupported & NO_TEMP)) {
		unsigned int t;
		if (nvml_ok(g, NO_TEMP, n->temp(g->dev, NVML_TEMPERATURE_GPU, &t))) {
			out->have_temp = 1;
			out->temp_c = t;
		}
	}
	if (n->power && !(g->unsupported & NO_POWER)) {
		unsigned int mw;
		if (nvml_ok(g, NO_POWER, n->power(g->dev, &mw))) {
			out->have_power = 1;
			out->power_mw = mw;
		}
	}
	if (n->clock && !(g->unsupported & NO_CLOCK)) {
		unsigned int mhz;
		if (nvml_ok(g, NO_CLOCK, n->clock(g->dev, NVML_CLOCK_SM, &mhz))) {
			out->have_clock = 1;
			out->sm_clock_mhz = mhz;
		}
	}
	if (n->energy && !(g->unsupported & NO_ENERGY)) {
		unsigned long long mj;
		if (nvml_ok(g, NO_ENERGY, n->energy(g->dev, &mj))) {
			out->have_energy = 1;
			out->energy_mj = (int64_t)mj;
		}
	}
	return 0;
}

void sampler_close(struct sampler *s)
{
	if (!s)
		return;
	if (s->nvml_up)
		s->nvml.shutdown();
	if (s->nvml.dl)
		dlclose(s->nvml.dl);
	free(s->gpus);
	free(s->prev);
	free(s->cur);
	free(s->outside);
	free(s->skipped);
	free(s->io_text);
	free(s);
}
