/*
 * from_text: INTERIM analysis_from_text (analysis.h) for users' modules, until helper "modules" lands
 * its own in analyses.c: the module's header parsed (module.h), its tables declared by its table lines
 * or made by its statements, its first include as its prelude.
 */
#include "analysis.h"
#include "embed.h"
#include "module.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct colspec colspec_of(const struct module_column *c)
{
	struct colspec s = { c->key, c->title, c->type, c->flags };
	return s;
}

const struct analysis *analysis_from_text(const char *file, const char *text)
{
	struct module *m = xcalloc(1, sizeof(*m));
	struct analysis *a;
	struct table_spec *ts;
	int i, k;
	if (module_parse(file, text, m)) {
		free(m);
		return NULL;
	}
	if (!m->is_analysis) {
		error("%s: a module ('-- module: %s'), not an analysis: only an analysis runs on its own", file, m->name);
		module_release(m);
		free(m);
		return NULL;
	}
	a = xcalloc(1, sizeof(*a));
	a->name = m->name;
	a->sql = m->file;
	a->help = m->title ? m->title : m->name;
	a->usage = m->usage;
	a->text = text;
	a->module = m;
	a->section = m->section;
	a->section_top = m->section_top;
	a->multi_gpu = m->multi_gpu;
	a->needs_baseline = m->needs_baseline;
	a->kernel_cache = m->kernel_cache;
	if (m->nincludes) {
		struct buf name;
		buf_init(&name);
		buf_addf(&name, "analyze/%s.sql", m->includes[0]);
		if (!embed_get(name.s)) {
			error("%s: no module '%s' to include", file, m->includes[0]);
			buf_release(&name);
			return NULL;
		}
		a->prelude = xstrdup(name.s);
		buf_release(&name);
	}
	ts = xcalloc((size_t)m->ntables + 1, sizeof(*ts));
	for (i = 0; i < m->ntables; i++) {
		const struct module_table *mt = &m->tables[i];
		struct colspec *cols = xcalloc((size_t)mt->ncols + 1, sizeof(*cols));
		for (k = 0; k < mt->ncols; k++)
			cols[k] = colspec_of(&mt->cols[k]);
		ts[i].name = mt->key;
		ts[i].title = mt->title;
		ts[i].cols = cols;
		ts[i].ncols = mt->ncols;
		ts[i].vertical = mt->vertical;
		if (mt->pivot) {
			struct colspec *p = xcalloc(1, sizeof(*p));
			*p = colspec_of(mt->pivot);
			ts[i].pivot = p;
			for (k = 0; k < mt->ncols && mt->pivot_at && strcmp(mt->cols[k].key, mt->pivot_at); k++)
				;
			ts[i].pivot_at = k;
		}
	}
	a->tables = ts;
	a->ntables = m->ntables;
	return a;
}
