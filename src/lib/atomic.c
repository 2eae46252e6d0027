/* atomic.c - output files written beside their target and moved into place
 * only when complete; temporaries removed on error, exit and signals. */
#include "temp.h"
#include "sink.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ckpt_sink {
	struct ckpt_temp t;
};

/* ---- removal of temporaries on signals --------------------------------- */

/* Outputs written at once: one more is refused. */
#define MAX_PENDING 512
static char *volatile pending[MAX_PENDING];

static void on_signal(int sig)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i])
			unlink(pending[i]); /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

void ckpt_out_cleanup(void)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i])
			unlink(pending[i]);
}

/* SIGPIPE: "-o -" into a pipe that closed early; the others are what
 * terminals, shells and batch schedulers send */
static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2,
                           SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ};

void ckpt_temp_hold_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

void ckpt_temp_release_signals(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

static char shared_tmp[4096];

void ckpt_out_note_shared(const char *tmp)
{
	snprintf(shared_tmp, sizeof shared_tmp, "%s", tmp);
}

void ckpt_out_cleanup_shared(void)
{
	if (shared_tmp[0])
		unlink(shared_tmp);
}

static int track(char *path)
{
	static int installed;

	if (!installed) {
		atexit(ckpt_out_cleanup); /* exit before a commit, too */
		struct sigaction sa;

		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
			struct sigaction old;

			/* only where the signal would kill the process as it is:
			 * "ignored" (nohup, background jobs) stays, and so does a
			 * handler the program using the library has set */
			if (sigaction(sigs[i], NULL, &old) == 0 &&
			    !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
				sigaction(sigs[i], &sa, NULL);
		}
		installed = 1;
	}
	for (int i = 0; i < MAX_PENDING; i++)
		if (!pending[i]) {
			pending[i] = path;
			return i;
		}
	return -1;
}

static void untrack(int slot)
{
	if (slot >= 0)
		pending[slot] = NULL;
}

/* ---- paths ------------------------------------------------------------------ */

const char *ckpt_path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

char *ckpt_path_dir(const char *path)
{
	size_t n = (size_t)(ckpt_path_base(path) - path);
	char *d = malloc(n + 1);

	if (d)
		snprintf(d, n + 1, "%s", path);
	return d;
}

char *ckpt_path_join(const char *dir, const char *file)
{
	size_t n = strlen(dir) + strlen(file) + 1;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s%s", dir, file);
	return p;
}

/* ---- temporaries ---------------------------------------------------------- */

static char *temp_beside(const char *target)
{
	const char *slash = strrchr(target, '/');
	const char *base = slash ? slash + 1 : target;
	size_t dirlen = slash ? (size_t)(slash - target) + 1 : 0;
	char *tmp = malloc(dirlen + strlen(base) + 16);

	if (tmp)
		sprintf(tmp, "%.*s.%s.XXXXXX", (int)dirlen, target, base);
	return tmp;
}

static char *temp_in_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");
	char *tmp;

	if (!dir || !*dir)
		dir = "/tmp";
	if ((tmp = malloc(strlen(dir) + 24)))
		sprintf(tmp, "%s/ckpt-stdout.XXXXXX", dir);
	return tmp;
}

/* A name for an open descriptor: /dev/stdout, /dev/fd/N, /proc/self/fd/N,
 * or a link into /proc. */
static int is_fd_alias(const char *target)
{
	char link[64];
	ssize_t n = readlink(target, link, sizeof link - 1);

	if (n > 0)
		link[n] = 0;
	return strncmp(target, "/dev/fd/", 8) == 0 || strncmp(target, "/dev/std", 8) == 0 ||
	       strncmp(target, "/proc/", 6) == 0 || (n > 0 && strncmp(link, "/proc/", 6) == 0);
}

/* A device, a FIFO (/dev/null, a named pipe) or a descriptor's name
 * (/dev/stdout): written into as it is, never replaced. */
static int is_stream(const char *target)
{
	struct stat st;

	return stat(target, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) ||
	                                  S_ISSOCK(st.st_mode) || is_fd_alias(target));
}

/* -o LINK: the file the symbolic link points to is the target (replaced
 * with -f, the link kept); a dangling link is refused. */
static int follow_link(struct ckpt_temp *t, const char *target)
{
	char *real = realpath(target, NULL);

	if (!real)
		return ckpt_seterr("%s: a symbolic link to nothing (name its target, or "
		                   "remove it)", target);
	free(t->target);
	t->target = real;
	return 0;
}

/* A replaced target keeps its permissions (and owner, where allowed); a
 * group that cannot be kept loses its rights rather than pass them on. */
