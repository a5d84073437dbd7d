# SPDX-License-Identifier: MIT
# iomatrix — one non-recursive Makefile.
#
#   make            release build: build/release/iomatrix (the user's CFLAGS, CPPFLAGS, LDFLAGS;
#                   never installs anything: a missing dependency is named)
#   make dev        the same with -Werror (CI builds so: WERROR=-Werror for every target)
#   make deps       installs the missing build dependencies (apt-get; sudo when not root)
#   make test       unit tests (cmocka) and end-to-end tests of the binary
#   make golden     rewrites tests/data/golden/expected/ (the golden plan and reports) from this build
#   make asan       the whole suite under AddressSanitizer + UBSan (build/asan/)
#   make fuzz       each libFuzzer harness of tests/fuzz/ for FUZZ_SECONDS (clang; build/fuzz/)
#   make mpi        the MPI build too: build/<variant>/iomatrix-mpi (docs/hosts.md; mpicc)
#   make tidy       clang-tidy (.clang-tidy) and cppcheck over src/ (make -j2 tidy: two at once)
#   make demo       the main job on the built-in quick matrix
#   make bench      iomatrix side by side with fio (see docs/performance.md), the CRCs, the pacer on a
#                   quiet machine (tests/bench/pacing.sh), then bench-mpi
#   make bench-mpi  iomatrix-mpi's aggregate over 1, 2, 3 ranks on zram devices (tests/bench/mpi_scale.sh)
#   make bench-ab   this build against AB_REV's (default HEAD~1), A B A B (tests/bench/ab.sh)
#   make bench-knobs what write-through, a size mix and zipf cost, beside fio (tests/bench/knobs.sh)
#   make profile    where the CPU time goes on a loop device, iomatrix and fio (root, perf)
#   make install    PREFIX=/usr/local DESTDIR= (iomatrix-mpi too when built; docs, completions, unit)
#   make dist       build/iomatrix-VERSION.tar.gz, with a VERSION file
#   make deb        the Debian packages iomatrix and iomatrix-mpi in build/deb/ (contrib/debian/)
#
# Objects live under build/<variant>/ so sanitizer, debug and release objects never mix.

VARIANT  ?= release
PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   := $(DESTDIR)$(PREFIX)/bin
MANDIR   := $(DESTDIR)$(PREFIX)/share/man
COMPDIR  := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR   ?= $(PREFIX)/share/zsh/site-functions
# The unit points at DOCDIR and BINDIR as installed (without DESTDIR).
DOCDIR   ?= $(PREFIX)/share/doc/iomatrix
UNITDIR  ?= $(PREFIX)/lib/systemd/system

PKGS      := libconfig liburing zlib libisal json-c blkid libxml-2.0
TEST_PKGS := cmocka
# The version: `git describe --tags` in a work tree with a release tag (v0.3.0 → 0.3.0,
# 0.3.0-4-gabc1234-dirty after it), else the VERSION file `make dist` writes into a tarball,
# else BASE_VERSION with the commit when there is one.
BASE_VERSION := 0.3.0
# Git is asked only at the top of a work tree (.git here), not of a tree unpacked inside one.
IN_GIT    := $(wildcard .git)
VERSION   := $(if $(IN_GIT),$(shell git describe --tags --dirty --match 'v[0-9]*' 2>/dev/null | sed 's/^v//'))
ifeq ($(VERSION),)
VERSION   := $(shell cat VERSION 2>/dev/null)
endif
ifeq ($(VERSION),)
VERSION   := $(BASE_VERSION)$(if $(IN_GIT),$(shell git describe --always --dirty 2>/dev/null | sed 's/^/+g/'))
endif

CC       ?= cc
# -Werror only where it is asked for (make dev, CI): a newer compiler's new warning must not
# break a distribution's build.
WERROR   ?=
WARN     := -Wall -Wextra $(WERROR) -Wshadow -Wformat=2 -Wvla -Wmissing-prototypes \
            -Wstrict-prototypes -Wpointer-arith -Wno-format-nonliteral
