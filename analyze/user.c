/*
 * user: loading users' modules from files and from GPUPROF_ANALYSES's directories, and their generic gate
 * (user.h).
 */
#include "user.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole of file path as a string (NUL-free); NULL after a message. */
static char *read_text(const char *path)
{
	struct buf b;
	char chunk[8192];
	size_t n;
	FILE *in = fopen(path, "rb");
	if (!in) {
		error("cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	buf_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(in) || memchr(b.s, '\0', b.len)) {
		error("cannot read %s: %s", path, ferror(in) ? strerror(errno) : "not a text file");
		fclose(in);
		buf_release(&b);
		return NULL;
	}
	fclose(in);
	return b.len ? b.s : xstrdup("");	/* (an empty buf's bytes are static) */
}

/* Every module loaded, kept until exit (user.h). */
static struct user_module **loaded;
static size_t nloaded, loaded_alloc;

const struct user_module *user_load(const char *path)
{
	struct user_module *u;
	char *text = read_text(path);
	if (!text)
		return NULL;
	u = xcalloc(1, sizeof(*u));
	u->path = xstrdup(path);
	/* (Both copy what they keep of the text.) */
	if (module_parse(path, text, &u->m) || !(u->a = analysis_from_text(path, text))) {
		module_release(&u->m);
		free((char *)u->path);
		free(u);
		free(text);
		return NULL;
	}
	free(text);
	ALLOC_GROW(loaded, nloaded + 1, loaded_alloc);
	loaded[nloaded++] = u;
	return u;
}

/* GPUPROF_ANALYSES's directories, in order, each once: a NULL-ended array of strings (static). */
static char **dirs(void)
{
	static char **v;
	const char *env = getenv("GPUPROF_ANALYSES"), *p;
	size_t n = 0;
	if (v)
		return v;
	v = xcalloc(1, sizeof(*v));
	for (p = env; p && *p; ) {
		size_t len = strcspn(p, ":");
		if (len) {
			v = xrealloc(v, (n + 2) * sizeof(*v));
			v[n++] = xstrndup(p, len);
			v[n] = NULL;
		}
		p += len + (p[len] == ':');
	}
	return v;
}

/* Whether name is a module's name: letters, digits and '_', not beginning with a digit. */
static int good_name(const char *name, size_t len)
{
	size_t i;
	if (!len || (name[0] >= '0' && name[0] <= '9'))
		return 0;
	for (i = 0; i < len; i++)
		if (!(name[i] == '_' || (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9')))
			return 0;
	return 1;
}

const struct user_module *user_find(const char *name, int *failed)
{
	char **d;
	*failed = 0;
	if (!good_name(name, strlen(name)))
		return NULL;
	for (d = dirs(); *d; d++) {
		const struct user_module *u;
		struct buf path;
		FILE *f;
		buf_init(&path);
		buf_addf(&path, "%s/%s.sql", *d, name);
		if (!(f = fopen(path.s, "rb"))) {
			buf_release(&path);
			continue;
		}
		fclose(f);
		u = user_load(path.s);
		buf_release(&path);
		*failed = !u;
		return u;
	}
	return NULL;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int user_scan(const struct user_module *const **out, int say)
{
	const struct user_module **v = NULL;
	int n = 0;
	char **d;
	for (d = dirs(); *d; d++) {
		DIR *dir = opendir(*d);
		struct dirent *e;
		char **names = NULL;
		size_t nn = 0, i;
		if (!dir)
			continue;
		while ((e = readdir(dir))) {
			size_t len = strlen(e->d_name);
			if (len > 4 && !strcmp(e->d_name + len - 4, ".sql") && good_name(e->d_name, len - 4)) {
				names = xrealloc(names, (nn + 1) * sizeof(*names));
				names[nn++] = xstrdup(e->d_name);
			}
		}
		closedir(dir);
		xqsort(names, nn, sizeof(*names), by_name);
		for (i = 0; i < nn; i++) {
			const struct user_module *u;
			struct buf path;
			int k, seen = 0;
			buf_init(&path);
			buf_addf(&path, "%s/%s", *d, names[i]);
			/* A name an earlier directory has is that directory's (as user_find finds it). */
			for (k = 0; k < n; k++)
				seen |= strlen(v[k]->m.name) + 4 == strlen(names[i]) &&
					!strncmp(v[k]->m.name, names[i], strlen(names[i]) - 4);
			if (!seen) {
				int quiet = !say;
				if (quiet)
					util_set_quiet(2);
				u = user_load(path.s);
				if (quiet)
					util_set_quiet(0);
				if (u) {
					v = xrealloc(v, (size_t)(n + 1) * sizeof(*v));
					v[n++] = u;
				}
			}
			buf_release(&path);
			free(names[i]);
		}
		free(names);
	}
	*out = v;
	return n;
}

int user_judge(const struct tables *ts, int from, const struct user_module *u, const char *value, char *line,
	       size_t n)
{
	char flag[128];
	size_t rows = 0, failed = 0, r;
	int i;
	for (i = from; i < ts->n; i++) {
		struct table *t = ts->v[i];
		int c = table_find_col(t, "_fail");
		rows += t->nrows;
		for (r = 0; c >= 0 && r < t->nrows; r++) {
			const struct cell *cell = table_cell(t, r, c);
			failed += !cell->null && (cell->is_real ? cell->d != 0 : cell->i != 0);
		}
	}
	user_flag_name(flag, sizeof(flag), u->m.gate.name);
	snprintf(line, n, "%s: %zu of %zu row%s fail --%s%s%s: %s", u->m.name, failed, rows, rows == 1 ? "" : "s", flag,
		 value ? "=" : "", value ? value : "", failed ? "FAIL" : "ok");
	return failed > 0;
}

void user_drop_fail(const struct tables *ts, int from)
{
	int i, c;
	for (i = from; i < ts->n; i++)
		if ((c = table_find_col(ts->v[i], "_fail")) >= 0)
			table_drop_col(ts->v[i], c);
}

void user_flag_name(char *buf, size_t n, const char *param)
{
	size_t i;
	snprintf(buf, n, "%s", param);
	for (i = 0; buf[i]; i++)
		if (buf[i] == '_')
			buf[i] = '-';
}