static void keep_mode(int fd, const struct stat *st)
{
	struct stat now;
	mode_t mode = st->st_mode & 0777;

	if (fchown(fd, st->st_uid, st->st_gid) < 0 &&
	    (fstat(fd, &now) < 0 || now.st_gid != st->st_gid))
		mode &= ~(mode_t)S_IRWXG;
	fchmod(fd, mode);
}

const char *ckpt_temp_name(const struct ckpt_temp *t)
{
	return t->target ? t->target : "(stdout)";
}

void ckpt_temp_release(struct ckpt_temp *t)
{
	if (t->fd > 1)
		close(t->fd);
	if (t->tmp)
		unlink(t->tmp);
	untrack(t->slot);
	free(t->target);
	free(t->tmp);
	t->target = t->tmp = NULL;
	t->fd = t->slot = -1;
}

/* Check target and create the temporary: beside the target, or for
 * standard output in TMPDIR (via_tmpdir) or none at all (fd 1). */
int ckpt_temp_open(struct ckpt_temp *t, const char *target, int force, int via_tmpdir,
                     const char *what)
{
	int to_stdout = strcmp(target, "-") == 0;
	struct stat st;
	mode_t mask;

	memset(t, 0, sizeof *t);
	t->fd = t->slot = -1;
	t->force = force;
	if (to_stdout && what && isatty(1))
		return ckpt_seterr("refusing to write %s to a terminal (use -o FILE, "
		                   "or a pipe)", what);
	if (to_stdout && !via_tmpdir) {
		t->fd = 1;
		return 0;
	}
	if (!to_stdout && is_stream(target)) {
		t->stream = 1;
		if (!(t->target = strdup(target)))
			return ckpt_seterr("%s: out of memory", target);
		if (!via_tmpdir) {
			if ((t->fd = open(target, O_WRONLY)) < 0)
				return ckpt_seterr_errno(target);
			return 0;
		}
	}
	if (!to_stdout && !t->stream) {
		int exists = lstat(target, &st) == 0;

		if (!force && exists)
			return ckpt_seterr("%s: already exists (use -f to replace it)", target);
		if (!(t->target = strdup(target)))
			return ckpt_seterr("%s: out of memory", target);
		if (exists && S_ISLNK(st.st_mode) && follow_link(t, target) < 0)
			return -1;
		exists = stat(t->target, &st) == 0;
		if (exists && S_ISDIR(st.st_mode))
			return ckpt_seterr("%s: is a directory", target);
		target = t->target;
		if (!exists)
			st.st_mode = 0;
	}
	if (!(t->tmp = to_stdout || t->stream ? temp_in_tmpdir() : temp_beside(target)))
		return ckpt_seterr("%s: out of memory", ckpt_temp_name(t));
	if ((t->fd = mkstemp(t->tmp)) < 0) {
		int e = errno;

		if (to_stdout || t->stream) {
			*strrchr(t->tmp, '/') = 0; /* temp_in_tmpdir() made DIR/NAME */
			ckpt_seterr("%s: cannot create a temporary file in %s (TMPDIR): %s",
			            ckpt_temp_name(t), t->tmp, strerror(e));
		} else {
			ckpt_seterr("%s: cannot create a file there: %s", ckpt_temp_name(t), strerror(e));
		}
		free(t->tmp);
		t->tmp = NULL;
		return -1;
	}
	if ((t->slot = track(t->tmp)) < 0)
		return ckpt_seterr("%s: more than %d outputs at once", ckpt_temp_name(t),
		                   MAX_PENDING);
	if (t->target && !t->stream && st.st_mode) {
		keep_mode(t->fd, &st);
	} else {
		mask = umask(0);
		umask(mask);
		fchmod(t->fd, 0666 & ~mask); /* mkstemp makes 0600; be an ordinary file */
	}
	return 0;
}

int ckpt_write_all(int fd, const void *buf, size_t n, const char *what)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return ckpt_seterr("%s: write error: %s", what, strerror(errno));
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int ckpt_pwrite_all(int fd, const void *buf, size_t n, uint64_t off, const char *what)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return ckpt_seterr("%s: write error: %s", what, strerror(errno));
		p += w, n -= (size_t)w, off += (uint64_t)w;
	}
	return 0;
}

