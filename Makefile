# ckpt - one flat Makefile: libckpt.a, then every program.
#   make              build            make check        run all tests
#   make check SANITIZE=1              the same under ASan + UBSan
#   make check VALGRIND=1              the CLI cases under valgrind   make fuzz
#   make install PREFIX=/usr DESTDIR=  make uninstall    make deps    make bench

VERSION    = 0.1.0
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
LIBDIR    ?= $(PREFIX)/lib
INCDIR    ?= $(PREFIX)/include
MANDIR    ?= $(PREFIX)/share/man
DATADIR   ?= $(PREFIX)/share
PKG_CONFIG ?= pkg-config
CC        ?= cc
AR        ?= ar

# make mpi (MPI=1): the programs that share their work over the ranks of
# an MPI run, built with mpicc on parallel HDF5 into build-mpi/bin (the
# others are serial only).
MPI_PROGS := ckpt-average ckpt-diff ckpt-read ckpt-train
ifeq ($(MPI),1)
CC        := mpicc
HDF5_PC   := hdf5-openmpi
MPI_FLAGS := -DCKPT_MPI
endif

# hdf5-serial by name where it exists (Debian): installing
# libhdf5-openmpi-dev (make mpi) points the plain "hdf5" at the MPI build.
HDF5_PC     ?= $(shell $(PKG_CONFIG) --exists hdf5-serial 2>/dev/null && echo hdf5-serial || echo hdf5)
HDF5_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(HDF5_PC) 2>/dev/null)
HDF5_LIBS   := $(shell $(PKG_CONFIG) --libs $(HDF5_PC) 2>/dev/null)
ARCHIVE_CFLAGS := $(shell $(PKG_CONFIG) --cflags libarchive 2>/dev/null)
ARCHIVE_LIBS   := $(shell $(PKG_CONFIG) --libs libarchive 2>/dev/null)
ZLIB_CFLAGS    := $(shell $(PKG_CONFIG) --cflags zlib 2>/dev/null)
ZLIB_LIBS      := $(shell $(PKG_CONFIG) --libs zlib 2>/dev/null || echo -lz)
JANSSON_CFLAGS := $(shell $(PKG_CONFIG) --cflags jansson 2>/dev/null)
JANSSON_LIBS   := $(shell $(PKG_CONFIG) --libs jansson 2>/dev/null || echo -ljansson)
SNAPPY_CFLAGS  := $(shell $(PKG_CONFIG) --cflags snappy 2>/dev/null)
SNAPPY_LIBS    := $(shell $(PKG_CONFIG) --libs snappy 2>/dev/null || echo -lsnappy)
CMOCKA_CFLAGS  := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS    := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

ifeq ($(SANITIZE),1)
B := build-san
SANFLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all \
            -fno-omit-frame-pointer
OPT := -O1 -g
else
B := build
SANFLAGS :=
OPT := -O3 -g
endif
ifeq ($(MPI),1)
B := build-mpi
endif
# PORTABLE=1: the loops compiled once, for any CPU (vec.h), as elsewhere
# than GCC on x86-64: what the run-time choice of AVX-512 or AVX2 would
# not run on this machine, tested.
ifeq ($(PORTABLE),1)
B := build-portable
PORTFLAGS := -DCKPT_PORTABLE
endif

# CPPFLAGS, CFLAGS and LDFLAGS are the user's (Debian's build flags, say):
# taken as given, after the toolkit's own.
CFLAGS   ?= $(OPT)
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# No fused multiply-add behind our back: the model is float32 step by step.
# -fno-trapping-math changes no result (nothing reads the FP exception
# flags); it lets gcc vectorise loops that select between float values.
# The programs are compiled without the format libraries' headers on the
# include path: they see only libckpt's format-neutral API.
PROG_CFLAGS := -std=c11 -pthread -ffp-contract=off -fno-trapping-math -D_XOPEN_SOURCE=700 \
               $(WARN) $(CPPFLAGS) $(PORTFLAGS) $(CFLAGS) $(SANFLAGS) -Isrc
