/* prog.c - the programs' shared front end. */
#include "prog.h"

#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <math.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *progname = "ckpt";

static void library_warning(const char *msg)
{
	warn("%s", msg);
}

static const char *prog_synopsis = "[options]";

void prog_init(const char *argv0, const char *synopsis)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;

	if (argv0)
		progname = slash ? slash + 1 : argv0;
	if (synopsis)
		prog_synopsis = synopsis;
	/* under MPI (make mpi) rank 0 speaks for all: the others' output and
	 * warnings go nowhere, their failures reach rank 0 (die()) */
	if (ckpt_par_init(NULL, NULL) < 0) {
		fprintf(stderr, "%s: %s\n", progname, ckpt_errmsg());
		exit(EXIT_TROUBLE);
	}
	if (ckpt_par_rank() != 0 && !freopen("/dev/null", "w", stdout))
		exit(EXIT_TROUBLE);
	/* Buffers of a few MiB (a slab of each input, per variable) from the
	 * heap and kept there for the next: mapped afresh each time, they
	 * cost their page faults again, which on a virtual machine cost
	 * more than the reading into them (the average of four 1 GiB files:
	 * 4.0 s -> 1.7 s). */
#ifdef M_MMAP_THRESHOLD /* (glibc) */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
	ckpt_init();
	ckpt_set_warn(library_warning);
}

/* One line, whatever the names in it hold: control bytes escaped. */
static void message(const char *text)
{
	char line[2048];

	fflush(stdout);
	fprintf(stderr, "%s: %s\n", progname, ckpt_escape_line(text, line, sizeof line));
}

static void usage_line(void)
{
	fprintf(stderr, "usage: %s %s (see %s --help)\n", progname, prog_synopsis,
	        progname);
}

/* No exit handlers: HDF5's would try to flush a half-written output (on
 * a full disk it crashes doing so).  Remove it and stop.  Under MPI the
 * ranks have agreed on the failure already; they leave together (one more
 * agreement) without MPI_Finalize, which runs HDF5's shutdown and with it
 * that same crash. */
_Noreturn static void stop(void)
{
	fflush(stdout);
	fflush(stderr);
	ckpt_out_cleanup();
	ckpt_par_leave();
	_exit(EXIT_TROUBLE);
}

/* How long a failed rank of an MPI run waits for the others to agree:
 * CKPT_MPI_STOP_WAIT seconds, 30 by default. */
static double stop_wait(void)
{
	const char *s = getenv("CKPT_MPI_STOP_WAIT");
	double t = s ? atof(s) : 0;

	return t > 0 ? t : 30;
}

/* The others did not come: one is stuck in a collective call that went on
 * without the failure.  This rank speaks (rank 0 first: the others give it
 * a second, and are ended by its abort) and ends the run; the output's
 * temporary, rank 0's, goes with the signal mpirun sends. */
_Noreturn static void abandon(const char *text)
{
	if (ckpt_par_rank() != 0)
		sleep(1);
	message(text);
	fflush(stderr);
	ckpt_out_cleanup();
	ckpt_out_cleanup_shared();
	ckpt_par_abort(EXIT_TROUBLE);
	_exit(EXIT_TROUBLE);
}

/* The message, then stop.  Under MPI every rank comes here, the failing
 * one at once and the others from the agreement it fails (par.h); rank 0
 * prints the message of the first rank that failed on its own. */
_Noreturn static void fail(const char *text, int with_usage)
{
	char first[2048];
	int own = !ckpt_par_stopped();

	progress_end();
	if (own && ckpt_par_fail_within(stop_wait()) < 0)
		abandon(text);
	ckpt_par_first_failure(text, own, first, sizeof first);
	if (ckpt_par_rank() == 0) {
		message(first);
		if (with_usage)
			usage_line();
	}
	stop();
}

