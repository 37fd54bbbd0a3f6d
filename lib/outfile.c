#include "outfile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A temporary file on the list the signal handler walks. */
struct node {
	struct node *next, *prev;
	char *tmp;
};

static struct node *volatile temps;	/* the temporary files not yet renamed or removed */
static char caught[4096];		/* "PROG: interrupted: WHAT\n" */
static size_t caught_len;
static const int caught_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NCAUGHT (sizeof(caught_signals) / sizeof(caught_signals[0]))

/* Hold SIGINT, SIGTERM and SIGHUP in this thread (the mask before into *old). */
static void hold(sigset_t *old)
{
	sigset_t set;
	size_t i;
	sigemptyset(&set);
	for (i = 0; i < NCAUGHT; i++)
		sigaddset(&set, caught_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static void release(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

void outfile_remove_all(void)
{
	struct node *n;
	for (n = temps; n; n = n->next)
		unlink(n->tmp);
}

static void on_signal(int sig)
{
	ssize_t unused;
	outfile_remove_all();
	unused = write(STDERR_FILENO, caught, caught_len);
	(void)unused;
	_exit(128 + sig);
}

void outfile_catch_signals(const char *what)
{
	struct sigaction sa;
	size_t i;
	int n = snprintf(caught, sizeof(caught), "%s: interrupted: %s\n", util_progname(), what);
	caught_len = n < 0 ? 0 : (size_t)n < sizeof(caught) ? (size_t)n : sizeof(caught) - 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask);	/* one handler at a time */
	for (i = 0; i < NCAUGHT; i++)
		sigaction(caught_signals[i], &sa, NULL);
}

/* After the outputs are in place an interrupt has nothing left to undo: the default actions again. */
static void uncatch_signals(void)
{
	size_t i;
	if (!caught_len)
		return;
	for (i = 0; i < NCAUGHT; i++)
		signal(caught_signals[i], SIG_DFL);
}

static void list_add(struct outfile *o)
{
	struct node *n = xcalloc(1, sizeof(*n));
	sigset_t old;
	util_at_oom(outfile_remove_all);	/* out of memory, the temporary files go too */
	n->tmp = o->tmp;
	hold(&old);
	n->next = temps;
	if (n->next)
		n->next->prev = n;
	temps = n;
	release(&old);
	o->node = n;
}

static void list_remove(struct outfile *o)
{
	struct node *n = o->node;
	sigset_t old;
	if (!n)
		return;
	hold(&old);
	if (n->prev)
		n->prev->next = n->next;
	else
		temps = n->next;
	if (n->next)
		n->next->prev = n->prev;
	release(&old);
	free(n);
	o->node = NULL;
}

/*
 * Where the output goes: the path, or a symbolic link's target, into o->path; 1 when that is a regular
 * file or nothing yet (write a temporary file), 0 when it is something else (write it in place). *mode:
 * the mode of the file replaced, or -1 for a new one.
 */
static int resolve(struct outfile *o, const char *path, int *mode)
{
	struct stat st;
	*mode = -1;
	if (lstat(path, &st)) {
		o->path = xstrdup(path);
		return errno == ENOENT;
	}
	if (S_ISLNK(st.st_mode)) {
		char *real = realpath(path, NULL);
		if (!real || stat(real, &st) || !S_ISREG(st.st_mode)) {
			free(real);
			o->path = xstrdup(path);
			return 0;
		}
		o->path = real;
	} else {
		o->path = xstrdup(path);
		if (!S_ISREG(st.st_mode))
			return 0;
	}
	*mode = (int)(st.st_mode & 07777);
	return 1;
}

/* Make o's temporary file beside o->path: ".NAME.XXXXXX.tmp"; its descriptor, or -1 with errno set. */
static int make_temp(struct outfile *o, int mode)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static unsigned counter;
	const char *slash = strrchr(o->path, '/');
	size_t dirlen = slash ? (size_t)(slash - o->path) + 1 : 0;
	uint64_t h = fnv1a(FNV1A_INIT, o->path, strlen(o->path));
	int tries, fd = -1, i;
	for (tries = 0; tries < 100 && fd < 0; tries++) {
		struct buf b;
		int64_t t = now_ns();
		pid_t pid = getpid();
		unsigned c = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
		h = fnv1a(h, &t, sizeof(t));
		h = fnv1a(h, &pid, sizeof(pid));
		h = fnv1a(h, &c, sizeof(c));
		buf_init(&b);
		buf_add(&b, o->path, dirlen);
		buf_addf(&b, ".%s.", o->path + dirlen);
		for (i = 0; i < 6; i++)
			buf_addch(&b, chars[(h >> (i * 6)) % (sizeof(chars) - 1)]);
		buf_addstr(&b, ".tmp");
		fd = open(b.s, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0) {
			int e = errno;
			buf_release(&b);
			errno = e;
			if (e != EEXIST)
				return -1;
			continue;
		}
		if (mode >= 0 && fchmod(fd, (mode_t)mode)) {
			int e = errno;
			close(fd);
			unlink(b.s);
			buf_release(&b);
			errno = e;
			return -1;
		}
		o->tmp = b.s;
	}
	return fd;
}

/* outfile_open and outfile_reserve: fd >= 0 asks for a stream. */
static int start(struct outfile *o, const char *path, int stream)
{
	sigset_t old;
	int mode, fd;
	memset(o, 0, sizeof(*o));
	if (!resolve(o, path, &mode)) {
		if (stream && !(o->f = fopen(o->path, "w"))) {
			error("%s: cannot write: %s", path, strerror(errno));
			free(o->path);
			o->path = NULL;
			return -1;
		}
		return 0;
	}
	hold(&old);	/* a signal between the file's making and its listing would leave it behind */
	if ((fd = make_temp(o, mode)) < 0) {
		int e = errno;
		release(&old);
		error("%s: cannot write: %s", path, strerror(e));
		free(o->path);
		o->path = NULL;
		return -1;
	}
	list_add(o);
	release(&old);
	if (!stream) {
		close(fd);
		return 0;
	}
	if (!(o->f = fdopen(fd, "w"))) {
		error("%s: cannot write: %s", path, strerror(errno));
		close(fd);
		outfile_abort(o);
		return -1;
	}
	return 0;
}

int outfile_open(struct outfile *o, const char *path)
{
	return start(o, path, 1);
}

int outfile_reserve(struct outfile *o, const char *path)
{
	return start(o, path, 0);
}

const char *outfile_name(const struct outfile *o)
{
	return o->tmp ? o->tmp : o->path;
}

static void empty(struct outfile *o)
{
	list_remove(o);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
}

void outfile_abort(struct outfile *o)
{
	if (!o)
		return;
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp)
		unlink(o->tmp);
	empty(o);
}