ALL_CFLAGS  := $(PROG_CFLAGS) $(MPI_FLAGS) -DH5_USE_110_API $(HDF5_CFLAGS) $(ARCHIVE_CFLAGS) $(ZLIB_CFLAGS) \
               $(JANSSON_CFLAGS) $(SNAPPY_CFLAGS)
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS)
LIBS     := $(HDF5_LIBS) $(ARCHIVE_LIBS) $(ZLIB_LIBS) $(JANSSON_LIBS) $(SNAPPY_LIBS) -lm -pthread

LIB_SRC  := $(sort $(wildcard src/lib/*.c))
LIB_HDR  := $(sort $(wildcard src/lib/*.h))
# Internal to the library (the HDF5 backend, CPU- and compiler-specific
# code): never installed, never included by a program.
LIB_PRIV := $(addprefix src/lib/,commit.h dtypeint.h eft.h h5.h outint.h header.h i128.h mblockint.h methodint.h pickleint.h topkint.h refs.h temp.h vec.h wrap.h xsumint.h)
LIB_PUB  := $(filter-out $(LIB_PRIV),$(LIB_HDR))
LIB_OBJ  := $(LIB_SRC:src/%.c=$(B)/%.o)
PROGS    := $(patsubst src/%.c,%,$(sort $(wildcard src/ckpt-*.c)))
ifeq ($(MPI),1)
PROGS    := $(MPI_PROGS)
endif
# ckpt-merge's jobs (merge, split, join), one file each beside its main()
MERGE_OBJ := $(patsubst src/%.c,$(B)/%.o,$(sort $(wildcard src/merge/*.c)))
# ckpt-average's slab pipeline beside its main()
AVERAGE_OBJ := $(patsubst src/%.c,$(B)/%.o,$(sort $(wildcard src/average/*.c)))
PROG_BIN := $(PROGS:%=$(B)/bin/%)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
TOOLS    := $(B)/tests/mkfixtures $(B)/tests/mkbench $(B)/tests/kernels $(B)/tests/faultshim.so

.PHONY: all check demo install uninstall deps bench bench-floor bench-methods fuzz clean \
        list-headers mpi check-mpi bench-mpi
all: $(B)/libckpt.a $(PROG_BIN)

$(B)/lib/%.o: src/lib/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/prog.o: src/prog.c src/prog.h $(LIB_PUB)
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -c -o $@ $<

$(B)/libckpt.a: $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(B)/merge/%.o: src/merge/%.c src/merge/merge.h src/prog.h $(LIB_PUB)
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -c -o $@ $<

$(B)/average/%.o: src/average/%.c src/average/work.h src/prog.h $(LIB_PUB)
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -c -o $@ $<

$(B)/bin/ckpt-average: EXTRA_OBJ = $(AVERAGE_OBJ)
$(B)/bin/ckpt-average: $(AVERAGE_OBJ) src/average/work.h

$(B)/bin/ckpt-merge: EXTRA_OBJ = $(MERGE_OBJ)
$(B)/bin/ckpt-merge: $(MERGE_OBJ)
$(B)/tests/test_merge_plan: EXTRA_OBJ = $(B)/merge/plan.o
$(B)/tests/test_merge_plan: $(B)/merge/plan.o

$(B)/bin/%: src/%.c $(B)/prog.o $(B)/libckpt.a src/prog.h $(LIB_PUB)
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< $(EXTRA_OBJ) $(B)/prog.o $(B)/libckpt.a $(ALL_LDFLAGS) $(LIBS)

$(B)/tests/test_%: tests/unit/test_%.c tests/unit/unit.h $(B)/libckpt.a $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) -Itests/unit -o $@ $< $(EXTRA_OBJ) $(B)/libckpt.a \
	    $(ALL_LDFLAGS) $(LIBS) $(CMOCKA_LIBS)

$(B)/tests/mkfixtures: testdata/mkfixtures.c $(B)/libckpt.a $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(B)/libckpt.a $(ALL_LDFLAGS) $(LIBS)

$(B)/tests/mkbench: tests/bench/mkbench.c $(B)/libckpt.a $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(B)/libckpt.a $(ALL_LDFLAGS) $(LIBS)

$(B)/tests/kernels: tests/bench/kernels.c $(B)/libckpt.a $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(B)/libckpt.a $(ALL_LDFLAGS) $(LIBS)

# Fault injection for the commit tests (LD_PRELOAD; built without the
# sanitizers, which must come first in a sanitized program).
$(B)/tests/faultshim.so: tests/faults/shim.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -fPIC -shared $(WARN) -o $@ $< -ldl

check: all $(UNIT_BIN) $(TOOLS)
	@CKPT_VALGRIND=$(VALGRIND) sh tests/run.sh $(B)

mpi:
	@$(MAKE) --no-print-directory MPI=1 all

# The MPI programs against the serial ones, P = 1..4 ranks.
check-mpi: all $(TOOLS)
	@$(MAKE) --no-print-directory MPI=1 all
	@sh tests/mpi/run.sh build build-mpi

bench-mpi: all $(TOOLS)
	@$(MAKE) --no-print-directory MPI=1 all
	@sh tests/bench/mpi.sh build build-mpi

# What the README's first command runs: the main job, data-parallel training
# with parameter averaging by ckpt-average, from the shell.
demo: all
	@rm -rf $(B)/demo && mkdir -p $(B)/demo
	@PATH="$(CURDIR)/$(B)/bin:$$PATH" sh examples/shell-training.sh 50 $(B)/demo

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
	    $(DESTDIR)$(INCDIR)/ckpt $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
	    $(DESTDIR)$(MANDIR)/man7 \
	    $(DESTDIR)$(DATADIR)/bash-completion/completions \
	    $(DESTDIR)$(DATADIR)/zsh/site-functions \
	    $(DESTDIR)$(DATADIR)/fish/vendor_completions.d
	install -m 755 $(PROG_BIN) $(DESTDIR)$(BINDIR)
	install -m 644 $(B)/libckpt.a $(DESTDIR)$(LIBDIR)
	install -m 644 $(LIB_PUB) $(DESTDIR)$(INCDIR)/ckpt
	for p in $(wildcard man/man1/*.1); do install -m 644 $$p $(DESTDIR)$(MANDIR)/man1; done
	for p in $(wildcard man/man5/*.5); do install -m 644 $$p $(DESTDIR)$(MANDIR)/man5; done
	for p in $(wildcard man/man7/*.7); do install -m 644 $$p $(DESTDIR)$(MANDIR)/man7; done
	for p in $(PROGS); do ln -sf ckpt $(DESTDIR)$(DATADIR)/bash-completion/completions/$$p; done
	install -m 644 completions/ckpt.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/ckpt
	install -m 644 completions/_ckpt $(DESTDIR)$(DATADIR)/zsh/site-functions/_ckpt
	install -m 644 completions/ckpt.fish $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/ckpt.fish
	# fish loads completions by command name
	for p in $(PROGS); do ln -sf ckpt.fish $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/$$p.fish; done
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|@HDF5_PC@|$(HDF5_PC)|' ckpt.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/ckpt.pc

# The headers make install installs (tests/cli/library checks them alone).
list-headers:
	@echo $(LIB_PUB)

uninstall:
	rm -f $(PROGS:%=$(DESTDIR)$(BINDIR)/%) $(DESTDIR)$(LIBDIR)/libckpt.a \
	    $(DESTDIR)$(LIBDIR)/pkgconfig/ckpt.pc \
	    $(PROGS:%=$(DESTDIR)$(DATADIR)/bash-completion/completions/%) \
	    $(DESTDIR)$(DATADIR)/bash-completion/completions/ckpt \
	    $(DESTDIR)$(DATADIR)/zsh/site-functions/_ckpt \
	    $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/ckpt.fish \
	    $(PROGS:%=$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/%.fish)
	rm -rf $(DESTDIR)$(INCDIR)/ckpt
	for p in $(notdir $(wildcard man/man*/*.[157])); do \
	    rm -f $(DESTDIR)$(MANDIR)/man*/$$p; done