BASE     := -std=gnu11 -D_GNU_SOURCE -DIOM_VERSION='"$(VERSION)"' -pthread -MMD -MP
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libaio (engine_aio.c) ships no pkg-config file on Debian: -laio when pkg-config does not know it.
AIO_LIBS   = $(shell pkg-config --libs libaio 2>/dev/null || echo -laio)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) $(AIO_LIBS) -lm
TEST_CFLAGS = $(shell pkg-config --cflags $(TEST_PKGS) 2>/dev/null)
TEST_LIBS   = $(shell pkg-config --libs $(TEST_PKGS) 2>/dev/null)

ifeq ($(VARIANT),release)
OPT := -O2 -g
else ifeq ($(VARIANT),debug)
OPT := -O0 -g3
else ifeq ($(VARIANT),asan)
OPT := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else ifeq ($(VARIANT),fuzz)
# libFuzzer harnesses (tests/fuzz/): clang, the library instrumented for coverage + ASan/UBSan.
CC  := clang
OPT := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
       -fno-sanitize-recover=all
else
$(error unknown VARIANT '$(VARIANT)': release, debug, asan or fuzz)
endif

CFLAGS   ?=
CPPFLAGS ?=
LDFLAGS  ?=
ALL_CFLAGS  = $(BASE) -Isrc $(CPPFLAGS) $(WARN) $(OPT) $(PKG_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(OPT) -pthread $(LDFLAGS)

BUILD_ROOT ?= build
B        := $(BUILD_ROOT)/$(VARIANT)
# The core in src/, the families in its folders (docs/architecture.md); every include is
# relative to src/ ("trace/trace.h") or to the includer's own folder. host/host_mpi.c is the MPI
# host backend: only iomatrix-mpi (make mpi) has it.
SRCS     := $(filter-out src/host/host_mpi.c,$(wildcard src/*.c src/*/*.c))
LIB_SRCS := $(filter-out src/main.c,$(SRCS))
LIB_OBJS := $(LIB_SRCS:src/%.c=$(B)/src/%.o)
LIB      := $(B)/libiomatrix.a
BIN      := $(B)/iomatrix
TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(B)/tests/%)
# The bench's own programs (tests/bench/*.c), built by make bench and make test.
VERIFY_SPEED := $(B)/bench/verify_speed $(B)/bench/verify_speed_zlib
BENCH_TOOLS := $(VERIFY_SPEED) $(B)/bench/trace_speed $(B)/bench/wake_cost
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(B)/fuzz/%)
FUZZ_SECONDS ?= 60

.SECONDARY:

.PHONY: mpi bench-mpi
.PHONY: dev dist deb deb-test test-deps golden
.PHONY: all test unit e2e asan demo bench bench-ab bench-knobs profile install uninstall clean deps check-deps tidy docs fuzz fuzz-bins
.DEFAULT_GOAL := all

all: check-deps $(BIN)

# The developer's build: every warning an error.
dev:
	@$(MAKE) --no-print-directory WERROR=-Werror all

# Only deps (and demo, which builds first) install: apt-get, with sudo when not root. Every
# other target names what is missing and stops (check-deps; test-deps adds cmocka).
deps:
	@contrib/deps.sh --install --mpi --test
check-deps:
	@contrib/deps.sh
test-deps:
	@contrib/deps.sh --test

$(B)/src/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# the liburing a study was built with, for its study.json (machine.c)
$(B)/src/machine.o: ALL_CFLAGS += -DIOM_LIBURING_VERSION='"$(shell pkg-config --modversion liburing 2>/dev/null)"'

# The files that print IOM_VERSION are rebuilt when it changes (a commit, an edit: -dirty).
VERSION_STAMP := $(B)/version.stamp
$(shell mkdir -p $(B) && (echo '$(VERSION)' | cmp -s - $(VERSION_STAMP) || echo '$(VERSION)' > $(VERSION_STAMP)))
# (every source that names it: a list by hand missed report_fio.c and report_diskspd.c, whose
# exports kept naming the version of their last build)
$(patsubst src/%.c,$(B)/src/%.o,$(shell grep -l IOM_VERSION $(SRCS))): $(VERSION_STAMP)

$(B)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(B)/src/main.o $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

