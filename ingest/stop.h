/*
 * stop: SIGINT, SIGTERM and SIGHUP in gpuprof-ingest.
 *
 * In the writer (stop_install): the first of them asks the program to stop (util_stop_set, so
 * util_stop_signal() says which): the sink and SQLite fail what they are doing, quietly, the open
 * transaction rolls back, and main removes what the run made, says one line and exits 128 + signal. A
 * second one ends the program at once: the paths armed (stop_arm) are removed first, then it dies of that
 * signal (a database's -journal is then left, as after SIGKILL, for the next opener to roll back).
 *
 * In a -j reader process (stop_reader): any of them, or SIGTERM when its parent dies (PR_SET_PDEATHSIG),
 * removes the paths armed and ends it with 128 + signal at once (it writes nothing but its spools).
 *
 * Ownership: armed paths are the caller's and must stay valid, unchanged, until disarmed or the process ends.
 */
#ifndef GPUPROF_STOP_H
#define GPUPROF_STOP_H

#include <sys/types.h>

/* Install the handlers; 0, or -1 with a message. */
int stop_install(void);
/*
 * Remove paths[0], paths[step], paths[2 * step], ... (n of them) when a signal ends the process at once.
 * A slot to disarm or to grow with stop_arm_count; -1 when every slot is taken (nothing armed).
 */
int stop_arm(char *const *paths, int n, int step);
/* Slot's count is now n (paths armed as they are made). */
void stop_arm_count(int slot, int n);
void stop_disarm(int slot);
/* hold 1: the three signals wait (blocked) until stop_hold(0) in this thread; around fork. */
void stop_hold(int hold);
/*
 * This process is a -j reader, forked from the writer: nothing the writer armed is removed here, and a
 * signal ends it at once. Its parent is `parent`: when that one has gone already, it ends now. Signals
 * held (stop_hold) are let through.
 */
void stop_reader(pid_t parent);

#endif
