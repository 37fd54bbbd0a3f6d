/*
 * stop: SIGINT, SIGTERM and SIGHUP in gpuprof-ingest (stop.h says what each does). The handlers only set a
 * flag, remove files and end the process, all async-signal-safe (unlink, write, _exit, signal, raise,
 * sigprocmask, prctl); everything else happens on the program's own path, as after any failure.
 */
#include "stop.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define SLOTS 8

/* What a signal that ends the process at once removes: paths[0], paths[step], ... (n of them). */
static struct {
	char *const *volatile paths;
	volatile sig_atomic_t n, step, armed;
} slots[SLOTS];

static volatile sig_atomic_t in_reader;	/* a -j reader process */
static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
static char at_once[256];	/* what the writer says when a second signal ends it */
static size_t at_once_len;

static void remove_armed(void)
{
	int k, i;
	for (k = 0; k < SLOTS; k++)
		if (slots[k].armed)
			for (i = 0; i < slots[k].n; i++)
				unlink(slots[k].paths[(size_t)i * (size_t)slots[k].step]);
}

/* End the process now: the armed paths removed; a reader exits 128 + sig, the writer dies of sig. */
static void end_now(int sig)
{
	sigset_t set;
	remove_armed();
	if (in_reader)
		_exit(128 + sig);
	if (at_once_len) {
		ssize_t w = write(STDERR_FILENO, at_once, at_once_len);
		(void)w;	/* (nothing more to be done about a failed one) */
	}
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);	/* (not reached: sig's default action ends the process) */
}

static void on_signal(int sig)
{
	int saved = errno;
	if (in_reader || util_stop_signal())
		end_now(sig);
	util_stop_set(sig);
	errno = saved;
}

/* Handle sig with on_signal, unless it was ignored when the program began (nohup) and keep_ignored. */
static int handle(int sig, int keep_ignored)
{
	struct sigaction sa, old;
	size_t i;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		sigaddset(&sa.sa_mask, signals[i]);
	sa.sa_flags = 0;	/* no SA_RESTART: a read from a pipe or terminal ends with EINTR, to be stopped */
	if (sigaction(sig, NULL, &old))
		return error("cannot handle signal %d: %s", sig, strerror(errno));
	if (keep_ignored && old.sa_handler == SIG_IGN)
		return 0;
	if (sigaction(sig, &sa, NULL))
		return error("cannot handle signal %d: %s", sig, strerror(errno));
	return 0;
}

int stop_install(void)
{
	size_t i;
	int n = snprintf(at_once, sizeof(at_once), "%s: stopped at once by a second signal; a database's -journal "
			 "left behind is rolled back when the database is next opened\n", util_progname());
	at_once_len = n > 0 && (size_t)n < sizeof(at_once) ? (size_t)n : 0;
	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (handle(signals[i], 1))
			return -1;
	return 0;
}

int stop_arm(char *const *paths, int n, int step)
{
	int k;
	for (k = 0; k < SLOTS; k++)
		if (!slots[k].armed) {
			slots[k].paths = paths;
			slots[k].n = n;
			slots[k].step = step > 0 ? step : 1;
			slots[k].armed = 1;	/* last: a handler sees the slot whole or not at all */
			return k;
		}
	return -1;
}

void stop_arm_count(int slot, int n)
{
	if (slot >= 0 && slot < SLOTS)
		slots[slot].n = n;
}

void stop_disarm(int slot)
{
	if (slot >= 0 && slot < SLOTS)
		slots[slot].armed = 0;
}

void stop_hold(int hold)
{
	sigset_t set;
	size_t i;
	sigemptyset(&set);
	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		sigaddset(&set, signals[i]);
	pthread_sigmask(hold ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

void stop_reader(pid_t parent)
{
	int k;
	for (k = 0; k < SLOTS; k++)
		slots[k].armed = 0;
	in_reader = 1;
	if (util_stop_signal())
		_exit(128 + util_stop_signal());
	/* SIGTERM is how the writer (and its death) ends a reader: handled even where the writer ignores it. */
	handle(SIGTERM, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)	/* it died before prctl */
		_exit(128 + SIGTERM);
	stop_hold(0);
}