# The Debian packages the build and the tests need; sudo only when not root.
# The filter plugins let HDF5 decode LZF, LZ4, BZip2 and Bitshuffle data.
DEPS := build-essential pkg-config libhdf5-dev libarchive-dev libcmocka-dev \
        zlib1g-dev libjansson-dev libsnappy-dev hdf5-plugin-lzf hdf5-filter-plugin python3-h5py python3-numpy \
        python3-protobuf python3-torch \
        hdf5-tools valgrind mandoc openmpi-bin libopenmpi-dev libhdf5-openmpi-dev
deps:
	@missing=$$(for p in $(DEPS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	    sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	    echo "installing:" $$missing; \
	    $$sudo apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing; \
	fi

bench: all $(TOOLS)
	@sh tests/bench/run.sh $(B)

# only the table of make bench that issue goals are stated against: the
# average of four 1 GiB checkpoints (HDF5, safetensors, TensorFlow bundles,
# PyTorch files; float32, bfloat16) beside the floor, and PyTorch files
# beside a torch.load + sum + torch.save script (CKPT_BENCH_ROWS: a glob
# of the rows to run)
bench-floor: all $(TOOLS)
	@sh tests/bench/floor.sh $(B) $${CKPT_BENCH_DIR:-$(B)/bench}

# only the merge methods' table of make bench: each beside the linear
# average in the same run, and beside an h5py + numpy script; then each
# method's formula alone, in cache (ns per element: steadier on a noisy
# machine than whole runs).  CKPT_BENCH_DTYPE=bf16: the models in
# bfloat16; CKPT_BENCH_ROWS, CKPT_BENCH_RUNS, CKPT_BENCH_MODELS,
# CKPT_BENCH_SCRIPTS: tests/bench/methods.sh
bench-methods: all $(TOOLS)
	@sh tests/bench/methods.sh $(B) $${CKPT_BENCH_DIR:-$(B)/bench}
	@$(B)/tests/kernels

clean:
	rm -rf $(FZ)
	rm -rf build build-san build-mpi build-portable

# make fuzz: libFuzzer (clang) harnesses of what ckpt parses itself
# (manifests, bundles, shard attributes, safetensors files, name rules, option
# values) and of
# valid HDF5 files built from the input (fuzz_hdf5), each
# run FUZZ_SECONDS from the seed corpora in tests/fuzz/corpus; what they
# find stays in build-fuzz/corpus (crashes: build-fuzz/crash-*).
FUZZ_SECONDS ?= 60
FUZZERS   := $(patsubst tests/fuzz/%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FZ        := build-fuzz
FUZZ_CFLAGS := -std=c11 -pthread -ffp-contract=off -fno-trapping-math -D_XOPEN_SOURCE=700 \
               -DH5_USE_110_API -g -O1 \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
               $(HDF5_CFLAGS) $(ARCHIVE_CFLAGS) $(ZLIB_CFLAGS) $(JANSSON_CFLAGS) $(SNAPPY_CFLAGS) -Isrc

$(FZ)/fuzz_%: tests/fuzz/fuzz_%.c $(LIB_SRC) $(LIB_HDR) src/prog.c src/prog.h
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -o $@ $< $(LIB_SRC) src/prog.c $(LIBS)

fuzz: $(FUZZERS:%=$(FZ)/%)
	@for f in $(FUZZERS); do \
	    mkdir -p $(FZ)/corpus/$$f; \
	    echo "== $$f: $(FUZZ_SECONDS) s"; \
	    (cd $(FZ) && ./$$f -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	        -print_final_stats=1 corpus/$$f ../tests/fuzz/corpus/$$f 2>&1 | \
	        grep -E 'stat::number_of_executed_units|stat::peak_rss|ERROR|SUMMARY|Done'); \
	    ls $(FZ)/crash-* $(FZ)/leak-* $(FZ)/timeout-* 2>/dev/null && exit 1; \
	done; true