/* The finished temporary into standard output or a stream target. */
static int copy_out(const struct ckpt_temp *t)
{
	char buf[1 << 16];
	int fd = open(t->tmp, O_RDONLY), to = t->target ? open(t->target, O_WRONLY) : 1;
	ssize_t n = 0;

	if (fd < 0 || to < 0) {
		ckpt_seterr_errno(fd < 0 ? t->tmp : t->target);
		n = -2;
	}
	while (n >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
		if (ckpt_write_all(to, buf, (size_t)n, ckpt_temp_name(t)) < 0)
			n = -2;
	if (n == -1)
		ckpt_seterr_errno(t->tmp);
	if (fd >= 0)
		close(fd);
	if (to > 1)
		close(to);
	return n < 0 ? -1 : 0;
}

/* Close the temporary, its bytes on the disk first where asked (t->sync). */
static int close_temp(struct ckpt_temp *t)
{
	int rc = 0;

	if (t->sync && t->tmp && ckpt_sync_path(t->fd > 1 ? t->fd : -1, t->tmp) < 0)
		rc = ckpt_seterr("%s: write error: %s", ckpt_temp_name(t), strerror(errno));
	if (t->fd > 1 && close(t->fd) < 0 && rc == 0)
		rc = ckpt_seterr("%s: write error: %s", ckpt_temp_name(t), strerror(errno));
	t->fd = -1;
	return rc;
}

int ckpt_sync_path(int fd, const char *path)
{
	int own = fd < 0 ? open(path, O_RDONLY) : -1, rc;

	if (fd < 0 && own < 0)
		return -1;
	rc = fsync(fd < 0 ? own : fd);
	if (own >= 0) {
		int e = errno;

		close(own);
		errno = e;
	}
	return rc;
}

char *ckpt_temp_keep(struct ckpt_temp *t)
{
	char *tmp;

	if (close_temp(t) < 0) {
		ckpt_temp_release(t);
		return NULL;
	}
	tmp = t->tmp;
	t->tmp = NULL; /* no longer removed on exit or signals */
	ckpt_temp_release(t);
	return tmp;
}

/* Put the finished temporary in place: rename() when replacing is allowed;
 * otherwise link(), which fails if the target appeared in the meantime. */
static int move_into_place(struct ckpt_temp *t)
{
	if (t->force) {
		if (rename(t->tmp, t->target) < 0)
			return ckpt_seterr("%s: cannot move into place: %s", t->target,
			                   strerror(errno));
		return 0;
	}
	if (link(t->tmp, t->target) == 0)
		return 0;
	if (errno == EEXIST)
		return ckpt_seterr("%s: already exists (use -f to replace it)", t->target);
	if (errno == EPERM || errno == ENOSYS || errno == EOPNOTSUPP) {
		struct stat st; /* no hard links here: check, then rename */

		if (lstat(t->target, &st) == 0)
			return ckpt_seterr("%s: already exists (use -f to replace it)",
			                   t->target);
		if (rename(t->tmp, t->target) == 0)
			return 0;
	}
	return ckpt_seterr("%s: cannot move into place: %s", t->target, strerror(errno));
}

/* Close the temporary (a late write error shows here, e.g. on NFS) and put
 * it in place; the temporary is gone afterwards either way. */
int ckpt_temp_commit(struct ckpt_temp *t)
{
	int rc = close_temp(t);

	if (rc == 0 && t->tmp)
		rc = t->target && !t->stream ? move_into_place(t) : copy_out(t);
	ckpt_temp_release(t);
	return rc;
}

/* ---- plain files ---------------------------------------------------------- */

static ckpt_sink *sink_open(const char *target, int force, int via_tmpdir,
                            const char *binary)
{
	ckpt_sink *s = calloc(1, sizeof *s);

	if (!s) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	if (ckpt_temp_open(&s->t, target, force, via_tmpdir, binary) < 0) {
		ckpt_sink_abort(s);
		return NULL;
	}
	return s;
}

ckpt_sink *ckpt_sink_open(const char *target, int force, const char *binary)
{
	return sink_open(target, force, 0, binary);
}

ckpt_sink *ckpt_sink_open_whole(const char *target, int force, const char *binary)
{
	return sink_open(target, force, 1, binary);
}

int ckpt_sink_fd(const ckpt_sink *s)
{
	return s->t.fd;
}

const char *ckpt_sink_name(const ckpt_sink *s)
{
	return ckpt_temp_name(&s->t);
}

int ckpt_sink_write(ckpt_sink *s, const void *buf, size_t n)
{
	return ckpt_write_all(s->t.fd, buf, n, ckpt_temp_name(&s->t));
}

int ckpt_sink_commit(ckpt_sink *s)
{
	int rc = ckpt_temp_commit(&s->t);

	free(s);
	return rc;
}

void ckpt_sink_abort(ckpt_sink *s)
{
	if (!s)
		return;
	ckpt_temp_release(&s->t);
	free(s);
}

