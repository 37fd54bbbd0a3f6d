/*
 * analyses: the table of analyses, made from the headers of their modules (analyze/NAME.sql, embedded; the
 * build checks every header first, scripts/modcheck.c), and the built-in options and gates those headers
 * name: what is behavior stays here, the C parsers of options and the judges of gates. Adding an analysis
 * is adding its file; adding a built-in option, a row of builtin_options here (script_bind binds it).
 */
#include "analysis.h"
#include "embed.h"
#include "module.h"
#include "util.h"

#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void analysis_opts_init(struct analysis_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threshold = 0.05;
	o->min_delta = 10000;
	o->min_calls = 1;
}

static int take_baseline(struct analysis_opts *o, const char *arg)
{
	o->baseline = arg;
	return 0;
}

static int take_base_session(struct analysis_opts *o, const char *arg)
{
	o->base_id = arg;
	return 0;
}

/* "5%", "5" or "2.5%" as a fraction (0.05). */
static int take_threshold(struct analysis_opts *o, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || v < 0 || !isfinite(v) || (*end && strcmp(end, "%")))
		return -1;
	o->threshold = v / 100.0;
	o->threshold_given = 1;
	return 0;
}

/* "10us", "1.5ms", "2s", "500ns" or "500" (ns) as nanoseconds. */
static int take_min_delta(struct analysis_opts *o, const char *arg)
{
	return parse_duration(arg, &o->min_delta);
}

static int take_min_calls(struct analysis_opts *o, const char *arg)
{
	int64_t n;
	if (parse_i64(arg, strlen(arg), &n) || n < 0)
		return -1;
	o->min_calls = n;
	return 0;
}

/* A size (parse_size: bytes, 1GiB, 1GB), 0 when left out. */
static int take_leak_limit(struct analysis_opts *o, const char *arg)
{
	int64_t n = 0;
	if (arg && parse_size(arg, &n))
		return -1;
	o->limit = n;
	return 0;
}

/* Grams of CO2e per kWh: a number, 0 or more. */
static int take_carbon(struct analysis_opts *o, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end || v < 0 || !isfinite(v))
		return -1;
	o->carbon_intensity = v;
	o->carbon_given = 1;
	return 0;
}

/* --fail-above: a size (parse_size: "40GiB", "40G", "40GB", bytes) or a share of the device's memory, "90%". */
static int take_fail_above(struct analysis_opts *o, const char *arg)
{
	size_t n = strlen(arg);
	char *end;
	double v;
	if (n && arg[n - 1] == '%') {
		v = strtod(arg, &end);
		if (end != arg + n - 1 || !(*arg >= '0' && *arg <= '9') || !isfinite(v) || v <= 0)
			return -1;
		o->share = v / 100.0;
		return 0;
	}
	o->share = 0;
	return parse_size(arg, &o->limit);
}

/* The growth analysis's severities, in order; index 1.. is --fail-on-growth's level. */
static const char *const severities[] = { "none", "low", "medium", "high" };

static int severity_level(const char *name)
{
	size_t i;
	for (i = 0; name && i < sizeof(severities) / sizeof(severities[0]); i++)
		if (!strcmp(name, severities[i]))
			return (int)i;
	return -1;
}

/* --fail-on-growth: low, medium or high. */
static int take_growth_level(struct analysis_opts *o, const char *arg)
{
	int level = severity_level(arg);
	if (level < 1)
		return -1;
	o->limit = level;
	return 0;
}

static int take_by_shape(struct analysis_opts *o, const char *arg)
{
	(void)arg;
	o->by_shape = 1;
	return 0;
}

static int take_fold_backward(struct analysis_opts *o, const char *arg)
{
	(void)arg;
	o->fold_backward = 1;
	return 0;
}

static int take_nothing(struct analysis_opts *o, const char *arg)
{
	(void)o;
	(void)arg;
	return 0;
}

