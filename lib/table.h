/*
 * table: the result-table model. Every analysis produces tables; every output format renders them.
 *
 * Ownership: a table owns its name, columns' strings and text cells (copied in). table_free frees all.
 * Renderers write to a FILE and return 0, or -1 on a write error.
 */
#ifndef GPUPROF_TABLE_H
#define GPUPROF_TABLE_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

enum col_type {
	C_INT,		/* plain integer (counts, ids) */
	C_NS,		/* integer or real nanoseconds: shown as time to people, raw ns to machines */
	C_TIME,		/* Unix-epoch nanoseconds: a UTC date and time to people, raw ns to machines */
	C_BYTES,	/* integer bytes */
	C_REAL,		/* real number */
	C_PCT,		/* percentage, 0..100 */
	C_TEXT		/* text */
};

struct column {
	char *key;		/* JSON/CSV key, e.g. "total_ns" */
	char *title;		/* heading for people, e.g. "Total" */
	enum col_type type;
};

struct cell {
	int null;
	int is_real;		/* numeric cells: d holds the value, else i */
	int64_t i;
	double d;
	char *s;		/* C_TEXT */
};

struct table {
	char *name;		/* machine name: "hotspots" */
	char *title;		/* for people: "Top kernels by total GPU time" */
	char *note;		/* NULL, or one line for people under the title (text, Markdown, HTML) */
	char *footer;		/* NULL, or one line after the rows: a verdict (text, Markdown, HTML) */
	int quiet;		/* gpuprof-report: left out (JSON: its key with no rows, keys being stable) */
	int vertical;		/* text: one "title: value" line per column (single-row tables) */
	int ncols;
	struct column *cols;
	struct cell *cells;	/* row-major, nrows * ncols */
	size_t nrows, alloc;
};

/* (Titles, the table's and its columns', are kept as table_visible shows them; keys as valid UTF-8.) */
struct table *table_new(const char *name, const char *title);
void table_free(struct table *t);
/* Add a column; returns its index. */
int table_col(struct table *t, const char *key, const char *title, enum col_type type);
/* A column declaration, so an analysis lists its columns as a table. */
struct colspec {
	const char *key, *title;
	enum col_type type;
	int flags;		/* C_HIDE_NULL, C_HIDE_GROUP */
};
#define C_HIDE_NULL 1		/* script_run leaves the column out when it is NULL in every row */
#define C_HIDE_GROUP 2		/* ... leaves out the table's C_HIDE_GROUP columns, all of them, when they all are */
#define NCOLS(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* Add n columns. */
void table_cols(struct table *t, const struct colspec *c, int n);
/* Remove column col and its cells. */
void table_drop_col(struct table *t, int col);
/* Start a new row (all cells NULL); returns its index. */
size_t table_row(struct table *t);
/* Keep the first n rows, freeing the rest (nothing happens when the table has n rows or fewer). */
void table_truncate(struct table *t, size_t n);
struct cell *table_cell(struct table *t, size_t row, int col);
void table_set_int(struct table *t, size_t row, int col, int64_t v);
void table_set_real(struct table *t, size_t row, int col, double v);
void table_set_text(struct table *t, size_t row, int col, const char *s);
/* Index of column `key`, or -1. */
int table_find_col(const struct table *t, const char *key);

struct render_opts {
	int wide;		/* text: never shorten names */
	int width;		/* text: width to fit names in; 0 = never shorten */
	int has_origin;		/* JSON: origin is known; each C_TIME key gets a NAME_offset_ns twin */
	int64_t origin;		/* JSON: the session's start, epoch ns (sessions.start_ns) */
};

/*
 * Output formats: one row each in formats[] (table.c), the only place a format is declared. Both
 * gpuprof-analyze and gpuprof-report parse --format, name the formats in --help and messages, and pick
 * their renderers from these rows; a program takes the formats whose `programs` has its bit.
 */
enum fmt { FMT_TEXT, FMT_CSV, FMT_JSON, FMT_MD, FMT_HTML, FMT_XLSX, FMT_TRACE, FMT_N };
#define FMT_ANALYZE 1u		/* gpuprof-analyze takes it */
#define FMT_REPORT 2u		/* gpuprof-report takes it */

struct format {
	enum fmt id;
	const char *name;	/* --format NAME; the first row is the default */
	const char *alias;	/* another name it answers to, or NULL */
	const char *ext;	/* extension of the files it writes: ".csv" */
	const char *more_ext;	/* other extensions of its files, space-separated, or NULL: ".htm" */
	unsigned programs;	/* FMT_ANALYZE | FMT_REPORT */
	int to_dir;		/* report -o PATH: a directory, a file per table (else one file) */
	int needs_path;		/* report: a file of its own, -o PATH required */
	int table_filter;	/* report --table NAME renders that table alone */
	int events;		/* report: the session's events, not the analyses' tables (trace); it writes
				   -o PATH itself, "-" or none being standard output, and takes the event filters */
	/* One table, or NULL for formats that are whole documents only (html, xlsx). */
	int (*render)(FILE *out, const struct table *t, const struct render_opts *o);
	const char *sep;	/* between two tables on one stream */
	int keyed;		/* several tables on one stream: one object of them all by name, empty ones too */
};

