/*
 * A session's nodes: what tells two GPUs with the same device number apart. A GPU is (host, rank,
 * device): a node is one (host, rank) of the session's processes, numbered 0, 1, ... in that order
 * (empty host and NULL rank first). gpuprof and Nsight Systems sessions name hosts and no ranks, so their
 * processes on one host share its GPUs; Kineto traces name ranks (one process each) and seldom hosts. A
 * session of one host and one rank has one node, 0, so its GPUs are its device numbers as before.
 *
 * analyze/views.sql's temp.gpu_nodes says the same in SQL; tests/vtab.py checks they agree.
 */
#ifdef GPUPROF_SQLITE_LOADABLE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif

#include "sqlext_int.h"

#include <string.h>

int sqlext_nodes_read(sqlite3 *db, const char *schema, int64_t s, struct sqlext_nodes *m)
{
	char *sql = sqlite3_mprintf("SELECT pid, dense_rank() OVER (ORDER BY hostname, rank) - 1 FROM \"%w\".processes "
				    "WHERE session_id = ?1 ORDER BY pid", schema ? schema : "main");
	sqlite3_stmt *st = NULL;
	int rc;
	memset(m, 0, sizeof(*m));
	m->count = 1;
	if (!sql)
		return SQLITE_NOMEM;
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_int64(st, 1, s);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlext_grow((void **)&m->v, &m->alloc, m->n + 1, sizeof(*m->v))) {
			rc = SQLITE_NOMEM;
			break;
		}
		m->v[m->n].pid = sqlite3_column_int64(st, 0);
		m->v[m->n].node = sqlite3_column_int64(st, 1);
		if (m->v[m->n].node >= m->count)
			m->count = m->v[m->n].node + 1;
		m->n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		sqlext_nodes_free(m);
		return rc;
	}
	return SQLITE_OK;
}

int64_t sqlext_node(struct sqlext_nodes *m, int64_t pid)
{
	size_t lo = 0, hi = m->n;
	if (m->count == 1)
		return 0;
	if (m->hit < m->n && m->v[m->hit].pid == pid)
		return m->v[m->hit].node;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->n && m->v[lo].pid == pid) {
		m->hit = lo;
		return m->v[lo].node;
	}
	return 0;
}

void sqlext_nodes_free(struct sqlext_nodes *m)
{
	sqlite3_free(m->v);
	memset(m, 0, sizeof(*m));
	m->count = 1;
}
