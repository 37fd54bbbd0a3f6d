#include "names.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

int names_folded(const struct analysis_opts *o)
{
	return o->short_names || o->ngroups > 0;
}

/*
 * Does name match group g's expression? 1, 0, or -1 on a bad pattern (message printed). Each group's
 * expression is compiled, and its match data made, once per process (calls come from one thread).
 */
static int group_match(const struct analysis_opts *o, int g, const char *name)
{
	static pcre2_code **re;
	static pcre2_match_data **md;
	static int nre;
	const char *eq = strchr(o->groups[g], '=');
	if (!re) {
		re = xcalloc((size_t)o->ngroups, sizeof(*re));
		md = xcalloc((size_t)o->ngroups, sizeof(*md));
		nre = o->ngroups;
	}
	if (g >= nre || !eq)
		return error("--group needs NAME=REGEX, not '%s'", o->groups[g]);
	if (!re[g]) {
		int err;
		PCRE2_SIZE off;
		re[g] = pcre2_compile((PCRE2_SPTR)(eq + 1), PCRE2_ZERO_TERMINATED, PCRE2_UTF, &err, &off, NULL);
		if (!re[g]) {
			char msg[256];
			pcre2_get_error_message(err, (PCRE2_UCHAR *)msg, sizeof(msg));
			return error("--group '%s': %s at offset %zu", o->groups[g], msg, (size_t)off);
		}
		md[g] = pcre2_match_data_create_from_pattern(re[g], NULL);
	}
	return pcre2_match(re[g], (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0, md[g], NULL) >= 0;
}

int name_fold(const struct analysis_opts *o, const char *name, struct buf *out)
{
	int g;
	if (o->short_names)
		name_short(name, out);
	else {
		buf_reset(out);
		buf_addstr(out, name);
	}
	for (g = 0; g < o->ngroups; g++) {
		int m = group_match(o, g, out->s);
		if (m < 0)
			return -1;
		if (m) {
			const char *eq = strchr(o->groups[g], '=');
			buf_reset(out);
			buf_add(out, o->groups[g], (size_t)(eq - o->groups[g]));
			break;
		}
	}
	return 0;
}

int fold_load(sqlite3 *db, const struct analysis_opts *o, struct fold *f)
{
	sqlite3_stmt *st;
	struct buf folded;
	struct intmap by_hash = { 0 };	/* FNV-1a of a folded name -> its key */
	int rc;
	memset(f, 0, sizeof(*f));
	if (sqlite3_prepare_v2(db, "SELECT id, value FROM strings WHERE session_id = ?", -1, &st, NULL) != SQLITE_OK)
		return error("sqlite: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, o->session);
	buf_init(&folded);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t k;
		if (name_fold(o, (const char *)sqlite3_column_text(st, 1), &folded)) {
			rc = SQLITE_ERROR;
			break;
		}
		/*
		 * Its key, found by hash: folded names can be as many as the strings (PyTorch's range names
		 * carry a sequence number), so no search over the names seen.
		 */
		int64_t h = (int64_t)(fnv1a(FNV1A_INIT, folded.s, folded.len) | 1), key = 0, first = 0;
		if (intmap_get(&by_hash, h, &first) && !strcmp(f->names[first - 1], folded.s))
			key = first;
		else if (first)	/* another name with this hash (rare): search */
			for (k = 0; k < f->n && !key; k++)
				if (!strcmp(f->names[k], folded.s))
					key = (int64_t)k + 1;
		if (!key) {
			ALLOC_GROW(f->names, f->n + 1, f->alloc);
			f->names[f->n++] = xstrdup(folded.s);
			key = (int64_t)f->n;
			if (!first)
				intmap_put(&by_hash, h, key);
		}
		intmap_put(&f->key, sqlite3_column_int64(st, 0) + 1, key);
	}
	intmap_release(&by_hash);
	buf_release(&folded);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		fold_release(f);
		return -1;
	}
	return 0;
}

int64_t fold_key(void *f, int64_t id)
{
	int64_t k;
	return intmap_get(&((struct fold *)f)->key, id + 1, &k) ? k : 0;
}

const char *fold_name(const struct fold *f, int64_t key)
{
	return key >= 1 && (size_t)key <= f->n ? f->names[key - 1] : "(unknown)";
}

void fold_release(struct fold *f)
{
	size_t i;
	for (i = 0; i < f->n; i++)
		free(f->names[i]);
	free(f->names);
	intmap_release(&f->key);
	memset(f, 0, sizeof(*f));
}