# iomatrix-mpi: the same library, main.c with the host backend, host_mpi.c (the only file that
# includes <mpi.h>), with the flags mpicc gives. Built by `make test` when mpicc is installed.
# MPICC picks the MPI: Open MPI's mpicc (the default; --showme gives its flags) or another
# wrapper, MPICH's (make mpi MPICC=mpicc.mpich; -compile_info and -link_info give them), whose
# build is build/<variant>/iomatrix-mpi.mpich beside the default one.
MPICC      ?= mpicc
MPI_TAG    := $(if $(filter mpicc,$(MPICC)),,.$(subst mpicc.,,$(notdir $(MPICC))))
MPI_BIN    := $(B)/iomatrix-mpi$(MPI_TAG)
MPI_OBJ    := $(B)/mpi$(MPI_TAG)
MPI_CFLAGS  = $(or $(shell $(MPICC) --showme:compile 2>/dev/null),$(filter -I% -D% -pthread,$(shell $(MPICC) -compile_info 2>/dev/null)))
MPI_LIBS    = $(or $(shell $(MPICC) --showme:link 2>/dev/null),$(filter -L% -l% -Wl% -pthread,$(shell $(MPICC) -link_info 2>/dev/null)))
HAVE_MPICC := $(shell command -v $(MPICC) 2>/dev/null)

mpi: check-deps $(BIN)
	@contrib/deps.sh --mpi
	@$(MAKE) --no-print-directory $(MPI_BIN)

$(MPI_OBJ)/main.o: src/main.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DIOM_HOSTS_MPI -c $< -o $@

$(MPI_OBJ)/host_mpi.o: src/host/host_mpi.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(MPI_CFLAGS) -c $< -o $@

$(MPI_BIN): $(MPI_OBJ)/main.o $(MPI_OBJ)/host_mpi.o $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) $(MPI_LIBS)

$(MPI_OBJ)/main.o: $(VERSION_STAMP)

$(B)/tests/test_%: $(B)/tests/test_%.o $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(TEST_LIBS) $(PKG_LIBS)

# Unit tests run from the top of the tree (fixtures are under tests/fixtures/).
unit: test-deps $(TEST_BINS)
	@tests/run-unit.sh $(TEST_BINS)

e2e: test-deps $(BIN) $(if $(HAVE_MPICC),$(MPI_BIN))
	@IOMATRIX=$(abspath $(BIN)) IOMATRIX_MPI=$(abspath $(MPI_BIN)) tests/run-e2e.sh

# make test builds the bench's own programs as well, so that none stops compiling unseen.
test: test-deps $(BIN) $(TEST_BINS) $(if $(HAVE_MPICC),$(MPI_BIN)) $(BENCH_TOOLS)
	@tests/run-unit.sh $(TEST_BINS)
	@IOMATRIX=$(abspath $(BIN)) IOMATRIX_MPI=$(abspath $(MPI_BIN)) tests/run-e2e.sh

# The golden outputs (tests/e2e/golden.sh compares them): rewritten from this build, for a change
# that means to change what plan or report print; commit them with it.
golden: $(BIN)
	@work=$$(mktemp -d "$${TMPDIR:-/tmp}/iomatrix-golden.XXXXXX") && \
	    (cd "$$work" && GOLDEN_UPDATE=1 TOP=$(abspath .) WORK="$$work" IOMATRIX=$(abspath $(BIN)) \
	     sh $(abspath tests/e2e/golden.sh)); rc=$$?; rm -rf "$$work"; exit $$rc

# Each libFuzzer harness for FUZZ_SECONDS (tests/fuzz/run.sh; VARIANT=fuzz objects, clang).
fuzz:
	@$(MAKE) --no-print-directory VARIANT=fuzz fuzz-bins
	@tests/fuzz/run.sh $(FUZZ_SECONDS) $(BUILD_ROOT)/fuzz

fuzz-bins: $(FUZZ_BINS)

$(B)/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(B)/fuzz/fuzz_%: $(B)/fuzz/fuzz_%.o $(LIB)
	$(CC) $(ALL_LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS)

asan:
	@$(MAKE) --no-print-directory VARIANT=asan test

demo:
	@contrib/deps.sh --install
	@$(MAKE) --no-print-directory $(BIN)
	$(BIN) run matrices/quick.cfg

