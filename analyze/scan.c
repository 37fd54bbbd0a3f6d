/*
 * scan: a SELECT run in rowid slices on several connections at once (see scan.h).
 */
#include "scan.h"
#include "db.h"
#include "util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCAN_MIN_ROWS 200000	/* below this, one slice: opening connections costs more than it saves */

/* One per core, or GPUPROF_THREADS (which also small tables obey). */
int scan_slices(int64_t rows)
{
	const char *env = getenv("GPUPROF_THREADS");
	long n = env && *env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
	if (!(env && *env) && rows < SCAN_MIN_ROWS)
		n = 1;
	if (n > rows)
		n = (long)rows;
	if (n < 1)
		n = 1;
	return n > SCAN_MAX_SLICES ? SCAN_MAX_SLICES : (int)n;
}

int scan_plan(sqlite3 *db, const char *table, struct scan_plan *p)
{
	struct buf sql;
	sqlite3_stmt *st;
	int64_t lo, hi, span;
	const char *file = sqlite3_db_filename(db, "main");
	int k, n;

	memset(p, 0, sizeof(*p));
	buf_init(&sql);
	buf_addf(&sql, "SELECT min(rowid), max(rowid) FROM \"%s\"", table);
	st = db_prepare(db, sql.s);
	buf_release(&sql);
	if (!st)
		return -1;
	if (sqlite3_step(st) != SQLITE_ROW)
		return step_error(st);
	if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
		sqlite3_finalize(st);
		return 0;
	}
	lo = sqlite3_column_int64(st, 0);
	hi = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	span = hi - lo + 1;
	n = file && *file ? scan_slices(span) : 1;
	p->n = n;
	for (k = 0; k < n; k++) {
		p->lo[k] = lo + span / n * k;
		p->hi[k] = k == n - 1 ? hi : lo + span / n * (k + 1) - 1;
	}
	return 0;
}

/* 1 when session is the database's only session (so every row is its own). */
static int only_session(sqlite3 *db, int64_t session)
{
	sqlite3_stmt *st;
	int only = 0;
	if (sqlite3_prepare_v2(db, "SELECT count(*) = 1 AND max(id) = ?1 FROM sessions", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, session);
		only = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	return only;
}

struct slice {
	sqlite3 *db;			/* slice 0: the caller's; else opened here */
	const struct scan_plan *p;
	int k;
	const char *sql;
	const struct analysis_opts *o;
	int (*row)(sqlite3_stmt *st, void *arg);
	void *arg;
	int one_session;		/* :one_session */
	char *err;			/* the failure, or NULL */
	pthread_t thread;
};

static void *slice_run(void *v)
{
	struct slice *s = v;
	sqlite3_stmt *st = NULL;
	int rc;
	if (sqlite3_prepare_v2(s->db, s->sql, -1, &st, NULL) != SQLITE_OK || !st) {
		s->err = xstrdup(sqlite3_errmsg(s->db));
		return NULL;
	}
	script_bind(st, s->o);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":lo"), s->p->lo[s->k]);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":hi"), s->p->hi[s->k]);
	sqlite3_bind_int(st, sqlite3_bind_parameter_index(st, ":one_session"), s->one_session);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (s->row(st, s->arg)) {
			s->err = xstrdup("");
			break;
		}
	if (!s->err && rc != SQLITE_DONE)
		s->err = xstrdup(sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	return NULL;
}

int scan_run(sqlite3 *db, const struct scan_plan *p, const char *sql, const struct analysis_opts *o,
	     int (*row)(sqlite3_stmt *st, void *arg), void *args, size_t argsize)
{
	struct slice s[SCAN_MAX_SLICES];
	int k, started = 0, rc = 0, one = only_session(db, o->session);

	memset(s, 0, sizeof(s));
	for (k = 0; k < p->n; k++) {
		s[k].p = p;
		s[k].k = k;
		s[k].sql = sql;
		s[k].o = o;
		s[k].row = row;
		s[k].arg = (char *)args + (size_t)k * argsize;
		s[k].one_session = one;
		s[k].db = db;
		if (k && !(s[k].db = db_clone(db))) {
			rc = -1;
			break;
		}
	}
	/* Every connection opened (or k marks the first that failed): start the others, run slice 0 here. */
	if (!rc) {
		for (started = 1; started < p->n; started++)
			if (pthread_create(&s[started].thread, NULL, slice_run, &s[started])) {
				rc = error("cannot start a scan thread");
				break;
			}
		if (p->n)
			slice_run(&s[0]);
		for (k = 1; k < started; k++)
			pthread_join(s[k].thread, NULL);
	}
	for (k = 0; k < p->n; k++) {
		if (s[k].err && !rc)
			rc = *s[k].err ? error("sqlite: %s", s[k].err) : -1;
		free(s[k].err);
		if (k && s[k].db)
			sqlite3_close(s[k].db);
	}
	return rc;
}
