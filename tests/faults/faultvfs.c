/*
 * faultvfs: an SQLite VFS for tests that fails the Nth file operation of one kind (the idea of SQLite's
 * test_vfs.c, written afresh). Built as build/tests/faults/libfaultvfs.so and LD_PRELOADed into the real
 * programs, which link the system's libsqlite3 dynamically.
 *
 *   GPUPROF_FAULT=KIND:N[:CODE][+]  the Nth call (from 1) of KIND fails: KIND is one of the `ops` rows
 *                                  below (read write sync lock open truncate delete); CODE is the
 *                                  row's default (an SQLITE_IOERR_*) or `full` (SQLITE_FULL) or `busy`
 *                                  (SQLITE_BUSY); a final `+` fails every call from the Nth on (a disk
 *                                  that stays full) instead of that one alone; CODE `int`, `term`
 *                                  or `hup` fails nothing: the call raises SIGINT, SIGTERM or SIGHUP
 *                                  in the program and then goes on (tests/interrupt.py: a signal at an
 *                                  exact point, inside a COMMIT say)
 *   GPUPROF_FAULT=count             fail nothing, only count
 *   GPUPROF_FAULT_LOG=FILE          where the counts go at exit, one line "read=R write=W ... fired=K"
 *                                  (K: the calls that were failed); stderr when unset
 *
 * Counted are the calls on every file SQLite opens (database, journal, temporary files) and, for open
 * and delete, on the VFS. The VFS is registered as the default when the program first opens a database
 * (sqlite3_open_v2 is wrapped), not in the constructor: registering initialises SQLite, after which the
 * program's own sqlite3_config (its threading mode) would be refused.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { OP_READ, OP_WRITE, OP_SYNC, OP_LOCK, OP_OPEN, OP_TRUNCATE, OP_DELETE, NOPS };

static const struct {
	const char *name;	/* as GPUPROF_FAULT and the log name it */
	int code;		/* what a failed call returns by default */
} ops[NOPS] = {
	[OP_READ] = { "read", SQLITE_IOERR_READ },
	[OP_WRITE] = { "write", SQLITE_IOERR_WRITE },
	[OP_SYNC] = { "sync", SQLITE_IOERR_FSYNC },
	[OP_LOCK] = { "lock", SQLITE_IOERR_LOCK },
	[OP_OPEN] = { "open", SQLITE_CANTOPEN },
	[OP_TRUNCATE] = { "truncate", SQLITE_IOERR_TRUNCATE },
	[OP_DELETE] = { "delete", SQLITE_IOERR_DELETE },
};

static struct {
	int kind;		/* the op that fails, -1 for none (counting only) */
	long long nth;		/* the call of it that fails, from 1 */
	int code;		/* what it returns */
	int persist;		/* every call from nth on fails */
	int signal;		/* raise this at the call instead of failing it (0: fail) */
	long long calls[NOPS];	/* calls so far, per op */
	long long fired;	/* calls failed */
	sqlite3_vfs *real;	/* the default VFS wrapped */
	sqlite3_vfs vfs;	/* this one */
} fv = { .kind = -1 };

struct ffile {
	sqlite3_file base;	/* its pMethods is fio */
	sqlite3_file *real;	/* the wrapped VFS's file, in the same allocation after this struct */
};

/* Count a call of op; its error code when it is to fail, else SQLITE_OK. */
static int fault(enum op op)
{
	long long n = __atomic_add_fetch(&fv.calls[op], 1, __ATOMIC_RELAXED);
	if ((int)op != fv.kind || n < fv.nth || (n > fv.nth && !fv.persist))
		return SQLITE_OK;
	__atomic_add_fetch(&fv.fired, 1, __ATOMIC_RELAXED);
	if (fv.signal) {
		raise(fv.signal);
		return SQLITE_OK;
	}
	return fv.code;
}

#define REAL(f) (((struct ffile *)(f))->real)

static int f_close(sqlite3_file *f)
{
	return REAL(f)->pMethods ? REAL(f)->pMethods->xClose(REAL(f)) : SQLITE_OK;
}

static int f_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
	int rc = fault(OP_READ);
	return rc ? rc : REAL(f)->pMethods->xRead(REAL(f), buf, n, off);
}

static int f_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
	int rc = fault(OP_WRITE);
	return rc ? rc : REAL(f)->pMethods->xWrite(REAL(f), buf, n, off);
}

static int f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	int rc = fault(OP_TRUNCATE);
	return rc ? rc : REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int f_sync(sqlite3_file *f, int flags)
{
	int rc = fault(OP_SYNC);
	return rc ? rc : REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int f_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int f_lock(sqlite3_file *f, int level)
{
	int rc = fault(OP_LOCK);
	return rc ? rc : REAL(f)->pMethods->xLock(REAL(f), level);
}

static int f_unlock(sqlite3_file *f, int level)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), level);
}

static int f_check_reserved(sqlite3_file *f, int *out)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int f_control(sqlite3_file *f, int op, void *arg)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int f_sector(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int f_device(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

static int f_shm_map(sqlite3_file *f, int page, int size, int extend, void volatile **p)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), page, size, extend, p);
}

static int f_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}

static void f_shm_barrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int f_shm_unmap(sqlite3_file *f, int del)
{
	return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}

static int f_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **p)
{
	/* No memory-mapped reads: every read goes through f_read and is counted. */
	(void)f, (void)off, (void)n;
	*p = NULL;
	return SQLITE_OK;
}

static int f_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
	return p ? REAL(f)->pMethods->xUnfetch(REAL(f), off, p) : SQLITE_OK;
}

static const sqlite3_io_methods fio = {
	3, f_close, f_read, f_write, f_truncate, f_sync, f_size, f_lock, f_unlock, f_check_reserved, f_control,
	f_sector, f_device, f_shm_map, f_shm_lock, f_shm_barrier, f_shm_unmap, f_fetch, f_unfetch,
};

