/*
 * outfile: output files written whole or not at all. An output is written to a temporary file in the
 * directory of its path (".NAME.XXXXXX.tmp", made as open(2) makes NAME: mode 0666 less the umask, or the
 * mode of the file it replaces) and renamed over the path once complete. A failure, an out-of-memory exit
 * (util's out_of_memory calls outfile_remove_all) or SIGINT, SIGTERM or SIGHUP after outfile_catch_signals
 * removes the temporary file and leaves the path as it was. A path that is no regular file (a FIFO,
 * /dev/stdout, a dangling symbolic link) is written in place: there is nothing to keep.
 *
 * Ownership: struct outfile is the caller's; outfile_open and outfile_reserve fill it, outfile_commit and
 * outfile_abort close its FILE and free its strings. The temporary names are also on a list the signal
 * handler reads; signals are held while it changes.
 */
#ifndef GPUPROF_OUTFILE_H
#define GPUPROF_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

struct outfile {
	char *path;	/* where the output goes in the end (a symbolic link's target) */
	char *tmp;	/* the temporary file being written, NULL when writing path itself */
	FILE *f;	/* outfile_open's stream; NULL after outfile_reserve */
	void *node;	/* its entry on the list of temporaries */
};

/* A temporary file for path, open for writing in o->f; 0, or -1 with a message ("PATH: cannot write"). */
int outfile_open(struct outfile *o, const char *path);
/*
 * A temporary file for path, made and closed, for code that opens files by name (zlib, libxlsxwriter):
 * write to outfile_name(o). 0, or -1 with a message.
 */
int outfile_reserve(struct outfile *o, const char *path);
/* The name to write to: the temporary file, or the path itself when it is no regular file. */
const char *outfile_name(const struct outfile *o);
/*
 * Close o->f (when open), flush the temporary file to disk and rename it over the path. 0, or -1 with a
 * message (a write error on the stream included), the temporary removed. Either way o is emptied.
 */
int outfile_commit(struct outfile *o);
/* Close and remove the temporary file, leaving the path as it was; o is emptied. NULL-safe, idempotent. */
void outfile_abort(struct outfile *o);
/*
 * Commit n outfiles at once (their streams already closed), with SIGINT, SIGTERM and SIGHUP held so that
 * an interrupt cannot leave some renamed and others not. 0, or -1 with a message: those not yet renamed
 * are removed. Either way every one is emptied.
 */
int outfile_commit_all(struct outfile *v, size_t n);
/*
 * From now on SIGINT, SIGTERM and SIGHUP remove every temporary file, print "PROG: interrupted: WHAT" and
 * exit with 128 + the signal's number. WHAT is copied (say what was left: "r.html left as it was").
 */
void outfile_catch_signals(const char *what);
/* Remove every temporary file now (async-signal-safe: a signal handler's or an out-of-memory exit's). */
void outfile_remove_all(void);

#endif