void die(const char *fmt, ...)
{
	char text[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	fail(text, 0);
}

void die_lib(void)
{
	die("%s", ckpt_errmsg());
}

void warn(const char *fmt, ...)
{
	char text[2048];
	va_list ap;

	if (ckpt_par_rank() != 0)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	message(text);
}

void warn_out_of_range(const char *var, size_t n, ckpt_dtype t)
{
	if (n)
		warn("variable '%s': %zu value%s out of the range of %s (%s)", var, n,
		     n == 1 ? "" : "s", ckpt_dtype_name(t),
		     t == CKPT_F8E4M3 ? "became NaN" /* it has no infinity */
		     : ckpt_dtype_is_float(t) ? "became inf" : "saturated");
}

/* Values conversions changed in this run, reported once by
 * warn_changed() (a warning per variable would bury the rest). */
static struct {
	uint64_t values, vars;
	char first[512];
} changes;

uint64_t count_changed(const char *var, uint64_t start, ckpt_dtype from, const void *src,
                       ckpt_dtype to, const void *dst, size_t n)
{
	size_t first = 0, k = ckpt_convert_changed(from, src, to, dst, n, &first);
	char a[CKPT_FMT_MAX], b[CKPT_FMT_MAX];

	if (k && !changes.first[0])
		snprintf(changes.first, sizeof changes.first,
		         "'%s' [%" PRIu64 "]: %s %s became %s %s", var, start + first,
		         ckpt_dtype_name(from), ckpt_fmt_elem(from, src, first, a),
		         ckpt_dtype_name(to), ckpt_fmt_elem(to, dst, first, b));
	return k;
}

void note_changed(const char *var, uint64_t start, ckpt_dtype from, const void *src,
                  ckpt_dtype to, const void *dst, size_t n, int *counted)
{
	uint64_t k = count_changed(var, start, from, src, to, dst, n);

	changes.values += k;
	changes.vars += k && !*counted;
	*counted |= k != 0;
}

void set_changed(uint64_t values, uint64_t vars)
{
	changes.values = values;
	changes.vars = vars;
}

void warn_changed(void)
{
	if (changes.values)
		warn("the conversion changed %" PRIu64 " value%s in %" PRIu64
		     " variable%s%s%s%s", changes.values, changes.values == 1 ? "" : "s",
		     changes.vars, changes.vars == 1 ? "" : "s",
		     changes.first[0] ? " (first: " : "", changes.first,
		     changes.first[0] ? ")" : "");
}

/* Standard output held: what is printed goes to a temporary in TMPDIR (a
 * sink held whole), copied out by release_stdout(); an error on the way
 * leaves standard output empty (the temporary goes with the exit). */
static ckpt_sink *held;
static int held_fd = -1;

void hold_stdout(void)
{
	fflush(stdout);
	if (!(held = ckpt_sink_open_whole("-", 0, NULL)))
		die_lib();
	if ((held_fd = dup(1)) < 0 || dup2(ckpt_sink_fd(held), 1) < 0)
		die("standard output: %s", strerror(errno));
}

void release_stdout(void)
{
	if (fflush(stdout) != 0 || dup2(held_fd, 1) < 0)
		die("standard output: %s", strerror(errno));
	close(held_fd);
	if (ckpt_sink_commit(held) < 0)
		die_lib();
}

void usage_error(const char *fmt, ...)
{
	char text[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	fail(text, 1);
}

void common_option(int c, void (*usage)(void), char **argv)
{
	switch (c) {
	case 'h':
		usage();
		exit(finish(EXIT_OK));
	case 'V':
		printf("%s (ckpt) %s\n%s\n", progname, CKPT_VERSION, ckpt_versions());
		exit(finish(EXIT_OK));
	case ':':
		usage_error("option '%s' needs a value", argv[optind - 1]);
	default:
		if (optopt)
			usage_error("unknown option '-%c'", optopt);
		usage_error("unknown option '%s'", argv[optind - 1]);
	}
}

int scan_count(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int rc = ckpt_scan_u64(s, strlen(s), &v);

	if (rc < 0)
		return rc;
	if (v < min || v > max)
		return -2;
	*out = v;
	return 0;
}

int scan_real(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || !isfinite(v))
		return -1;
	if (errno == ERANGE)
		return -2; /* 1e-400, 1e400: a number, but not a double */
	*out = v;
	return 0;
}

uint64_t parse_count(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	uint64_t v = 0;
	int rc = scan_count(s, min, max, &v);

	if (rc == -1)
		usage_error("%s: '%s' is not a whole number", opt, s);
	if (rc < 0)
		usage_error("%s: %s is out of range (%llu to %llu)", opt, s,
		    (unsigned long long)min, (unsigned long long)max);
	return v;
}

double parse_real(const char *opt, const char *s)
{
	double v = 0;

	int rc = scan_real(s, &v);

	if (rc == -2)
		usage_error("%s: %s is out of the range of a double (about 2.2e-308 to "
		            "1.8e308 in magnitude)", opt, s);
	if (rc < 0)
		usage_error("%s: '%s' is not a finite number", opt, s);
	return v;
}

int finish(int status)
{
	/* a closed stdout (>&-) that nothing was written to is no error */
	if (fflush(stdout) != 0 || ferror(stdout) ||
	    (fclose(stdout) != 0 && errno != EBADF)) {
		if (errno != EPIPE)
			warn("write error on standard output: %s", strerror(errno));
		status = EXIT_TROUBLE;
	}
	/* MPI: every rank ends here, or learns here that another failed */
	if (ckpt_par_on() && !ckpt_par_all_ok(1))
		fail("", 0);
	ckpt_par_end();
	return status;
}

/* Length of the well-formed UTF-8 sequence at p, 0 if there is none. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, lo = p[0] == 0xe0 ? 0xa0 : 0x80, hi = p[0] == 0xed ? 0x9f : 0xbf;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, lo = p[0] == 0xf0 ? 0x90 : 0x80, hi = p[0] == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

void print_json_string(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_len(p);

		switch (*p) {
		case '"': fputs("\\\"", fp); break;
		case '\\': fputs("\\\\", fp); break;
		case '\n': fputs("\\n", fp); break;
		case '\t': fputs("\\t", fp); break;
		case '\r': fputs("\\r", fp); break;
		default:
			if (*p < 0x20)
				fprintf(fp, "\\u%04x", *p);
			else if (n == 0) /* not UTF-8: JSON cannot carry the byte */
				fputs("\\ufffd", fp);
			else
				fwrite(p, 1, n, fp);
		}
		p += n ? n : 1;
	}
	fputc('"', fp);
}