/* The temporary file's bytes on disk before it takes the path's place; 0, or -1 with errno set. */
static int sync_file(const char *name)
{
	int fd = open(name, O_RDONLY | O_CLOEXEC), rc;
	if (fd < 0)
		return -1;
	rc = fsync(fd);
	if (rc && (errno == EINVAL || errno == EROFS))	/* a file system that cannot sync (a pipe's) */
		rc = 0;
	close(fd);
	return rc;
}

int outfile_commit_all(struct outfile *v, size_t n)
{
	sigset_t old;
	size_t i;
	int rc = 0;
	for (i = 0; i < n && !rc; i++)
		if (v[i].path && v[i].f) {
			int bad = ferror(v[i].f);
			if (fclose(v[i].f) || bad)
				rc = error("%s: write error: %s", v[i].path, bad ? "cannot write the stream" : strerror(errno));
			v[i].f = NULL;
		}
	for (i = 0; i < n && !rc; i++)
		if (v[i].tmp && sync_file(v[i].tmp))
			rc = error("%s: write error: %s", v[i].path, strerror(errno));
	hold(&old);
	for (i = 0; i < n && !rc; i++) {
		if (v[i].tmp && rename(v[i].tmp, v[i].path))
			rc = error("%s: cannot replace it: %s", v[i].path, strerror(errno));
		else
			empty(&v[i]);
	}
	if (!rc)
		uncatch_signals();
	release(&old);
	for (i = 0; i < n; i++)
		outfile_abort(&v[i]);
	return rc;
}

int outfile_commit(struct outfile *o)
{
	return outfile_commit_all(o, 1);
}
