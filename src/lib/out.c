/* out.c - atomic output and structure copying. */
#include "out.h"
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
		/* SIGPIPE: "-o -" into a pipe that closed early */
		static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
		struct sigaction sa;

		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
			struct sigaction old;

			/* keep "ignored" (nohup, background jobs) as it was */
			if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
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

/* A device or a FIFO (/dev/null, /dev/stdout, a named pipe): written into
 * as it is, never replaced. */
static int is_stream(const char *target)
{
	struct stat st;

	return stat(target, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) ||
	                                  S_ISSOCK(st.st_mode));
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
		if (!force && lstat(target, &st) == 0)
			return ckpt_seterr("%s: already exists (use -f to replace it)", target);
		if (lstat(target, &st) == 0 && S_ISDIR(st.st_mode))
			return ckpt_seterr("%s: is a directory", target);
		if (!(t->target = strdup(target)))
			return ckpt_seterr("%s: out of memory", target);
	}
	if (!(t->tmp = to_stdout || t->stream ? temp_in_tmpdir() : temp_beside(target)))
		return ckpt_seterr("%s: out of memory", shown(t));
	if ((t->fd = mkstemp(t->tmp)) < 0) {
		free(t->tmp);
		t->tmp = NULL;
		return ckpt_seterr("%s: cannot create a file there: %s", shown(t),
		                   strerror(errno));
	}
	t->slot = track(t->tmp);
	mask = umask(0);
	umask(mask);
	fchmod(t->fd, 0666 & ~mask); /* mkstemp makes 0600; be an ordinary file */
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
	rc = temp_commit(&o->t);
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

int ckpt_copy_attrs(hid_t src, hid_t dst, const char *what)
{
	struct attr_copy c = {dst, what, 0};
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

static int copy_group(const ckpt_file *src, hid_t dst, const char *path)
{
	hid_t sg = H5Gopen2(src->fid, path, H5P_DEFAULT), gcpl = -1, dg = -1;
	int rc = -1;

	if (sg >= 0 && needs_dense_attrs(sg))
		newer_format(dst);
	if (sg < 0 || (gcpl = H5Gget_create_plist(sg)) < 0 ||
	    (dg = H5Gcreate2(dst, path, H5P_DEFAULT, gcpl, H5P_DEFAULT)) < 0)
		ckpt_seterr_h5("%s: group '%s': cannot copy", src->name, path);
	else
		rc = ckpt_copy_attrs(sg, dg, src->name);
	if (dg >= 0)
		H5Gclose(dg);
	if (gcpl >= 0)
		H5Pclose(gcpl);
	if (sg >= 0)
		H5Gclose(sg);
	return rc;
}

static int create_empty(const ckpt_file *src, const ckpt_var *v, hid_t dst,
                        ckpt_dtype dtype)
{
	hid_t sd = H5Dopen2(src->fid, v->name, H5P_DEFAULT), dcpl = -1, sp = -1,
	      t = -1, dd = -1;
	int rc = -1;

	if (sd >= 0 && needs_dense_attrs(sd))
		newer_format(dst);
	if (sd < 0 || (dcpl = H5Dget_create_plist(sd)) < 0 ||
	    (sp = H5Dget_space(sd)) < 0 ||
	    (t = dtype == CKPT_OTHER ? H5Dget_type(sd) : ckpt_dtype_filetype(dtype)) < 0 ||
	    (dd = H5Dcreate2(dst, v->name, t, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0)
		ckpt_seterr_h5("%s: variable '%s': cannot create it in the output",
		               src->name, v->name);
	else
		rc = ckpt_copy_attrs(sd, dd, src->name);
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

static int copy_var(const ckpt_file *src, const ckpt_var *v, hid_t dst,
                    ckpt_copy_fn decide, void *user)
{
	ckpt_dtype dtype = CKPT_OTHER;

	switch (decide(v, &dtype, user)) {
	case CKPT_COPY_SKIP:
		return 0;
	case CKPT_COPY_EMPTY:
		return create_empty(src, v, dst, dtype);
	default:
		/* H5Ocopy also copies attributes: the same limit applies */
		if (H5Ocopy(src->fid, v->name, dst, v->name, H5P_DEFAULT, H5P_DEFAULT) < 0)
			return ckpt_seterr_h5("%s: variable '%s': cannot copy", src->name,
			                      v->name);
		return 0;
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

int ckpt_copy_obj(const ckpt_file *src, const ckpt_obj *o, hid_t dst,
                  ckpt_copy_fn decide, void *user)
{
	switch (o->kind) {
	case CKPT_OBJ_GROUP:
		return copy_group(src, dst, o->path);
	case CKPT_OBJ_DATATYPE:
		if (H5Ocopy(src->fid, o->path, dst, o->path, H5P_DEFAULT, H5P_DEFAULT) < 0)
			return ckpt_seterr_h5("%s: datatype '%s': cannot copy", src->name,
			                      o->path);
		return 0;
	case CKPT_OBJ_VAR:
		return copy_var(src, &src->vars[o->var], dst, decide, user);
	case CKPT_OBJ_SOFTLINK:
		if (H5Lcreate_soft(o->target, dst, o->path, H5P_DEFAULT, H5P_DEFAULT) < 0)
			return ckpt_seterr_h5("%s: link '%s': cannot copy", src->name, o->path);
		return 0;
	}
	return 0;
}

int ckpt_copy_structure(const ckpt_file *src, hid_t dst, ckpt_copy_fn decide,
                        void *user)
{
	int rc = ckpt_copy_root_attrs(src, dst);

	for (size_t i = 0; i < src->nobjs && rc == 0; i++)
		rc = ckpt_copy_obj(src, &src->objs[i], dst, decide, user);
	return rc;
}