#define MORE "\n                            "	/* --help: the option's text goes on on the next line */

static const struct analysis_option opt_baseline = {
	"baseline", required_argument, "BASE.db", "the baseline database (default NEW.db itself)", "", 0,
	take_baseline };
static const struct analysis_option opt_base_session = {
	"base-session", required_argument, "ID",
	"the baseline session; default the newest of BASE.db, or with one" MORE "database the session before the new one",
	"", 0, take_base_session };
static const struct analysis_option opt_threshold = {
	"threshold", required_argument, "PCT",
	"relative change of the median that counts (default 5%; trend: of" MORE
	"the total against the median of earlier sessions)",
	"needs a percentage such as 5%", 1, take_threshold };
static const struct analysis_option opt_min_delta = {
	"min-delta", required_argument, "TIME",
	"absolute change of the median that counts, ns/us/ms/s (default 10us)",
	"needs a time such as 10us (ns, us, ms, s)", 0, take_min_delta };
static const struct analysis_option opt_min_calls = {
	"min-calls", required_argument, "N", "groups with fewer calls on both sides are unchanged (default 1)",
	"needs a count", 0, take_min_calls };
static const struct analysis_option opt_fail_on_leak = {
	"fail-on-leak", optional_argument, "[SIZE]",
	"exit 1 when more than SIZE (bytes, 1GiB, 1GB; default 0) are" MORE
	"unfreed, or when a device's events have no addresses (leaks unknown)",
	"takes a size such as 1048576, 1MiB or 1MB", 0, take_leak_limit };
const struct analysis_option opt_carbon_intensity = {
	"carbon-intensity", required_argument, "G_PER_KWH",
	"grams of CO2e per kWh of the grid that powered the run (no" MORE "default): adds co2e_g",
	"needs grams per kWh, a number such as 400", 0, take_carbon };
static const struct analysis_option opt_fail_above = {
	"fail-above", required_argument, "SIZE|PCT",
	"exit 1 when a device's peak is above SIZE (40GiB, 40G, 40GB," MORE
	"bytes) or above PCT of its memory (90%)",
	"needs a size such as 40GiB or a share of the device's memory such as 90%", 0, take_fail_above };
static const struct analysis_option opt_fail_on_growth = {
	"fail-on-growth", required_argument, "LEVEL",
	"exit 1 when a device's growth is of severity LEVEL" MORE "(low, medium or high) or worse",
	"needs low, medium or high", 0, take_growth_level };
static const struct analysis_option opt_fail_on_regression = {
	"fail-on-regression", no_argument, NULL,
	"exit 1 when any kernel, range, copy kind, API call or op" MORE "regressed; one-line verdict on stderr", "", 0,
	take_nothing };

/*
 * Unfreed bytes of the leaks table over the limit. A device whose events have no addresses leaked an
 * unknown amount: the gate cannot pass on it, and says so.
 */
static int judge_leaks(const struct tables *ts, const struct analysis_opts *o, char *line, size_t n)
{
	struct table *t = ts->v[0];
	int col = table_find_col(t, "bytes"), scol = table_find_col(t, "status"), failed;
	int64_t leaked = 0, unknown = 0;
	char amount[32], why[96] = "";
	size_t r;
	for (r = 0; r < t->nrows; r++) {
		const struct cell *st = table_cell(t, r, scol);
		if (!st->null && !strncmp(st->s, "unknown", 7))
			unknown++;
		else
			leaked += table_cell(t, r, col)->i;
	}
	fmt_bytes(amount, sizeof(amount), (double)leaked);
	failed = unknown || leaked > o->limit;
	if (unknown)
		snprintf(why, sizeof(why), "unknown on %lld device%s without addresses; ", (long long)unknown,
			 unknown > 1 ? "s" : "");
	snprintf(line, n, "leaks: %s%s unfreed (%lld bytes)%s, limit %lld bytes: %s", why, amount, (long long)leaked,
		 unknown ? " on the others" : "", (long long)o->limit, failed ? "FAIL" : "ok");
	return failed;
}