void print_json_number(FILE *fp, const char *text)
{
	if (strcmp(text, "nan") == 0 || strcmp(text, "inf") == 0 ||
	    strcmp(text, "-inf") == 0)
		fprintf(fp, "\"%s\"", text);
	else
		fputs(text, fp);
}

/* ---- standard output of an MPI run --------------------------------------- */

void cut_runs(const double *weight, const unsigned char *edge, size_t n, size_t p,
              size_t *cut)
{
	double total = 0, before = 0;
	size_t q = 1;

	for (size_t i = 0; i < n; i++)
		total += weight[i];
	cut[0] = 0;
	/* run q starts at the first edge at or after q/p of the total */
	for (size_t i = 0; i < n && q < p; before += weight[i++])
		while (q < p && (!edge || edge[i]) && before >= total * (double)q / (double)p)
			cut[q++] = i;
	for (; q <= p; q++)
		cut[q] = n;
}

void rank_share(const uint64_t *weight, size_t n, size_t *lo, size_t *hi)
{
	size_t p = (size_t)ckpt_par_size(), r = (size_t)ckpt_par_rank();
	size_t *cut = calloc(p + 1, sizeof *cut);
	double *w = calloc(n + 1, sizeof *w);

	if (!cut || !w)
		die("out of memory");
	for (size_t i = 0; i < n; i++)
		w[i] = (double)weight[i] + 1; /* an item costs something, even empty */
	cut_runs(w, NULL, n, p, cut);
	*lo = cut[r];
	*hi = cut[r + 1];
	free(cut);
	free(w);
}

static FILE *captured; /* stdout's bytes between output_begin() and _end() */
static int saved_stdout = -1;

void output_begin(void)
{
	if (!ckpt_par_on())
		return;
	fflush(stdout);
	if (!(captured = tmpfile()) || (saved_stdout = dup(1)) < 0 ||
	    dup2(fileno(captured), 1) < 0)
		die("cannot set standard output aside: %s", strerror(errno));
}

static char *read_captured(size_t *n)
{
	long len;
	char *buf;

	fflush(stdout);
	if (dup2(saved_stdout, 1) < 0 || close(saved_stdout) < 0 ||
	    fseek(captured, 0, SEEK_END) < 0 || (len = ftell(captured)) < 0)
		die("cannot read standard output back: %s", strerror(errno));
	rewind(captured);
	if (!(buf = malloc((size_t)len + 1)))
		die("out of memory");
	if (fread(buf, 1, (size_t)len, captured) != (size_t)len)
		die("cannot read standard output back: %s", strerror(errno));
	fclose(captured);
	captured = NULL;
	*n = (size_t)len;
	return buf;
}

void output_end(const char *joiner)
{
	size_t n, *lens, at = 0;
	char *mine, *all;
	int any = 0;

	if (!ckpt_par_on())
		return;
	mine = read_captured(&n);
	if (!(lens = calloc((size_t)ckpt_par_size(), sizeof *lens)))
		die("out of memory");
	if (ckpt_par_gather_bytes(mine, n, &all, lens) < 0)
		die_lib();
	for (int q = 0; all && q < ckpt_par_size(); at += lens[q++]) {
		if (!lens[q])
			continue;
		if (any && joiner)
			fputs(joiner, stdout);
		fwrite(all + at, 1, lens[q], stdout);
		any = 1;
	}
	free(all);
	free(lens);
	free(mine);
}

/* ---- progress ----------------------------------------------------------- */

static struct {
	int on;
	uint64_t total, done;
	const char *what;
	time_t last;
} prog;

void progress_start(int mode, uint64_t total, const char *what)
{
	prog.on = ckpt_par_rank() == 0 && (mode > 0 || (mode == 0 && isatty(2)));
	prog.total = total ? total : 1;
	prog.done = 0;
	prog.what = what;
	prog.last = 0;
}

void progress_add(uint64_t done)
{
	time_t now;

	if (!prog.on)
		return;
	prog.done += done;
	now = time(NULL);
	if (now == prog.last && prog.done < prog.total)
		return;
	prog.last = now;
	fprintf(stderr, "\r%s: %s %3d%%", progname, prog.what,
	        (int)(100.0 * (double)prog.done / (double)prog.total));
}

void progress_end(void)
{
	if (prog.on && prog.last)
		fprintf(stderr, "\r\033[K");
	prog.on = 0;
}