# Verification's throughput with ISA-L's CRC (the library's) and with zlib's (crc_zlib.o linked
# ahead of the library, so its iom_crc32 is the one taken): tests/bench/crc.sh.
$(B)/bench/%.o: tests/bench/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(B)/bench/verify_speed: $(B)/bench/verify_speed.o $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(B)/bench/verify_speed_zlib: $(B)/bench/verify_speed.o $(B)/bench/crc_zlib.o $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

# The trace's writer and producer CPU per record, without an engine (docs/performance.md).
$(B)/bench/trace_speed: $(B)/bench/trace_speed.o $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

# What one timed wake-up costs this machine: the floor under the pacer's CPU (bench.sh prints it
# beside the paced pairs).
$(B)/bench/wake_cost: $(B)/bench/wake_cost.o
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

bench: check-deps $(BIN) $(if $(HAVE_MPICC),$(MPI_BIN)) $(BENCH_TOOLS)
	IOMATRIX=$(abspath $(BIN)) WAKE_COST=$(abspath $(B)/bench/wake_cost) tests/bench/bench.sh
	@VERIFY_SPEED=$(B)/bench/verify_speed VERIFY_SPEED_ZLIB=$(B)/bench/verify_speed_zlib \
	    tests/bench/crc.sh
	@IOMATRIX=$(abspath $(BIN)) tests/bench/pacing.sh
	@IOMATRIX_MPI=$(abspath $(MPI_BIN)) tests/bench/mpi_scale.sh

# The scaling of iomatrix-mpi over 1, 2 and 3 ranks on loop devices (also run by make bench;
# a skip line without mpirun or iomatrix-mpi).
bench-mpi: check-deps $(if $(HAVE_MPICC),$(MPI_BIN))
	@IOMATRIX_MPI=$(abspath $(MPI_BIN)) tests/bench/mpi_scale.sh

AB_REV ?= HEAD~1
bench-ab: check-deps $(BIN)
	AB_B=$(abspath $(BIN)) AB_REV=$(AB_REV) tests/bench/ab.sh

bench-knobs: check-deps $(BIN)
	IOMATRIX=$(abspath $(BIN)) tests/bench/knobs.sh

profile: check-deps $(BIN)
	IOMATRIX=$(abspath $(BIN)) tests/bench/profile.sh

# Regenerates what docs/ takes from the code: the key table of docs/matrix.md and
# iomatrix-matrix.5, and the DiskSpd flags of iomatrix.1.
docs: $(BIN)
	@$(BIN) help keys --markdown >$(B)/keys.md
	@awk -v f=$(B)/keys.md '/<!-- keys:end -->/ { while ((getline l < f) > 0) print l; skip = 0 } \
	    !skip { print } /<!-- keys:begin -->/ { skip = 1 }' docs/matrix.md >$(B)/matrix.md
	@mv $(B)/matrix.md docs/matrix.md
	@$(BIN) help keys --man >$(B)/keys.man
	@awk -v f=$(B)/keys.man '/^\.\\" keys:end/ { while ((getline l < f) > 0) print l; skip = 0 } \
	    !skip { print } /^\.\\" keys:begin/ { skip = 1 }' docs/iomatrix-matrix.5 >$(B)/matrix.5
	@mv $(B)/matrix.5 docs/iomatrix-matrix.5
	@$(BIN) help diskspd --man >$(B)/diskspd.man
	@awk -v f=$(B)/diskspd.man '/^\.\\" diskspd:end/ { while ((getline l < f) > 0) print l; skip = 0 } \
	    !skip { print } /^\.\\" diskspd:begin/ { skip = 1 }' docs/iomatrix.1 >$(B)/iomatrix.1
	@mv $(B)/iomatrix.1 docs/iomatrix.1

# clang-tidy one source at a time, so that make -j runs them side by side; then cppcheck
TIDY := $(SRCS:%=tidy@%)
.PHONY: $(TIDY)
tidy: $(TIDY)
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	    --inline-suppr --suppress=missingIncludeSystem -D_GNU_SOURCE -Isrc -j 2 $(SRCS)