/*
 * Any regression past the thresholds, in any of compare's tables: the verdict compare.sql puts in its first
 * table's title ("Kernels against the baseline: 2 regressed, ...: FAIL"), over every row.
 */
static int judge_regressions(const struct tables *ts, const struct analysis_opts *o, char *line, size_t n)
{
	const char *title = ts->n ? ts->v[0]->title : NULL, *verdict = title ? strstr(title, ": ") : NULL;
	size_t len;
	(void)o;
	if (!verdict) {
		snprintf(line, n, "compare: no verdict: FAIL");
		return 1;
	}
	verdict += 2;
	snprintf(line, n, "compare: %s", verdict);
	len = strlen(verdict);
	return len >= 4 && !strcmp(verdict + len - 4, "FAIL");
}

/* "device 0", "device 0 (rank 1, node7)": row r's GPU as table t names it (rank and host where it has them). */
static void gpu_label(struct table *t, size_t r, char *out, size_t n)
{
	int cdev = table_find_col(t, "device"), crank = table_find_col(t, "rank"), chost = table_find_col(t, "host");
	const struct cell *dev = cdev >= 0 ? table_cell(t, r, cdev) : NULL;
	const struct cell *rank = crank >= 0 ? table_cell(t, r, crank) : NULL;
	const struct cell *host = chost >= 0 ? table_cell(t, r, chost) : NULL;
	char at[160] = "";
	if (rank && !rank->null && host && !host->null)
		snprintf(at, sizeof(at), " (rank %lld, %s)", (long long)rank->i, host->s);
	else if (rank && !rank->null)
		snprintf(at, sizeof(at), " (rank %lld)", (long long)rank->i);
	else if (host && !host->null)
		snprintf(at, sizeof(at), " (%s)", host->s);
	if (dev && !dev->null)
		snprintf(out, n, "device %lld%s", (long long)dev->i, at);
	else
		snprintf(out, n, "an unknown device%s", at);
}

/*
 * Each device's peak against --fail-above: a size, or a share of the device's memory (total_bytes). With
 * a share, a device whose memory is unknown cannot pass, and the verdict says so.
 */
static int judge_memory(const struct tables *ts, const struct analysis_opts *o, char *line, size_t n)
{
	struct table *t = ts->v[0];
	int cpeak = table_find_col(t, "peak_bytes"), ctotal = table_find_col(t, "total_bytes");
	int over = 0, unknown = 0, failed;
	size_t r, worst = 0;
	double worst_v = -1;
	char peak[32], total[32], limit[32], gpu[200] = "", why[96] = "";
	for (r = 0; r < t->nrows; r++) {
		const struct cell *p = table_cell(t, r, cpeak), *m = ctotal >= 0 ? table_cell(t, r, ctotal) : NULL;
		double v;
		if (o->share > 0 && (!m || m->null || m->i <= 0)) {
			unknown++;
			continue;
		}
		v = o->share > 0 ? (double)p->i / (double)m->i : (double)p->i;
		over += o->share > 0 ? v > o->share : p->i > o->limit;
		if (v > worst_v) {
			worst_v = v;
			worst = r;
		}
	}
	failed = over || unknown;
	if (unknown)
		snprintf(why, sizeof(why), "; memory unknown on %d device%s", unknown, unknown > 1 ? "s" : "");
	if (worst_v < 0) {
		snprintf(line, n, "memory: %s: %s", t->nrows ? "no device's memory is known, a share cannot be judged" :
			 "no allocations recorded", failed ? "FAIL" : "ok");
		return failed;
	}
	gpu_label(t, worst, gpu, sizeof(gpu));
	fmt_bytes(peak, sizeof(peak), (double)table_cell(t, worst, cpeak)->i);
	if (o->share > 0) {
		fmt_bytes(total, sizeof(total), (double)table_cell(t, worst, ctotal)->i);
		snprintf(line, n, "memory: highest peak %s on %s, %.1f%% of its %s; %d of %zu device%s above %g%%%s: %s",
			 peak, gpu, 100.0 * worst_v, total, over, t->nrows, t->nrows > 1 ? "s" : "", 100.0 * o->share, why,
			 failed ? "FAIL" : "ok");
	} else {
		fmt_bytes(limit, sizeof(limit), (double)o->limit);
		snprintf(line, n, "memory: highest peak %s (%lld bytes) on %s; %d of %zu device%s above %s (%lld bytes): %s",
			 peak, (long long)table_cell(t, worst, cpeak)->i, gpu, over, t->nrows, t->nrows > 1 ? "s" : "",
			 limit, (long long)o->limit, failed ? "FAIL" : "ok");
	}
	return failed;
}

