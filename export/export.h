/*
 * export: the sessions of a session.db as files a warehouse bulk-loads, one gzipped part per table and
 * session (TABLE/session=<uuid>/part-0.ndjson.gz or .csv.gz), with the loader of the target beside them
 * (load.sql for PostgreSQL, load.sh for ClickHouse). Rows are streamed from SQLite into zlib: memory stays
 * bounded whatever the session.
 *
 * Ownership: the targets are static rows; export_run reads opts and keeps nothing of it. A loader gets an
 * export_done whose strings the exporter owns, valid during that call only. Every message goes through
 * error(); export_exit_code says which exit code the last failure calls for.
 */
#ifndef GPUPROF_EXPORT_H
#define GPUPROF_EXPORT_H

#include <stdio.h>

struct export_done;

enum export_format {
	EXPORT_NDJSON,	/* one JSON object a line (ClickHouse JSONEachRow) */
	EXPORT_CSV	/* RFC 4180 with a header line (PostgreSQL COPY ... CSV HEADER) */
};

/* One target of --to: its name, file format and loader. */
struct export_target {
	const char *name;
	enum export_format format;
	const char *loader;	/* the loader's file name in the export directory, NULL when none */
	/* Write the loader of what was exported into out (dir: the export directory, absolute); 0 or -1. */
	int (*write_loader)(FILE *out, const char *dir, const struct export_done *done);
	const char *help;
};

/* One part file written: its table, session uuid, path under the export directory and header columns. */
struct export_part {
	const char *table;
	const char *session;	/* the session's uuid */
	const char *path;	/* relative to the export directory, characters [A-Za-z0-9._%=/-] only */
	const char *columns;	/* comma-separated, as in the part's header */
};

/* What an export wrote: every table (sessions first), and the parts in session order, then table order. */
struct export_done {
	const char *const *tables;
	int ntables;
	const struct export_part *parts;
	int nparts;
};

extern const struct export_target export_targets[];	/* ends with a row whose name is NULL */

struct export_opts {
	const char *db;		/* the session database */
	const char *dir;	/* the export directory, made if missing */
	const char *session;	/* a session id or uuid; NULL: every session */
	const struct export_target *target;
	int quiet;		/* no summary line on stderr */
};

const struct export_target *export_target_find(const char *name);
/*
 * Export; 0, 1 when every session was exported but rows of no session were left out (with a warning), or
 * -1 with a message (export_exit_code then says EXIT_DATA, EXIT_SYSTEM or EXIT_USAGE).
 */
int export_run(const struct export_opts *o);
int export_exit_code(void);

/* The loaders (export/loaders.c). */
int export_load_sql(FILE *out, const char *dir, const struct export_done *done);
int export_load_sh(FILE *out, const char *dir, const struct export_done *done);

#endif