$(TIDY): tidy@%: %
	@clang-tidy --quiet $< -- $(filter-out -MMD -MP,$(BASE)) -Isrc $(PKG_CFLAGS)

# The systemd unit, with the paths of this install.
UNIT := $(B)/iomatrix-sweep@.service
$(UNIT): contrib/iomatrix-sweep@.service.in Makefile
	@mkdir -p $(@D)
	sed -e 's|@BINDIR@|$(PREFIX)/bin|g' -e 's|@DOCDIR@|$(DOCDIR)|g' $< >$@

DOCS := README.md $(wildcard docs/*.md) $(wildcard docs/*.png)

# iomatrix-mpi is installed when it was built (make mpi).
install: $(BIN) $(UNIT)
	install -d $(BINDIR)
	install -m 755 $(BIN) $(BINDIR)/iomatrix
	if [ -x $(MPI_BIN) ]; then install -m 755 $(MPI_BIN) $(BINDIR)/iomatrix-mpi; fi
	install -d $(MANDIR)/man1 $(MANDIR)/man5 $(COMPDIR) $(DESTDIR)$(ZSHDIR)
	install -m 644 docs/iomatrix.1 $(MANDIR)/man1/iomatrix.1
	if [ -x $(MPI_BIN) ]; then install -m 644 docs/iomatrix-mpi.1 $(MANDIR)/man1/iomatrix-mpi.1; fi
	install -m 644 docs/iomatrix-matrix.5 $(MANDIR)/man5/iomatrix-matrix.5
	install -m 644 contrib/iomatrix.bash-completion $(COMPDIR)/iomatrix
	install -m 644 contrib/iomatrix.zsh-completion $(DESTDIR)$(ZSHDIR)/_iomatrix
	install -d $(DESTDIR)$(DOCDIR) $(DESTDIR)$(UNITDIR)
	install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	install -m 644 $(UNIT) $(DESTDIR)$(UNITDIR)/iomatrix-sweep@.service

uninstall:
	rm -f $(BINDIR)/iomatrix $(BINDIR)/iomatrix-mpi
	rm -f $(MANDIR)/man1/iomatrix.1 $(MANDIR)/man1/iomatrix-mpi.1 $(MANDIR)/man5/iomatrix-matrix.5
	rm -f $(COMPDIR)/iomatrix $(DESTDIR)$(ZSHDIR)/_iomatrix
	rm -f $(DESTDIR)$(UNITDIR)/iomatrix-sweep@.service
	rm -rf $(DESTDIR)$(DOCDIR)

# A source tarball: the tree as it is (no build/), with VERSION, so a build outside git knows it.
DIST_NAME := iomatrix-$(VERSION)
DIST      := $(BUILD_ROOT)/$(DIST_NAME).tar.gz
DIST_TOP  := Makefile README.md LICENSE src matrices tests contrib docs
dist:
	@mkdir -p $(BUILD_ROOT)
	@echo '$(VERSION)' >$(BUILD_ROOT)/VERSION
	tar -czf $(DIST) --owner=0 --group=0 --sort=name --exclude='*.o' --exclude='*.d' \
	    --transform 's|^|$(DIST_NAME)/|S' $(DIST_TOP) -C $(abspath $(BUILD_ROOT)) VERSION
	@rm -f $(BUILD_ROOT)/VERSION
	@echo $(DIST)

# The Debian packages, built by dpkg-buildpackage from the tarball's tree with contrib/debian/
# as its debian/ (contrib/debian/build.sh); lintian run on them, overrides in contrib/debian/.
deb: dist
	@contrib/debian/build.sh $(DIST) $(VERSION) $(BUILD_ROOT)/deb

# make deb, then what the packages hold (tests/deb.sh; CI runs it, make test does not: minutes)
deb-test: deb
	@tests/deb.sh $(BUILD_ROOT)/deb

clean:
	rm -rf build

-include $(LIB_OBJS:.o=.d) $(B)/src/main.d $(MPI_OBJ)/main.d $(MPI_OBJ)/host_mpi.d $(TEST_BINS:=.d) $(FUZZ_BINS:=.d) \
    $(B)/bench/verify_speed.d $(B)/bench/crc_zlib.d $(B)/bench/trace_speed.d $(B)/bench/wake_cost.d