/*
 * Each device's growth severity against --fail-on-growth: the worst one named, with its verdict and what
 * it left allocated at the end (a severity may come from that alone: growth.sql's worth).
 */
static int judge_growth(const struct tables *ts, const struct analysis_opts *o, char *line, size_t n)
{
	struct table *t = ts->v[0];
	int csev = table_find_col(t, "severity"), cverdict = table_find_col(t, "verdict"),
	    cleak = table_find_col(t, "leaked_bytes"), worst_level = -1, at = 0;
	size_t r, worst = 0;
	char gpu[200], leaked[64] = "";
	const struct cell *lc;
	for (r = 0; r < t->nrows; r++) {
		const struct cell *c = table_cell(t, r, csev);
		int level = severity_level(c->null ? NULL : c->s);
		at += level >= o->limit;
		if (level > worst_level) {
			worst_level = level;
			worst = r;
		}
	}
	if (worst_level < 0) {
		snprintf(line, n, "growth: no memory series to judge, limit %s: ok", severities[o->limit]);
		return 0;
	}
	gpu_label(t, worst, gpu, sizeof(gpu));
	lc = cleak >= 0 ? table_cell(t, worst, cleak) : NULL;
	if (lc && !lc->null && lc->i > 0) {
		char b[32];
		fmt_bytes(b, sizeof(b), (double)lc->i);
		snprintf(leaked, sizeof(leaked), ", %s still allocated at the end", b);
	}
	snprintf(line, n, "growth: worst %s on %s (%s%s); %d of %zu device%s at %s or worse: %s",
		 severities[worst_level], gpu, table_cell(t, worst, cverdict)->null ? "" : table_cell(t, worst, cverdict)->s,
		 leaked, at, t->nrows, t->nrows > 1 ? "s" : "", severities[o->limit], at ? "FAIL" : "ok");
	return at > 0;
}

static const struct analysis_option opt_by_shape = {
	"by-shape", no_argument, NULL,
	"a row per op name, Input Dims and Input type (key_averages'" MORE "group_by_input_shape)", "", 0,
	take_by_shape };
static const struct analysis_option opt_fold_backward = {
	"fold-backward", no_argument, NULL,
	"add each backward op's figures to its forward op's row" MORE "(op_links, else the same sequence number)",
	"", 0, take_fold_backward };

static const struct gate leak_gate = { &opt_fail_on_leak, judge_leaks };
static const struct gate memory_gate = { &opt_fail_above, judge_memory };
static const struct gate growth_gate = { &opt_fail_on_growth, judge_growth };
static const struct gate regression_gate = { &opt_fail_on_regression, judge_regressions };

/* The built-in options a header's `-- option:` lines name (min_delta for --min-delta), and the gates. */
static const struct analysis_option *const builtin_options[] = {
	&opt_baseline, &opt_base_session, &opt_threshold, &opt_min_delta, &opt_min_calls, &opt_carbon_intensity,
	&opt_by_shape, &opt_fold_backward, NULL
};
static const struct gate *const builtin_gates[] = { &leak_gate, &memory_gate, &growth_gate, &regression_gate, NULL };

