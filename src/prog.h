/* prog.h - what every ckpt program's main() shares: its name in messages,
 * the one die()/warn() pair, strict option-value parsing, checked stdout,
 * JSON strings, and the progress bar.  The library never prints; this does. */
#ifndef CKPT_PROG_H
#define CKPT_PROG_H

#include <stdint.h>
#include <stdio.h>

#include "lib/ckpt.h"

/* Exit statuses, the same in every program (diff(1)'s): */
enum {
	EXIT_OK = 0,        /* success; for ckpt-diff, no differences */
	EXIT_DIFFER = 1,    /* ckpt-diff: differences found */
	EXIT_TROUBLE = 2,   /* misuse, unreadable input, I/O error */
};

extern const char *progname;

/* Set the program name and its usage synopsis ("[options] FILE..."), and
 * initialise the library. */
void prog_init(const char *argv0, const char *synopsis);

/* "prog: message" on stderr, then exit EXIT_TROUBLE. */
_Noreturn void die(const char *fmt, ...) CKPT_PRINTF(1, 2);
/* die() with the library's last message. */
_Noreturn void die_lib(void);
void warn(const char *fmt, ...) CKPT_PRINTF(1, 2);

/* "variable 'v': N values out of the range of T (became inf|NaN|saturated)",
 * unless n is 0. */
void warn_out_of_range(const char *var, size_t n, ckpt_dtype t);

/* Conversions that change values are never silent: note_changed() counts
 * the n values of src (type from, of variable var from index start) that
 * dst, their conversion to type to, does not hold exactly (*counted: this
 * variable was counted already); warn_changed() says once how many, in how
 * many variables, and the first. */
void note_changed(const char *var, uint64_t start, ckpt_dtype from, const void *src,
                  ckpt_dtype to, const void *dst, size_t n, int *counted);
void warn_changed(void);

/* Standard output whole or not at all: held in a temporary from
 * hold_stdout() until release_stdout() copies it out (a JSON document an
 * error cut short would still parse as far as it goes). */
void hold_stdout(void);
void release_stdout(void);
/* The parts: the count (the first example kept), and the totals set (of
 * every MPI rank). */
uint64_t count_changed(const char *var, uint64_t start, ckpt_dtype from, const void *src,
                       ckpt_dtype to, const void *dst, size_t n);
void set_changed(uint64_t values, uint64_t vars);

/* Misuse (a bad option, a bad option value, a missing argument):
 * "prog: message", then the program's short usage line, exit EXIT_TROUBLE. */
_Noreturn void usage_error(const char *fmt, ...) CKPT_PRINTF(1, 2);

/* The options every program has, and misuse: call it from the default
 * case of the getopt_long loop (optstring starting with ':'), with c as
 * getopt returned it.  -h/--help and -V/--version print and exit 0; a
 * missing value or an unknown option is a usage error.  --version prints
 * "prog (ckpt) VERSION" and the format libraries in use, GNU style. */
_Noreturn void common_option(int c, void (*usage)(void), char **argv);

/* Strict parsers for option values: the whole string must be a number in
 * range; otherwise a usage error naming the option. */
uint64_t parse_count(const char *opt, const char *s, uint64_t min, uint64_t max);
double parse_real(const char *opt, const char *s);

/* What they check, without dying: 0 and the value in *out; -1 when s is
 * not a (finite) number, -2 when it is out of range (of a double, for
 * scan_real: 1e-400). */
int scan_count(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int scan_real(const char *s, double *out);

/* Flush and close stdout; a write error (full disk, closed pipe) is
 * reported and turns status into EXIT_TROUBLE.  Returns the status to exit
 * with. */
int finish(int status);

/* s as a JSON string, quoted and escaped; bytes that are not UTF-8 (which
 * JSON cannot carry) become U+FFFD. */
void print_json_string(FILE *fp, const char *s);

/* A number as the fmt module writes it; "nan", "inf" and "-inf", which
 * JSON has no numbers for, as strings. */
void print_json_number(FILE *fp, const char *text);

/* Cut n items of the given weights into p runs of about equal weight, in
 * order, each starting at an item where edge[i] is set (anywhere when edge
 * is NULL): run q is [cut[q], cut[q+1]) (cut has p + 1 entries). */
void cut_runs(const double *weight, const unsigned char *edge, size_t n, size_t p,
              size_t *cut);

/* This rank's run [*lo, *hi) of n items of the given weights (bytes, say),
 * cut so that the runs of the ranks in order cover all n with about equal
 * weight; without MPI all of them. */
void rank_share(const uint64_t *weight, size_t n, size_t *lo, size_t *hi);

/* Under MPI, what every rank prints to standard output between
 * output_begin() and output_end() comes out of rank 0's, in rank order;
 * joiner (may be NULL) goes between two ranks' non-empty pieces (JSON's
 * commas).  Without MPI, nothing changes.  Collective (output_end). */
void output_begin(void);
void output_end(const char *joiner);

/* Progress on stderr, shown only when it is a terminal (or forced), never
 * with -q.  mode: -1 never, 0 when stderr is a terminal, 1 always. */
void progress_start(int mode, uint64_t total, const char *what);
void progress_add(uint64_t done);
void progress_end(void);

#endif
