/* out.c - atomic output and structure copying. */
#include "out.h"
#include "err.h"
#include "refs.h"
#include "slab.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A temporary file on its way to a target: what ckpt_out (HDF5) and
 * ckpt_sink (any bytes) share. */
struct temp {
	char *target;   /* NULL for standard output */
	char *tmp;      /* the temporary file being written, or NULL */
	int stream;     /* target is a device or FIFO: written, not replaced */
	int force;
	int fd;         /* open on tmp (or 1), or -1 */
	int slot;       /* index in the signal handler's list */
};

struct ckpt_out {
	struct temp t;
	hid_t fid;
	void *userblock;   /* the base's user block, written back at commit */
	size_t userblock_size;
};

struct ckpt_sink {
	struct temp t;
};

/* ---- removal of temporaries on signals --------------------------------- */

#define MAX_PENDING 512 /* ckpt-merge --split writes up to 256 at once */
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

static int track(char *path)
{
	static int installed;

	if (!installed) {
		atexit(ckpt_out_cleanup); /* exit before a commit, too */
		/* SIGPIPE: "-o -" into a pipe that closed early; the others are
		 * what terminals, shells and batch schedulers send */
		static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT,
		                           SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
		                           SIGXCPU, SIGXFSZ};
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
static int follow_link(struct temp *t, const char *target)
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

static const char *shown(const struct temp *t)
{
	return t->target ? t->target : "(stdout)";
}

static void temp_release(struct temp *t)
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
static int temp_open(struct temp *t, const char *target, int force, int via_tmpdir,
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
		return ckpt_seterr("%s: out of memory", shown(t));
	if ((t->fd = mkstemp(t->tmp)) < 0) {
		int e = errno;

		if (to_stdout || t->stream) {
			*strrchr(t->tmp, '/') = 0; /* temp_in_tmpdir() made DIR/NAME */
			ckpt_seterr("%s: cannot create a temporary file in %s (TMPDIR): %s",
			            shown(t), t->tmp, strerror(e));
		} else {
			ckpt_seterr("%s: cannot create a file there: %s", shown(t), strerror(e));
		}
		free(t->tmp);
		t->tmp = NULL;
		return -1;
	}
	t->slot = track(t->tmp);
	if (t->target && !t->stream && st.st_mode) {
		keep_mode(t->fd, &st);
	} else {
		mask = umask(0);
		umask(mask);
		fchmod(t->fd, 0666 & ~mask); /* mkstemp makes 0600; be an ordinary file */
	}
	return 0;
}

static int write_all(int fd, const void *buf, size_t n, const char *what)
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

/* The finished temporary into standard output or a stream target. */
static int copy_out(const struct temp *t)
{
	char buf[1 << 16];
	int fd = open(t->tmp, O_RDONLY), to = t->target ? open(t->target, O_WRONLY) : 1;
	ssize_t n = 0;

	if (fd < 0 || to < 0) {
		ckpt_seterr_errno(fd < 0 ? t->tmp : t->target);
		n = -2;
	}
	while (n >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
		if (write_all(to, buf, (size_t)n, shown(t)) < 0)
			n = -2;
	if (n == -1)
		ckpt_seterr_errno(t->tmp);
	if (fd >= 0)
		close(fd);
	if (to > 1)
		close(to);
	return n < 0 ? -1 : 0;
}

/* Put the finished temporary in place: rename() when replacing is allowed;
 * otherwise link(), which fails if the target appeared in the meantime. */
static int move_into_place(struct temp *t)
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
static int temp_commit(struct temp *t)
{
	int rc = 0;

	if (t->fd > 1 && close(t->fd) < 0)
		rc = ckpt_seterr("%s: write error: %s", shown(t), strerror(errno));
	t->fd = -1;
	if (rc == 0 && t->tmp)
		rc = t->target && !t->stream ? move_into_place(t) : copy_out(t);
	temp_release(t);
	return rc;
}

/* ---- plain files ---------------------------------------------------------- */

ckpt_sink *ckpt_sink_open(const char *target, int force, const char *binary)
{
	ckpt_sink *s = calloc(1, sizeof *s);

	if (!s) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	if (temp_open(&s->t, target, force, 0, binary) < 0) {
		ckpt_sink_abort(s);
		return NULL;
	}
	return s;
}

int ckpt_sink_fd(const ckpt_sink *s)
{
	return s->t.fd;
}

const char *ckpt_sink_name(const ckpt_sink *s)
{
	return shown(&s->t);
}

int ckpt_sink_write(ckpt_sink *s, const void *buf, size_t n)
{
	return write_all(s->t.fd, buf, n, shown(&s->t));
}

int ckpt_sink_commit(ckpt_sink *s)
{
	int rc = temp_commit(&s->t);

	free(s);
	return rc;
}

void ckpt_sink_abort(ckpt_sink *s)
{
	if (!s)
		return;
	temp_release(&s->t);
	free(s);
}

/* ---- HDF5 files ----------------------------------------------------------- */

/* HDF5's earliest file format limits an attribute to 64 KiB, which Keras'
 * layer_names exceeds on large models.  Objects that hold such attributes
 * are created in the 1.8 format (read by every HDF5 since 2008, h5py and
 * Keras included), which stores them densely -- only those: for all files
 * it would trip an HDF5 1.10 bug with groups of many links. */

static herr_t large_attr(hid_t loc, const char *name, const H5A_info_t *ai,
                         void *data)
{
	(void)loc, (void)name, (void)data;
	return ai->data_size > 60000 ? 1 : 0;
}

/* Whether the object has an attribute too large for the earliest format. */
static int needs_dense_attrs(hid_t obj)
{
	hsize_t idx = 0;

	return H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, large_attr, NULL) > 0;
}

/* Move the file of obj to the 1.8 format; returns whether it moved. */
static int newer_format(hid_t obj)
{
	hid_t f = H5Iget_file_id(obj), fapl;
	H5F_libver_t lo = H5F_LIBVER_V18, hi;
	int moved = 0;

	if (f < 0)
		return 0;
	if ((fapl = H5Fget_access_plist(f)) >= 0) {
		H5Pget_libver_bounds(fapl, &lo, &hi);
		H5Pclose(fapl);
	}
	if (lo < H5F_LIBVER_V18)
		moved = H5Fset_libver_bounds(f, H5F_LIBVER_V18, H5F_LIBVER_LATEST) >= 0;
	H5Fclose(f);
	return moved;
}

static int root_needs_dense(const ckpt_file *f)
{
	hid_t root = H5Gopen2(f->fid, "/", H5P_DEFAULT);
	int yes = root >= 0 && needs_dense_attrs(root);

	if (root >= 0)
		H5Gclose(root);
	return yes;
}

/* File creation properties like those of f, with its root group's link
 * creation order, which H5Fget_create_plist() does not report. */
static hid_t fcpl_like(const ckpt_file *f)
{
	hid_t fcpl = H5Fget_create_plist(f->fid);
	hid_t root = H5Gopen2(f->fid, "/", H5P_DEFAULT);
	hid_t gcpl = root >= 0 ? H5Gget_create_plist(root) : -1;
	unsigned order = 0;

	if (fcpl >= 0 && gcpl >= 0 && H5Pget_link_creation_order(gcpl, &order) >= 0)
		H5Pset_link_creation_order(fcpl, order);
	if (gcpl >= 0)
		H5Pclose(gcpl);
	if (root >= 0)
		H5Gclose(root);
	return fcpl;
}

/* The bytes of f's user block (HDF5 keeps its size, not its content). */
static int read_userblock(const ckpt_file *f, hid_t fcpl, ckpt_out *o)
{
	hsize_t size = 0;

	if (H5Pget_userblock(fcpl, &size) < 0 || size == 0 || size > f->size)
		return 0;
	if (!(o->userblock = malloc((size_t)size)))
		return ckpt_seterr("%s: out of memory", f->name);
	o->userblock_size = (size_t)size;
	if (f->image)
		memcpy(o->userblock, f->image, (size_t)size);
	else if (pread(f->fd, o->userblock, (size_t)size, 0) != (ssize_t)size)
		return ckpt_seterr_errno(f->name);
	return 0;
}

static int write_userblock(const ckpt_out *o)
{
	int fd;
	ssize_t n;

	if (!o->userblock_size)
		return 0;
	if ((fd = open(o->t.tmp, O_WRONLY)) < 0)
		return ckpt_seterr_errno(shown(&o->t));
	n = pwrite(fd, o->userblock, o->userblock_size, 0);
	if (close(fd) < 0 || n != (ssize_t)o->userblock_size)
		return ckpt_seterr("%s: write error: %s", shown(&o->t), strerror(errno));
	return 0;
}

ckpt_out *ckpt_out_open(const char *target, int force, const ckpt_file *like)
{
	ckpt_out *o = calloc(1, sizeof *o);
	hid_t fcpl = H5P_DEFAULT, fapl;

	if (!o) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	o->fid = -1;
	/* "-": HDF5 writes a file, which is then copied to standard output */
	if (temp_open(&o->t, target, force, 1, "an HDF5 file") < 0)
		goto fail;
	close(o->t.fd);
	o->t.fd = -1;
	if (like) {
		fcpl = fcpl_like(like);
		if (fcpl >= 0 && read_userblock(like, fcpl, o) < 0) {
			H5Pclose(fcpl);
			goto fail;
		}
	} else { /* a new file lists its variables in the order they are made */
		fcpl = H5Pcreate(H5P_FILE_CREATE);
		H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
	}
	fapl = H5Pcreate(H5P_FILE_ACCESS);
	if (like && root_needs_dense(like))
		H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
	o->fid = H5Fcreate(o->t.tmp, H5F_ACC_TRUNC, fcpl, fapl);
	H5Pclose(fapl);
	if (o->fid < 0)
		ckpt_seterr_h5("%s: cannot create an HDF5 file", shown(&o->t));
	if (fcpl >= 0)
		H5Pclose(fcpl);
	if (o->fid < 0)
		goto fail;
	return o;
fail:
	ckpt_out_abort(o);
	return NULL;
}

hid_t ckpt_out_fid(const ckpt_out *o)
{
	return o->fid;
}

int ckpt_out_commit(ckpt_out *o)
{
	herr_t rc = H5Fclose(o->fid);

	o->fid = -1;
	if (rc < 0) {
		ckpt_seterr_h5("%s: write error", shown(&o->t));
		ckpt_out_abort(o);
		return -1;
	}
	if (write_userblock(o) < 0) {
		ckpt_out_abort(o);
		return -1;
	}
	rc = temp_commit(&o->t);
	free(o->userblock);
	free(o);
	return rc;
}

void ckpt_out_abort(ckpt_out *o)
{
	if (!o)
		return;
	if (o->fid >= 0)
		H5Fclose(o->fid);
	temp_release(&o->t);
	free(o->userblock);
	free(o);
}

int ckpt_out_make_groups(hid_t fid, const char *path)
{
	char *p = strdup(path), *slash;
	hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
	int rc = 0;

	if (!p || gcpl < 0) {
		free(p);
		return ckpt_seterr("out of memory");
	}
	H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
	for (slash = strchr(p, '/'); slash && rc == 0; slash = strchr(slash + 1, '/')) {
		hid_t g;

		*slash = 0;
		if (H5Lexists(fid, p, H5P_DEFAULT) <= 0) {
			if ((g = H5Gcreate2(fid, p, H5P_DEFAULT, gcpl, H5P_DEFAULT)) < 0)
				rc = ckpt_seterr_h5("group '%s': cannot create", p);
			else
				H5Gclose(g);
		}
		*slash = '/';
	}
	H5Pclose(gcpl);
	free(p);
	return rc;
}

/* ---- copying structure --------------------------------------------------- */

struct attr_copy {
	hid_t dst;
	const char *what;
	const char *skip; /* an attribute not to copy, or NULL */
	int failed;
};

static herr_t copy_one_attr(hid_t loc, const char *name, const H5A_info_t *ai,
                            void *data)
{
	struct attr_copy *c = data;
	hid_t a = -1, t = -1, sp = -1, b = -1;
	hssize_t n;
	void *buf = NULL;
	int ok = 0;

	(void)ai;
	if (c->skip && strcmp(name, c->skip) == 0)
		return 0;
	if ((a = H5Aopen(loc, name, H5P_DEFAULT)) < 0 || (t = H5Aget_type(a)) < 0 ||
	    (sp = H5Aget_space(a)) < 0 || (n = H5Sget_simple_extent_npoints(sp)) < 0)
		goto out;
	/* Read and write in the attribute's own type: exact bytes for fixed
	 * types; HDF5 allocates (and we reclaim) variable-length strings. */
	if (!(buf = calloc((size_t)n ? (size_t)n : 1, H5Tget_size(t))))
		goto out;
	if (H5Aread(a, t, buf) < 0)
		goto out;
	b = H5Acreate2(c->dst, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	if (b < 0 && newer_format(c->dst))
		b = H5Acreate2(c->dst, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	if (b < 0 || H5Awrite(b, t, buf) < 0) {
		H5Dvlen_reclaim(t, sp, H5P_DEFAULT, buf);
		goto out;
	}
	H5Dvlen_reclaim(t, sp, H5P_DEFAULT, buf);
	ok = 1;
out:
	if (!ok) {
		ckpt_seterr_h5("%s: attribute '%s': cannot copy", c->what, name);
		c->failed = 1;
	}
	free(buf);
	if (b >= 0)
		H5Aclose(b);
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	if (a >= 0)
		H5Aclose(a);
	return ok ? 0 : -1;
}

static int copy_attrs_but(hid_t src, hid_t dst, const char *what, const char *skip)
{
	struct attr_copy c = {dst, what, skip, 0};
	hsize_t idx = 0;

	/* creation order where tracked, else name order (as HDF5 lists them) */
	if (H5Aiterate2(src, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, copy_one_attr, &c) >= 0)
		return 0;
	if (c.failed)
		return -1;
	idx = 0;
	if (H5Aiterate2(src, H5_INDEX_NAME, H5_ITER_INC, &idx, copy_one_attr, &c) < 0) {
		if (!c.failed)
			ckpt_seterr_h5("%s: cannot list attributes", what);
		return -1;
	}
	return 0;
}

int ckpt_copy_attrs(hid_t src, hid_t dst, const char *what)
{
	return copy_attrs_but(src, dst, what, NULL);
}

/* The group the copy is in, open in the source and the output: a group met
 * next below it is reached by its last name, not by its whole path, which
 * HDF5 walks from the root each time (groups n deep cost n^2 otherwise). */
struct cursor {
	char *path;
	hid_t src, dst;
};

static void cursor_close(struct cursor *c)
{
	if (c->src >= 0)
		H5Gclose(c->src);
	if (c->dst >= 0)
		H5Gclose(c->dst);
	free(c->path);
	c->path = NULL;
	c->src = c->dst = -1;
}

/* Where path can be reached from: the cursor's groups and path's last name
 * when the cursor holds path's parent, else the files' roots and path. */
static const char *reach(const struct cursor *c, const ckpt_file *src, hid_t dst,
                         const char *path, hid_t *sloc, hid_t *dloc)
{
	const char *slash = strrchr(path, '/');
	size_t plen = c && c->path ? strlen(c->path) : 0;

	*sloc = src->fid;
	*dloc = dst;
	if (!c || !c->path || !slash || (size_t)(slash - path) != plen ||
	    strncmp(path, c->path, plen) != 0)
		return path;
	*sloc = c->src;
	*dloc = c->dst;
	return slash + 1;
}

static int copy_group(const ckpt_file *src, hid_t dst, const char *path,
                      struct cursor *cur)
{
	hid_t sloc, dloc, gcpl = -1, sg, dg = -1;
	const char *name = reach(cur, src, dst, path, &sloc, &dloc);
	int rc = -1;

	if ((sg = H5Gopen2(sloc, name, H5P_DEFAULT)) >= 0 && needs_dense_attrs(sg))
		newer_format(dst);
	if (sg < 0 || (gcpl = H5Gget_create_plist(sg)) < 0 ||
	    (dg = H5Gcreate2(dloc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT)) < 0)
		ckpt_seterr_h5("%s: group '%s': cannot copy", src->name, path);
	else
		rc = ckpt_copy_attrs(sg, dg, src->name);
	if (gcpl >= 0)
		H5Pclose(gcpl);
	if (rc == 0 && cur) {
		char *p = strdup(path);

		cursor_close(cur);
		if (p) { /* (without memory, the next group takes the long way) */
			cur->path = p;
			cur->src = sg;
			cur->dst = dg;
			return 0;
		}
	}
	if (dg >= 0)
		H5Gclose(dg);
	if (sg >= 0)
		H5Gclose(sg);
	return rc;
}

/* ---- storage of the output's datasets ---------------------------------- */

/* Filters that lose information, by their registered ids (scale-offset is
 * judged by its parameters). */
static const struct {
	H5Z_filter_t id;
	const char *name;
} lossy_filters[] = {
	{32013, "zfp"}, {32014, "fpzip"}, {32017, "sz"}, {32019, "jpeg"},
	{32024, "sz3"}, {32028, "sperr"},
};

/* Scale-offset drops decimal digits of floats, and bits of integers when
 * given fewer than they need (a factor of 0 lets HDF5 count them). */
static int scaleoffset_lossy(const unsigned *cd, size_t ncd, hid_t type)
{
	return H5Tget_class(type) != H5T_INTEGER || ncd < 2 || cd[0] != H5Z_SO_INT ||
	       cd[1] != 0;
}

/* The name of filter i of dcpl when it is lossy for values of type. */
static const char *lossy_filter(hid_t dcpl, unsigned i, hid_t type, H5Z_filter_t *id)
{
	unsigned flags, cd[32];
	size_t ncd = sizeof cd / sizeof *cd;
	char name[64];

	*id = H5Pget_filter2(dcpl, i, &flags, &ncd, cd, sizeof name, name, NULL);
	if (*id == H5Z_FILTER_SCALEOFFSET)
		return scaleoffset_lossy(cd, ncd, type) ? "scale-offset" : NULL;
	for (size_t k = 0; k < sizeof lossy_filters / sizeof *lossy_filters; k++)
		if (*id == lossy_filters[k].id)
			return lossy_filters[k].name;
	return NULL;
}

/* Leave the lossy filters out of dcpl, which is to store computed values
 * of type; each one dropped is a warning. */
static void drop_lossy_filters(hid_t dcpl, hid_t type, const char *file,
                               const char *var)
{
	for (int i = H5Pget_nfilters(dcpl) - 1; i >= 0; i--) {
		H5Z_filter_t id;
		const char *name = lossy_filter(dcpl, (unsigned)i, type, &id);

		if (name && H5Premove_filter(dcpl, id) >= 0)
			ckpt_warnf("%s: variable '%s': lossy %s filter left out of the "
			           "computed values (--keep-storage keeps it)", file, var, name);
	}
}

/* Whether dataset creation properties keep the values outside the file:
 * in external raw files or in other datasets (a virtual dataset). */
static int foreign_storage(hid_t dcpl)
{
	return H5Pget_layout(dcpl) == H5D_VIRTUAL || H5Pget_external_count(dcpl) > 0;
}

/* Creation properties for the values of a foreign-storage dataset held in
 * the file itself: contiguous, with the same fill value. */
static hid_t own_storage(hid_t dcpl, hid_t type)
{
	hid_t own = H5Pcreate(H5P_DATASET_CREATE);
	H5D_fill_value_t how;
	void *fill;

	if (own >= 0 && H5Pfill_value_defined(dcpl, &how) >= 0 &&
	    how == H5D_FILL_VALUE_USER_DEFINED &&
	    (fill = calloc(1, H5Tget_size(type)))) {
		if (H5Pget_fill_value(dcpl, type, fill) >= 0)
			H5Pset_fill_value(own, type, fill);
		free(fill);
	}
	return own;
}

/* The creation properties of dataset sd for its counterpart in the output,
 * whose values will be of type: never the input's storage; lossy filters
 * left out of computed values unless kept.  Sets *foreign when the values
 * must be copied by hand (H5Ocopy would keep the foreign storage). */
static hid_t output_dcpl(hid_t sd, hid_t type, const ckpt_copy_spec *computed,
                         const char *file, const char *var, int *foreign)
{
	hid_t dcpl = H5Dget_create_plist(sd), own;

	*foreign = dcpl >= 0 && foreign_storage(dcpl);
	if (*foreign) {
		own = own_storage(dcpl, type);
		H5Pclose(dcpl);
		dcpl = own;
	}
	if (dcpl >= 0 && computed && !computed->keep_storage)
		drop_lossy_filters(dcpl, type, file, var);
	return dcpl;
}

/* ---- copying variables -------------------------------------------------- */

/* The next chunk position of a grid of chunks: 0 at the end. */
static int next_chunk(int rank, const hsize_t *dims, const hsize_t *chunk, hsize_t *at)
{
	for (int d = rank - 1; d >= 0; d--) {
		if ((at[d] += chunk[d]) < dims[d])
			return 1;
		at[d] = 0;
	}
	return 0;
}

/* The stored chunks of sd into dd (same shape, chunking and filters), as
 * they are: nothing decoded, so also where a filter cannot be loaded. */
static int copy_chunks(hid_t sd, hid_t dd, hid_t dcpl, const ckpt_var *v)
{
	hsize_t dims[CKPT_MAX_RANK], chunk[CKPT_MAX_RANK], at[CKPT_MAX_RANK] = {0}, size;
	void *buf = NULL;
	size_t cap = 0;
	uint32_t mask;
	int rc = 0;

	if (H5Pget_chunk(dcpl, CKPT_MAX_RANK, chunk) != v->rank)
		return ckpt_seterr_h5("cannot read the chunking");
	for (int d = 0; d < v->rank; d++)
		dims[d] = v->dims[d];
	do {
		if (H5Dget_chunk_storage_size(sd, at, &size) < 0 || size == 0) {
			H5Eclear2(H5E_DEFAULT); /* never written: the fill value stands */
			continue;
		}
		if (size > cap) {
			void *nb = realloc(buf, (size_t)size);

			if (!nb) {
				rc = ckpt_seterr("out of memory");
				break;
			}
			buf = nb;
			cap = (size_t)size;
		}
		if (H5Dread_chunk(sd, H5P_DEFAULT, at, &mask, buf) < 0 ||
		    H5Dwrite_chunk(dd, H5P_DEFAULT, mask, at, (size_t)size, buf) < 0) {
			rc = ckpt_seterr_h5("cannot copy a chunk");
			break;
		}
	} while (next_chunk(v->rank, dims, chunk, at));
	free(buf);
	return rc;
}

/* Whether a dataset's stored bytes mean the same in another file: not
 * when they hold addresses (variable-length data, references). */
static int bytes_portable(hid_t d)
{
	hid_t t = H5Dget_type(d);
	int yes = t >= 0 && H5Tdetect_class(t, H5T_VLEN) <= 0 &&
	          H5Tdetect_class(t, H5T_REFERENCE) <= 0 && H5Tis_variable_str(t) <= 0;

	if (t >= 0)
		H5Tclose(t);
	return yes;
}

/* Variable v's values into dataset dd of the same shape: chunks as they
 * are stored when both are chunked alike (and the bytes hold no
 * addresses), else slab by slab. */
static int copy_values(const ckpt_file *src, const ckpt_var *v, hid_t dd)
{
	hid_t sd = H5Dopen2(src->fid, v->name, H5P_DEFAULT);
	hid_t sp = sd >= 0 ? H5Dget_create_plist(sd) : -1, dp = H5Dget_create_plist(dd);
	int chunked = sp >= 0 && dp >= 0 && H5Pget_layout(sp) == H5D_CHUNKED &&
	              H5Pget_layout(dp) == H5D_CHUNKED && v->nelems > 0 &&
	              bytes_portable(sd);
	ckpt_slab s;
	ckpt_region r;
	int rc = chunked ? copy_chunks(sd, dd, sp, v) : 0;

	if (dp >= 0)
		H5Pclose(dp);
	if (sp >= 0)
		H5Pclose(sp);
	if (sd >= 0)
		H5Dclose(sd);
	if (chunked || v->nelems == 0)
		return rc;
	if (ckpt_slab_open(&s, src, v, CKPT_SLAB_BYTES) < 0)
		return -1;
	while ((rc = ckpt_slab_next(&s)) > 0) {
		ckpt_slab_region(&s, &r);
		if ((rc = ckpt_region_write(&r, dd, s.mtype, s.buf)) < 0)
			break;
	}
	ckpt_slab_close(&s);
	return rc;
}

/* The element type of dataset sd for the output: a committed type is the
 * one of the same path in dst (copied there before, in walk order). */
static hid_t type_like(hid_t sd, hid_t dst)
{
	hid_t t = H5Dget_type(sd), named;
	char path[1024];

	if (t < 0 || H5Tcommitted(t) <= 0 || H5Iget_name(t, path, sizeof path) <= 0 ||
	    H5Oexists_by_name(dst, path, H5P_DEFAULT) <= 0 ||
	    (named = H5Topen2(dst, path, H5P_DEFAULT)) < 0) {
		H5Eclear2(H5E_DEFAULT);
		return t;
	}
	H5Tclose(t);
	return named;
}

/* Create dst_name in dst like variable v of src: shape, attributes and
 * storage as output_dcpl() says, element type dtype (CKPT_OTHER: as the
 * source's); its values are copied when copy is set, else left to come. */
static int create_like(const ckpt_file *src, const ckpt_var *v, hid_t dst,
                       const char *dst_name, const ckpt_copy_spec *computed, int copy)
{
	hid_t sd = H5Dopen2(src->fid, v->name, H5P_DEFAULT), dcpl = -1, sp = -1,
	      t = -1, dd = -1;
	ckpt_dtype dtype = computed ? computed->dtype : CKPT_OTHER;
	int rc = -1, foreign = 0, keras = sd >= 0 && ckpt_keras_bfloat16(sd, v->dtype);
	/* Keras' bfloat16 stays in Keras' form, so that Keras loads the
	 * result; stored as another type, it loses the mark */
	int same_type = dtype == CKPT_OTHER || (keras && dtype == CKPT_BF16);

	if (sd >= 0 && needs_dense_attrs(sd))
		newer_format(dst);
	if (sd < 0 || (sp = H5Dget_space(sd)) < 0 ||
	    (t = same_type ? type_like(sd, dst) : ckpt_dtype_filetype(dtype)) < 0 ||
	    (dcpl = output_dcpl(sd, t, computed, src->name, v->name, &foreign)) < 0 ||
	    (dd = H5Dcreate2(dst, dst_name, t, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0)
		ckpt_seterr_h5("%s: variable '%s': cannot create it in the output",
		               src->name, v->name);
	else if ((rc = copy_attrs_but(sd, dd, src->name,
	                              keras && !same_type ? "dtype" : NULL)) == 0 &&
	         copy && (rc = copy_values(src, v, dd)) < 0)
		ckpt_seterr("%s: variable '%s': %s", src->name, v->name, ckpt_errmsg());
	if (dd >= 0)
		H5Dclose(dd);
	if (t >= 0)
		H5Tclose(t);
	if (sp >= 0)
		H5Sclose(sp);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (sd >= 0)
		H5Dclose(sd);
	return rc;
}

/* H5Ocopy (for committed datatypes), with the toolkit's own attribute
 * copier (HDF5 1.10's crashes on dense attribute storage holding
 * variable-length strings, and cannot store attributes over 64 KiB in the
 * earliest format). */
static int copy_object(hid_t src, const char *name, hid_t dst, const char *dst_name)
{
	hid_t ocpypl = H5Pcreate(H5P_OBJECT_COPY), so = -1, d = -1;
	int rc = -1;

	if (ocpypl >= 0 &&
	    H5Pset_copy_object(ocpypl, H5O_COPY_WITHOUT_ATTR_FLAG |
	                               H5O_COPY_MERGE_COMMITTED_DTYPE_FLAG) >= 0 &&
	    H5Ocopy(src, name, dst, dst_name, ocpypl, H5P_DEFAULT) >= 0 &&
	    (so = H5Oopen(src, name, H5P_DEFAULT)) >= 0 &&
	    (d = H5Oopen(dst, dst_name, H5P_DEFAULT)) >= 0) {
		if (needs_dense_attrs(so))
			newer_format(dst);
		rc = ckpt_copy_attrs(so, d, name);
	}
	if (d >= 0)
		H5Oclose(d);
	if (so >= 0)
		H5Oclose(so);
	if (ocpypl >= 0)
		H5Pclose(ocpypl);
	return rc;
}

/* Not with HDF5's object copy: in 1.10 it crashes when the disk fills
 * (and on dense attributes holding variable-length strings). */
int ckpt_copy_var(const ckpt_file *src, const ckpt_var *v, hid_t dst,
                  const char *dst_name)
{
	return create_like(src, v, dst, dst_name, NULL, 1);
}

static int copy_var(const ckpt_file *src, const ckpt_var *v, hid_t dst,
                    ckpt_copy_fn decide, void *user)
{
	ckpt_copy_spec spec = {CKPT_OTHER, 0};

	switch (decide(v, &spec, user)) {
	case CKPT_COPY_SKIP:
		return 0;
	case CKPT_COPY_EMPTY:
		return create_like(src, v, dst, v->name, &spec, 0);
	default:
		return ckpt_copy_var(src, v, dst, v->name);
	}
}

int ckpt_copy_root_attrs(const ckpt_file *src, hid_t dst)
{
	hid_t sroot = H5Gopen2(src->fid, "/", H5P_DEFAULT);
	hid_t droot = H5Gopen2(dst, "/", H5P_DEFAULT);
	int rc = sroot < 0 || droot < 0 ? -1 : ckpt_copy_attrs(sroot, droot, src->name);

	if (sroot >= 0)
		H5Gclose(sroot);
	if (droot >= 0)
		H5Gclose(droot);
	return rc;
}

/* A further name of an object already in dst; none when the object was
 * left out (a variable skipped, or held by another shard). */
static int copy_hardlink(const ckpt_file *src, const ckpt_obj *o, hid_t dst)
{
	if (H5Oexists_by_name(dst, o->target, H5P_DEFAULT) <= 0) {
		H5Eclear2(H5E_DEFAULT);
		return 0;
	}
	if (H5Lcreate_hard(dst, o->target, dst, o->path, H5P_DEFAULT, H5P_DEFAULT) < 0)
		return ckpt_seterr_h5("%s: link '%s': cannot copy", src->name, o->path);
	return 0;
}

static int copy_obj(const ckpt_file *src, const ckpt_obj *o, hid_t dst,
                    ckpt_copy_fn decide, void *user, struct cursor *cur)
{
	switch (o->kind) {
	case CKPT_OBJ_GROUP:
		return copy_group(src, dst, o->path, cur);
	case CKPT_OBJ_DATATYPE:
		if (copy_object(src->fid, o->path, dst, o->path) < 0)
			return ckpt_seterr_h5("%s: datatype '%s': cannot copy", src->name,
			                      o->path);
		return 0;
	case CKPT_OBJ_VAR:
		return copy_var(src, &src->vars[o->var], dst, decide, user);
	case CKPT_OBJ_SOFTLINK:
		if (H5Lcreate_soft(o->target, dst, o->path, H5P_DEFAULT, H5P_DEFAULT) < 0)
			return ckpt_seterr_h5("%s: link '%s': cannot copy", src->name, o->path);
		return 0;
	case CKPT_OBJ_EXTLINK:
		if (H5Lcreate_external(o->file, o->target, dst, o->path, H5P_DEFAULT,
		                       H5P_DEFAULT) < 0)
			return ckpt_seterr_h5("%s: link '%s': cannot copy", src->name, o->path);
		return 0;
	case CKPT_OBJ_HARDLINK:
		return copy_hardlink(src, o, dst);
	}
	return 0;
}

int ckpt_copy_obj(const ckpt_file *src, const ckpt_obj *o, hid_t dst,
                  ckpt_copy_fn decide, void *user)
{
	return copy_obj(src, o, dst, decide, user, NULL);
}

int ckpt_copy_structure(const ckpt_file *src, hid_t dst, ckpt_copy_fn decide,
                        void *user)
{
	struct cursor cur = {NULL, -1, -1};
	int rc = ckpt_copy_root_attrs(src, dst);

	for (size_t i = 0; i < src->nobjs && rc == 0; i++)
		rc = copy_obj(src, &src->objs[i], dst, decide, user, &cur);
	cursor_close(&cur);
	return rc == 0 ? ckpt_copy_refs(src, dst) : rc;
}