/* Whether a header's name (min_delta) is an option's (min-delta). */
static int same_name(const char *header, const char *option)
{
	for (; *header && *option; header++, option++)
		if (*header == '-' || (*header != *option && !(*header == '_' && *option == '-')))
			return 0;
	return !*header && !*option;
}

const struct analysis_option *analysis_builtin_option(const char *name)
{
	const struct analysis_option *const *p;
	for (p = builtin_options; *p; p++)
		if (same_name(name, (*p)->name))
			return *p;
	return NULL;
}

/* The names of the built-in options (gates: 1, the gates' options) as headers give them, into b. */
static void builtin_names(struct buf *b, int gates)
{
	size_t i;
	char *p;
	for (i = 0; gates ? builtin_gates[i] != NULL : builtin_options[i] != NULL; i++)
		buf_addf(b, "%s%s", i ? ", " : "", gates ? builtin_gates[i]->option->name : builtin_options[i]->name);
	for (p = b->s; *p; p++)
		if (*p == '-')
			*p = '_';
}

static const struct gate *builtin_gate(const char *name)
{
	const struct gate *const *g;
	for (g = builtin_gates; *g; g++)
		if (same_name(name, (*g)->option->name))
			return *g;
	return NULL;
}

/*
 * The order of the analyses in --list and --help (the report orders its sections by their `section`). An
 * analysis not named here comes after these, by name.
 */
static const char *const list_order[] = {
	"summary", "problems", "oom", "devices", "hotspots", "ops", "kernexec", "flops", "launch", "classes", "memcpy",
	"sync", "api", "ranges", "idle", "streams", "gaps", "memory", "leaks", "peak", "growth", "stalls",
	"stall_kernels", "stall_pcs", "ranks", "collectives", "metrics", "energy", "host", "overhead", "compare", "trend",
};

/* The shipped modules (analyses and preludes): each header and its text. They live until exit. */
struct shipped {
	struct module m;
	const char *text;
};
static struct shipped *shipped;
static int nshipped;

static const struct analysis no_analyses[] = { { .name = NULL } };
const struct analysis *analyses = no_analyses;

static const struct shipped *shipped_find(const char *name)
{
	int i;
	for (i = 0; i < nshipped; i++)
		if (!strcmp(shipped[i].m.name, name))
			return &shipped[i];
	return NULL;
}

/* A walk of a module's includes: what runs before it, in order, and the modules being walked (cycles). */
#define MAX_INCLUDE_DEPTH 32
struct walk {
	struct analysis_include *v;
	int n;
	const char *stack[MAX_INCLUDE_DEPTH];
	int depth;
};

/* Add m's includes to w, each after its own includes, each once; 0, or -1 with a FILE:LINE message. */
static int includes_add(struct walk *w, const struct module *m, const char *text)
{
	int i, k;
	for (i = 0; i < m->nincludes; i++) {
		const char *name = m->includes[i];
		const struct shipped *s = shipped_find(name);
		int line = module_decl_line(text, "include", name);
		if (!s)
			return error("%s:%d: include '%s': there is no such module (analyze/%s.sql)", m->file, line, name,
				     name);
		if (s->m.is_analysis)
			return error("%s:%d: include '%s': an analysis, not a prelude ('-- module:')", m->file, line, name);
		for (k = 0; k < w->depth; k++)
			if (!strcmp(w->stack[k], name))
				return error("%s:%d: include '%s': it includes %s again (a cycle)", m->file, line, name,
					     m->name);
		for (k = 0; k < w->n && strcmp(w->v[k].file, s->m.file); k++)
			;
		if (k < w->n)
			continue;
		if (w->depth == MAX_INCLUDE_DEPTH)
			return error("%s:%d: include '%s': includes nested deeper than %d", m->file, line, name,
				     MAX_INCLUDE_DEPTH);
		w->stack[w->depth++] = name;
		if (includes_add(w, &s->m, s->text))
			return -1;
		w->depth--;
		w->v = xrealloc(w->v, (size_t)(w->n + 1) * sizeof(*w->v));
		w->v[w->n].file = s->m.file;
		w->v[w->n++].text = s->text;
	}
	return 0;
}