static int v_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags)
{
	struct ffile *p = (struct ffile *)f;
	int rc = fault(OP_OPEN);
	(void)vfs;
	p->real = (sqlite3_file *)(p + 1);
	p->base.pMethods = NULL;	/* a failed open is not closed */
	if (rc)
		return rc;
	rc = fv.real->xOpen(fv.real, name, p->real, flags, out_flags);
	if (p->real->pMethods)
		p->base.pMethods = &fio;
	return rc;
}

static int v_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
	int rc = fault(OP_DELETE);
	(void)vfs;
	return rc ? rc : fv.real->xDelete(fv.real, name, sync_dir);
}

static int v_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	(void)vfs;
	return fv.real->xAccess(fv.real, name, flags, out);
}

static int v_full_path(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	(void)vfs;
	return fv.real->xFullPathname(fv.real, name, n, out);
}

static void *v_dl_open(sqlite3_vfs *vfs, const char *name)
{
	(void)vfs;
	return fv.real->xDlOpen(fv.real, name);
}

static void v_dl_error(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	fv.real->xDlError(fv.real, n, out);
}

static void (*v_dl_sym(sqlite3_vfs *vfs, void *h, const char *sym))(void)
{
	(void)vfs;
	return fv.real->xDlSym(fv.real, h, sym);
}

static void v_dl_close(sqlite3_vfs *vfs, void *h)
{
	(void)vfs;
	fv.real->xDlClose(fv.real, h);
}

static int v_randomness(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return fv.real->xRandomness(fv.real, n, out);
}

static int v_sleep(sqlite3_vfs *vfs, int us)
{
	(void)vfs;
	return fv.real->xSleep(fv.real, us);
}

static int v_current_time(sqlite3_vfs *vfs, double *t)
{
	(void)vfs;
	return fv.real->xCurrentTime(fv.real, t);
}

static int v_last_error(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return fv.real->xGetLastError(fv.real, n, out);
}

static int v_current_time64(sqlite3_vfs *vfs, sqlite3_int64 *t)
{
	(void)vfs;
	return fv.real->xCurrentTimeInt64(fv.real, t);
}

/* Wrap the default VFS and make the wrapper the default, once. */
static void faultvfs_register(void)
{
	static int done;
	if (done++ || !(fv.real = sqlite3_vfs_find(NULL)))
		return;
	fv.vfs = (sqlite3_vfs){
		2, (int)sizeof(struct ffile) + fv.real->szOsFile, fv.real->mxPathname, NULL, "faultvfs", NULL,
		v_open, v_delete, v_access, v_full_path, v_dl_open, v_dl_error, v_dl_sym, v_dl_close,
		v_randomness, v_sleep, v_current_time, v_last_error, v_current_time64,
	};
	sqlite3_vfs_register(&fv.vfs, 1);
}

int sqlite3_open_v2(const char *path, sqlite3 **db, int flags, const char *vfs)
{
	static int (*next)(const char *, sqlite3 **, int, const char *);
	if (!next)
		next = (int (*)(const char *, sqlite3 **, int, const char *))dlsym(RTLD_NEXT, "sqlite3_open_v2");
	faultvfs_register();
	return next(path, db, flags, vfs);
}

int sqlite3_open(const char *path, sqlite3 **db)
{
	return sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
}

/* GPUPROF_FAULT: KIND:N[:CODE][+], or `count`; anything else is said once on stderr and ignored. */
__attribute__((constructor)) static void faultvfs_init(void)
{
	const char *s = getenv("GPUPROF_FAULT");
	char kind[16], code[16] = "";
	long long n;
	int i, used = 0;
	if (!s || !strcmp(s, "count"))
		return;
	if (sscanf(s, "%15[a-z]:%lld%n", kind, &n, &used) < 2 || n < 1)
		goto bad;
	s += used;
	if (*s == ':' && sscanf(s, ":%15[a-z]%n", code, &used) == 1)
		s += used;
	if (*s == '+') {
		fv.persist = 1;
		s++;
	}
	if (*s)
		goto bad;
	for (i = 0; i < NOPS && strcmp(ops[i].name, kind); i++)
		;
	if (i == NOPS)
		goto bad;
	fv.kind = i;
	fv.nth = n;
	fv.code = !*code ? ops[i].code : !strcmp(code, "full") ? SQLITE_FULL : !strcmp(code, "busy") ? SQLITE_BUSY : -1;
	fv.signal = !strcmp(code, "int") ? SIGINT : !strcmp(code, "term") ? SIGTERM : !strcmp(code, "hup") ? SIGHUP : 0;
	if (fv.signal)
		fv.code = SQLITE_OK;
	if (fv.code == -1) {
		fv.kind = -1;
		goto bad;
	}
	return;
bad:
	fprintf(stderr, "faultvfs: GPUPROF_FAULT='%s' is not KIND:N[:full|busy|int|term|hup][+] or count; ignored\n",
		getenv("GPUPROF_FAULT"));
}

/* The counts, at exit, to GPUPROF_FAULT_LOG (appended) or stderr. */
__attribute__((destructor)) static void faultvfs_report(void)
{
	const char *path = getenv("GPUPROF_FAULT_LOG");
	FILE *f;
	int i;
	if (!getenv("GPUPROF_FAULT"))
		return;
	if (!(f = path && *path ? fopen(path, "a") : stderr))
		return;
	for (i = 0; i < NOPS; i++)
		fprintf(f, "%s=%lld ", ops[i].name, fv.calls[i]);
	fprintf(f, "fired=%lld\n", fv.fired);
	if (f != stderr)
		fclose(f);
}