extern const struct format formats[];	/* ended by a row with name NULL */
/* The format called (or aliased) `name` among those `program` takes, or NULL. */
const struct format *format_find(const char *name, unsigned program);
/*
 * The format a file name implies among those `program` takes: the one with the longest of its extensions
 * (ext, more_ext; ASCII case ignored) ending path, the first row on a tie; NULL when none does.
 */
const struct format *format_for_path(const char *path, unsigned program);
/* The length of f's longest extension that ends path, or 0 when none does. */
size_t format_ext_at(const struct format *f, const char *path);
/*
 * Append to b the names of the formats `program` takes (those `keep` keeps, all when it is NULL):
 * "text, csv, json, md". last_sep joins the last two ("text, csv, json or md"); first_note, unless NULL,
 * follows the first name ("text (default)").
 */
struct buf;
void format_names(struct buf *b, unsigned program, int (*keep)(const struct format *f), const char *last_sep,
		  const char *first_note);
/*
 * -f, --format FMT as a row of a program's options (options.h), the one place both programs take it:
 * the format program takes called FMT into *fmtp (NULL until given; the first row is the default).
 */
#define OPT_FORMAT(fmtp, program) \
	{ OPT_CALLBACK, 'f', "format", (fmtp), "FMT", format_option_help(program), 0, format_option, (program) }
struct opt;
/* OPT_FORMAT's callback: 0, or -1 after "unknown format 'x' (text, csv, json, md)". */
int format_option(const struct opt *opt, const char *arg);
/* OPT_FORMAT's help, "text (default), csv, json or md" (built once, kept until exit). */
const char *format_option_help(unsigned program);

/* The width text output should fit: $COLUMNS, else the terminal's, else 0 (not a terminal: no limit). */
int render_width(void);

int render_text(FILE *out, const struct table *t, const struct render_opts *o);
/*
 * The n names cut to at most max columns (8 or more) as text tables cut them: in the middle, and so that
 * two different names never look the same (a name that would is cut around where it differs, or shown
 * whole). Returns n malloc'ed strings; free them with table_cut_names_free.
 */
char **table_cut_names(const char *const *names, size_t n, int max);
void table_cut_names_free(char **shown, size_t n);
int render_csv(FILE *out, const struct table *t);
int render_md(FILE *out, const struct table *t);
/* render_md without the heading: the note, the rows, the footer. Cells longer than MD_CELL_MAX characters
   are cut in the middle (table_cut_middle), so a CI job summary's lines stay readable. */
#define MD_CELL_MAX 80
int render_md_rows(FILE *out, const struct table *t);
/*
 * s with Markdown's special characters escaped, line breaks as spaces and other control characters as
 * "\x1b" (table_visible), for a table cell or a line. A '&' stays as it is (GFM shows it so) but where it
 * would begin a character reference ("&amp;", "&#39;"), which GFM would decode: then "\&".
 */
void md_text(FILE *out, const char *s);
/* Whether s begins a character reference HTML and GFM decode: '&', a name or '#' and digits, ';'. */
int md_entity_at(const char *s);
/*
 * s into out (n bytes), whole when it has at most max characters (UTF-8), else its first two thirds and its
 * end joined by "...", max characters in all, cut on character boundaries: "void at::native::vecto...(int)".
 */
void table_cut_middle(char *out, size_t n, const char *s, size_t max);
/*
 * One table as a JSON array of row objects (no trailing newline). With o->has_origin, each C_TIME column
 * KEY_ns is followed by KEY_offset_ns, its offset from o->origin (exact in a double; NULL stays null);
 * o may be NULL.
 */
int render_json(FILE *out, const struct table *t, const struct render_opts *o);
/* The key of C_TIME column `key`'s offset twin into out: "start_ns" -> "start_offset_ns". */
void table_offset_key(char *out, size_t n, const char *key);

/*
 * A numeric cell as machines read it (CSV, JSON, the exact value in HTML), appended to b: integers and
 * integral reals below 9e15 whole, other reals with 17 significant digits.
 */
struct buf;
void table_raw(struct buf *b, const struct cell *c);

/*
 * A cell as people read it (text, Markdown, HTML): "1.234 ms", "12.30 MB", a UTC time, "-" for NULL, text
 * as table_visible shows it.
 */
void table_human(char *out, size_t n, const struct column *col, const struct cell *c);
/*
 * s into out (n bytes) as people may be shown it on a terminal or in a document: each control character
 * as a visible escape ("\x1b", utf8_visible), so a name cannot move the cursor, clear the screen or set
 * a terminal's title, and widths count what is shown.
 */
void table_visible(char *out, size_t n, const char *s);

/* Human forms used by text and Markdown: "1.234 ms", "12.3 MB". out must hold 32 bytes. */
void fmt_ns(char *out, size_t n, double ns);
void fmt_bytes(char *out, size_t n, double bytes);

#endif