static void colspec_from(struct colspec *c, const struct module_column *mc)
{
	c->key = mc->key;
	c->title = mc->title;
	c->type = mc->type;
	c->flags = mc->flags;
}

/* Table k of m as a struct table_spec into spec (its arrays allocated). */
static void table_spec_from(struct table_spec *spec, const struct module_table *t)
{
	struct colspec *cols = xcalloc((size_t)t->ncols, sizeof(*cols));
	int c;
	for (c = 0; c < t->ncols; c++)
		colspec_from(&cols[c], &t->cols[c]);
	spec->name = t->key;
	spec->title = t->title;
	spec->cols = cols;
	spec->ncols = t->ncols;
	spec->vertical = t->vertical;
	if (t->pivot) {
		struct colspec *pivot = xcalloc(1, sizeof(*pivot));
		colspec_from(pivot, t->pivot);
		spec->pivot = pivot;
		for (c = 0; c < t->ncols && strcmp(t->cols[c].key, t->pivot_at); c++)
			;
		spec->pivot_at = c;	/* (module_parse checked that it is one of them) */
	}
}

/* Free what analysis_make allocated for a (its includes, options and table specs) and zero it. */
static void analysis_parts_free(struct analysis *a)
{
	int i;
	free((void *)a->includes);
	free((void *)a->options);
	for (i = 0; a->tables && i < a->ntables; i++) {
		free((void *)a->tables[i].cols);
		free((void *)a->tables[i].pivot);
	}
	free((void *)a->tables);
	memset(a, 0, sizeof(*a));
}

/*
 * Module m (text: its file's) as analysis a: its includes resolved among the shipped modules, its options
 * and gate among the built-in ones. A shipped module's options and gate must all be built in; a user's
 * others are left to its module (m->params, m->gate). 0, or -1 with a FILE:LINE message.
 */
static int analysis_make(struct analysis *a, const struct module *m, const char *text, int is_shipped)
{
	struct walk w;
	const struct analysis_option **opts;
	struct table_spec *specs;
	int i, n = 0;
	memset(a, 0, sizeof(*a));
	memset(&w, 0, sizeof(w));
	a->name = m->name;
	a->sql = m->file;
	a->text = text;
	a->help = m->title;
	a->doc = m->doc;
	a->usage = m->usage;
	a->module = m;
	a->section = m->section;
	a->section_top = m->section_top;
	a->multi_gpu = m->multi_gpu;
	a->needs_baseline = m->needs_baseline;
	a->kernel_cache = m->kernel_cache;
	w.stack[w.depth++] = m->name;
	if (includes_add(&w, m, text)) {
		free(w.v);
		memset(a, 0, sizeof(*a));
		return -1;
	}
	a->includes = w.v;
	a->nincludes = w.n;
	opts = xcalloc((size_t)m->nparams + 1, sizeof(*opts));
	for (i = 0; i < m->nparams; i++) {
		const struct analysis_option *b = analysis_builtin_option(m->params[i].name);
		if (b) {
			opts[n++] = b;
		} else if (is_shipped) {
			struct buf names;
			buf_init(&names);
			builtin_names(&names, 0);
			error("%s:%d: option '%s' is none of the built-in options (%s)", m->file,
			      module_decl_line(text, "option", m->params[i].name), m->params[i].name, names.s);
			buf_release(&names);
			free(opts);
			analysis_parts_free(a);
			return -1;
		}
	}
	if (n)
		a->options = opts;
	else
		free(opts);
	if (m->gate.name && !(a->gate = builtin_gate(m->gate.name)) && is_shipped) {
		struct buf names;
		buf_init(&names);
		builtin_names(&names, 1);
		error("%s:%d: gate '%s' is none of the built-in gates (%s)", m->file,
		      module_decl_line(text, "gate", m->gate.name), m->gate.name, names.s);
		buf_release(&names);
		analysis_parts_free(a);
		return -1;
	}
	if (m->ntables) {
		specs = xcalloc((size_t)m->ntables, sizeof(*specs));
		for (i = 0; i < m->ntables; i++)
			table_spec_from(&specs[i], &m->tables[i]);
		a->ntables = m->ntables;
	} else {
		/* No table lines: each result statement makes a table, its columns its own (struct table_spec.open). */
		struct colspec *cols = xcalloc((size_t)m->ncolumns + 1, sizeof(*cols));
		specs = xcalloc(1, sizeof(*specs));
		for (i = 0; i < m->ncolumns; i++)
			colspec_from(&cols[i], &m->columns[i]);
		specs->name = m->name;
		specs->title = m->title;
		specs->cols = cols;
		specs->ncols = m->ncolumns;
		specs->open = 1;
		a->ntables = 1;
	}
	a->tables = specs;
	return 0;
}

