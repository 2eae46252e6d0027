/* shim.c - LD_PRELOAD fault injection for the commit tests.  Counts the
 * calls that change a directory or make data durable (rename, renameat,
 * link, linkat, unlink, unlinkat, fsync, fdatasync) and, as the
 * environment says:
 *   CKPT_FAULT_KILL=N      the N-th such call sends the process signal
 *                          CKPT_FAULT_SIG (default 9, SIGKILL) first
 *   CKPT_FAULT_FAIL=F:N:E  the N-th call of function F (one of those, or a
 *                          read at an offset: pread) fails with errno E
 *                          (a number, or EPERM, EIO, EXDEV, ENOSPC, EMLINK)
 *   CKPT_FAULT_OFF_MAIN=1  only calls from threads other than the main one
 *                          count (a worker's reads)
 *   CKPT_FAULT_SLOW_MAIN=U the main thread's reads of 64 KiB or more (a
 *                          slab's) wait U microseconds first, so that a
 *                          worker reads some however slowly it combines
 *                          (under sanitizers)
 *   CKPT_FAULT_LOG=FILE    "fired" is appended to FILE when either happens
 * Only for tests: never linked into the programs. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long steps, calls;

static void fired(void)
{
	const char *log = getenv("CKPT_FAULT_LOG");
	int fd = log ? open(log, O_WRONLY | O_CREAT | O_APPEND, 0644) : -1;

	if (fd >= 0) {
		(void)!write(fd, "fired\n", 6);
		close(fd);
	}
}

static int errno_named(const char *s)
{
	static const struct { const char *name; int e; } names[] = {
		{"EPERM", EPERM}, {"EIO", EIO}, {"EXDEV", EXDEV}, {"ENOSPC", ENOSPC},
		{"EMLINK", EMLINK}, {"EACCES", EACCES}, {"EROFS", EROFS},
	};

	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(s, names[i].name) == 0)
			return names[i].e;
	return atoi(s);
}

/* 0 to go on, else the errno the call fails with (a read: not a step
 * CKPT_FAULT_KILL counts). */
static int fault(const char *fn)
{
	const char *kill_at = strcmp(fn, "pread") ? getenv("CKPT_FAULT_KILL") : NULL;
	const char *fail = getenv("CKPT_FAULT_FAIL");
	const char *sig = getenv("CKPT_FAULT_SIG");
	char name[32];
	long n;
	char e[32];

	if (getenv("CKPT_FAULT_OFF_MAIN") && gettid() == getpid())
		return 0;
	if (kill_at && ++steps == atol(kill_at)) {
		fired();
		kill(getpid(), sig ? atoi(sig) : SIGKILL);
	}
	if (fail && sscanf(fail, "%31[^:]:%ld:%31s", name, &n, e) == 3 &&
	    strcmp(name, fn) == 0 && __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST) == n) {
		fired();
		return errno_named(e);
	}
	return 0;
}

#define NEXT(ret, fn, params) \
	static ret (*next_##fn) params; \
	if (!next_##fn) \
		next_##fn = (ret(*) params)dlsym(RTLD_NEXT, #fn); \
	if ((e = fault(#fn))) { \
		errno = e; \
		return -1; \
	}

int rename(const char *a, const char *b)
{
	int e;
	NEXT(int, rename, (const char *, const char *));
	return next_rename(a, b);
}

int renameat(int da, const char *a, int db, const char *b)
{
	int e;
	NEXT(int, renameat, (int, const char *, int, const char *));
	return next_renameat(da, a, db, b);
}

int link(const char *a, const char *b)
{
	int e;
	NEXT(int, link, (const char *, const char *));
	return next_link(a, b);
}

int linkat(int da, const char *a, int db, const char *b, int flags)
{
	int e;
	NEXT(int, linkat, (int, const char *, int, const char *, int));
	return next_linkat(da, a, db, b, flags);
}

int unlink(const char *a)
{
	int e;
	NEXT(int, unlink, (const char *));
	return next_unlink(a);
}

int unlinkat(int d, const char *a, int flags)
{
	int e;
	NEXT(int, unlinkat, (int, const char *, int));
	return next_unlinkat(d, a, flags);
}

int fsync(int fd)
{
	int e;
	NEXT(int, fsync, (int));
	return next_fsync(fd);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	int e;
	NEXT(ssize_t, pread, (int, void *, size_t, off_t));
	if (getenv("CKPT_FAULT_SLOW_MAIN") && n >= 65536 && gettid() == getpid())
		usleep((useconds_t)atol(getenv("CKPT_FAULT_SLOW_MAIN")));
	return next_pread(fd, buf, n, off);
}

int fdatasync(int fd)
{
	int e;
	NEXT(int, fdatasync, (int));
	return next_fdatasync(fd);
}