/* The place of analysis name in list_order, or past its end. */
static int list_place(const char *name)
{
	int i;
	for (i = 0; i < NCOLS(list_order) && strcmp(list_order[i], name); i++)
		;
	return i;
}

static int by_list_order(const void *x, const void *y)
{
	const struct analysis *a = x, *b = y;
	int pa = list_place(a->name), pb = list_place(b->name);
	return pa != pb ? (pa < pb ? -1 : 1) : strcmp(a->name, b->name);
}

/* The table analyses_load is making (static: reachable while it is), and its rows made so far. */
static struct analysis *loading;
static int nloading;

/* analyses_load's failure: the rows made so far freed; -1. */
static int load_failed(void)
{
	int i;
	for (i = 0; i < nloading; i++)
		analysis_parts_free(&loading[i]);
	free(loading);
	loading = NULL;
	nloading = 0;
	return -1;
}

int analyses_load(int n, const char *const *files, const char *const *texts)
{
	struct analysis *table;
	int i, k, count = 0;
	if (!nshipped) {	/* (the empty table of a program that embeds no modules, modcheck) */
		free(shipped);
		if (analyses != no_analyses)
			free((void *)analyses);
		analyses = no_analyses;
	} else {
		return error("internal: the analyses are made once");
	}
	shipped = xcalloc((size_t)n + 1, sizeof(*shipped));
	nshipped = 0;
	for (i = 0; i < n; i++) {
		struct module *m = &shipped[nshipped].m;
		const char *base = strrchr(files[i], '/');
		size_t len;
		base = base ? base + 1 : files[i];
		len = strlen(base);
		if (module_parse(files[i], texts[i], m))
			return -1;
		shipped[nshipped++].text = texts[i];
		if (len < 5 || strcmp(base + len - 4, ".sql") || strlen(m->name) != len - 4 || strncmp(base, m->name, len - 4))
			return error("%s:%d: %s '%s' in a file of another name (a module NAME is the file NAME.sql)", files[i],
				     module_decl_line(texts[i], m->is_analysis ? "analysis" : "module", NULL),
				     m->is_analysis ? "analysis" : "module", m->name);
		for (k = 0; k < nshipped - 1; k++)
			if (!strcmp(shipped[k].m.name, m->name))
				return error("%s:1: a second module '%s' (the first is %s)", files[i], m->name, shipped[k].m.file);
		count += m->is_analysis;
	}
	loading = table = xcalloc((size_t)count + 1, sizeof(*table));
	for (i = nloading = 0; i < nshipped; i++)
		if (shipped[i].m.is_analysis) {
			if (analysis_make(&table[nloading], &shipped[i].m, shipped[i].text, 1))
				return load_failed();
			nloading++;
		}
	qsort(table, (size_t)count, sizeof(*table), by_list_order);
	for (i = 0; i < count; i++)
		for (k = 0; table[i].section && k < i; k++)
			if (table[k].section == table[i].section) {
				error("%s:%d: section %d is %s's too (each analysis has a place of its own)", table[i].sql,
				      module_decl_line(table[i].text, "section", NULL), table[i].section, table[k].name);
				return load_failed();
			}
	analyses = table;
	loading = NULL;
	return 0;
}

/* The analyses table from the embedded modules (analyze/NAME.sql), before main: the build checked them. */
__attribute__((constructor)) static void analyses_init(void)
{
	const struct embedded *e;
	const char **files = NULL, **texts = NULL;
	int n = 0;
	for (e = embedded_files; e->name; e++) {
		if (strncmp(e->name, "analyze/", 8) || strchr(e->name + 8, '/') || !ends_with(e->name, ".sql"))
			continue;
		files = xrealloc(files, (size_t)(n + 1) * sizeof(*files));
		texts = xrealloc(texts, (size_t)(n + 1) * sizeof(*texts));
		files[n] = e->name;
		texts[n++] = e->data;
	}
	if (analyses_load(n, files, texts)) {
		error("internal: the embedded analyses' headers are malformed (the build checks them: make)");
		abort();
	}
	free(files);
	free(texts);
}

/* The analyses analysis_from_text made: kept, as they live until exit. */
static struct analysis **user;
static int nuser;

const struct analysis *analysis_from_text(const char *file, const char *text)
{
	struct module *m = xcalloc(1, sizeof(*m));
	struct analysis *a = xcalloc(1, sizeof(*a));
	char *copy = xstrdup(text);
	if (module_parse(file, copy, m))
		goto bad;
	if (!m->is_analysis) {
		error("%s:%d: module '%s' is a prelude ('-- module:'), not an analysis", file,
		      module_decl_line(copy, "module", NULL), m->name);
		goto bad;
	}
	if (analysis_make(a, m, copy, 0))
		goto bad;	/* (analysis_make freed what it made) */
	a->user = 1;
	user = xrealloc(user, (size_t)(nuser + 1) * sizeof(*user));
	user[nuser++] = a;
	return a;
bad:
	module_release(m);
	free(m);
	free(a);
	free(copy);
	return NULL;
}

int analysis_takes(const struct analysis *a, const struct analysis_option *opt)
{
	const struct analysis_option *const *p;
	if (a->gate && a->gate->option == opt)
		return 1;
	for (p = a->options; p && *p; p++)
		if (*p == opt)
			return 1;
	return 0;
}

const struct analysis *analysis_find(const char *name)
{
	const struct analysis *a;
	for (a = analyses; a->name; a++)
		if (!strcmp(a->name, name))
			return a;
	return NULL;
}

int analysis_set_param(struct analysis_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	const struct analysis_option *builtin;
	size_t n = eq ? (size_t)(eq - arg) : 0;
	char name[128];
	if (!eq || !n || n >= sizeof(name))
		return error("--opt needs NAME=VALUE, not '%s'", arg);
	memcpy(name, arg, n);
	name[n] = 0;
	if ((builtin = analysis_builtin_option(name)))
		return error("--opt %s: a built-in option; give it as --%s", arg, builtin->name);
	o->params = xrealloc(o->params, (size_t)(o->nparams + 1) * sizeof(*o->params));
	o->params[o->nparams++] = arg;
	return 0;
}

void tables_add(struct tables *ts, struct table *t)
{
	ts->v = xrealloc(ts->v, (size_t)(ts->n + 1) * sizeof(*ts->v));
	ts->v[ts->n++] = t;
}

void tables_free(struct tables *ts)
{
	int i;
	for (i = 0; i < ts->n; i++)
		table_free(ts->v[i]);
	free(ts->v);
	ts->v = NULL;
	ts->n = 0;
}
