# Tessera - one Makefile for the library, the launcher, the apps and the tests.
#
#   make run       install what is missing, build the library, tsrun and SOR,
#                  run SOR on 4 local nodes and print the job's statistics
#   make check     the quick tier of the tests (tests/quick.tier), a few minutes
#   make test      build and run every test (T=PATTERNS: only those; make prove: through prove)
#   make check-asan, make check-tsan   the tests under the sanitizers
#   make fuzz      the libFuzzer targets of tests/fuzz/, FUZZ_SECONDS each
#   make bench     the full side-by-side benchmark (bench/README.md), then bench-cas
#   make cas       the CAS-DSM pass plugin, tsrcc, the apps at every level (docs/CAS.md)
#   make install PREFIX=dir   library, headers, tsrun (and tsrcc), pkg-config and
#                  CMake packages, man pages (docs/INSTALL.md)
#
# Everything built lands in build/. Each application adds itself through its
# own apps/<name>/app.mk so that adding one never touches this file.

PREFIX  ?= /usr/local
BUILD   := build
CC      ?= cc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -fPIC -pthread
CPPFLAGS += -D_GNU_SOURCE -Iinclude -Isrc -MMD -MP
# -z now: every library call is bound at start-up, so the program's .got.plt
# (beside its globals) is never written afterwards; TSR_SHARE_GLOBALS=1
# needs that (docs/GLOBALS.md). tessera.pc gives users the same flag.
LDLIBS  += -pthread -lm -Wl,-z,now
MPICC   ?= mpicc

OBJCOPY ?= objcopy

LIB_SRCS := $(wildcard src/*/*.c src/*/*/*.c)
LIB_SRCS := $(filter-out src/launcher/% src/api/omp/%,$(LIB_SRCS))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
TSRUN    := $(BUILD)/bin/tsrun

# The UCX backend (TSR_TRANSPORT=ucx) is built when pkg-config finds UCX
# (scripts/deps.sh installs it); `make UCX=no` leaves it out, and the
# backend then refuses with a message saying how to get it.
UCX ?= $(shell pkg-config --exists ucx 2>/dev/null && echo yes)
ifeq ($(UCX),yes)
# Only UCX's headers are needed to build it: the backend opens UCX's
# libraries when a job chooses it (src/transport/ucx.c), so no program
# links them.
CPPFLAGS += -DTSR_HAVE_UCX $(shell pkg-config --cflags ucx)
else
LIB_OBJS := $(filter-out $(BUILD)/obj/src/transport/ucx%,$(LIB_OBJS))
endif

# The library exports only the API that include/tessera.h marks TSR_API.
# SO_VERSION follows TSR_VERSION_MAJOR/MINOR in tessera.h; the soname carries
# the major number, which changes when the ABI breaks (tests/sh/exports.sh
# checks that the versions agree).
SO_MAJOR   := 0
SO_VERSION := $(SO_MAJOR).1.0
LIBA       := $(BUILD)/lib/libtessera.a
LIBSO_FILE := $(BUILD)/lib/libtessera.so.$(SO_VERSION)
LIBSO_NAME := $(BUILD)/lib/libtessera.so.$(SO_MAJOR)
LIBSO      := $(BUILD)/lib/libtessera.so
# tsrun --version and tsrcc --version name the commit they were built from;
# $(BUILD)/commit changes only when the commit does, so that nothing else
# is rebuilt for it.
TSR_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
COMMIT_STAMP := $(BUILD)/commit
# The same object with its internal names still global, for tsrun, the
# unit tests and the programs that reach inside the runtime. Never installed.
LIBINT     := $(BUILD)/lib/libtessera_internal.a
OMPLIB     := $(BUILD)/lib/libtessera_omp.a
# A test or benchmark that includes a runtime header ("layer/name.h") links
# LIBINT; every other program links libtessera.a as a user's program would.
INTERNAL_USERS := $(shell grep -l '^\#include "[a-z]*/[a-z_/]*\.h"' tests/mp/*.c bench/*.c)
lib_for = $(if $(filter $(1),$(INTERNAL_USERS)),$(LIBINT),$(LIBA))

.PHONY: all lib apps parmacs mpi-apps tests examples run check test prove bench bench-quick bench-micro bench-deps benches install deps clean cas
all: lib $(TSRUN) apps tests benches examples cas parmacs

lib: $(LIBA) $(LIBSO) $(LIBINT) $(OMPLIB)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# Rebuilt when the Makefile changes, so that no stale object keeps old flags
# (an object built without -fvisibility=hidden would export its names).
$(LIB_OBJS): CFLAGS += -fvisibility=hidden
$(LIB_OBJS): Makefile

# An archive of the separate objects would keep every cross-file name
# global, and a program defining `region` or `log_die` would fail to link.
# So the objects become one relocatable object whose hidden symbols are then
# made local: only the TSR_API functions stay global. src/private.ld puts the
# runtime's writable data on pages of its own there, so that a program that
# shares its globals (TSR_SHARE_GLOBALS=1, docs/GLOBALS.md) keeps them private.
$(BUILD)/obj/libtessera_int.o: $(LIB_OBJS) src/private.ld
	$(CC) -r -nostdlib -Wl,-T,src/private.ld -o $@ $(LIB_OBJS)

$(BUILD)/obj/libtessera.o: $(BUILD)/obj/libtessera_int.o
	$(OBJCOPY) --localize-hidden $< $@

$(LIBA): $(BUILD)/obj/libtessera.o
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBINT): $(BUILD)/obj/libtessera_int.o
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# The OpenMP runtime (src/api/omp/, docs/OPENMP.md) that tsrcc -fopenmp links
# beside libtessera.a: libomp's entry points over Tessera's public API, made
# one object the same way, its data private, only its OMP_API names global.
OMP_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard src/api/omp/*.c))
$(OMP_OBJS): CFLAGS += -fvisibility=hidden
$(OMP_OBJS): Makefile src/api/omp/omp_rt.h

$(BUILD)/obj/libtessera_omp.o: $(OMP_OBJS) src/private.ld
	$(CC) -r -nostdlib -Wl,-T,src/private.ld -o $@.tmp $(OMP_OBJS)
	$(OBJCOPY) --localize-hidden $@.tmp $@ && rm -f $@.tmp

$(OMPLIB): $(BUILD)/obj/libtessera_omp.o
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBSO_FILE): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(notdir $(LIBSO_NAME)) -o $@ $^ $(LDLIBS)

$(LIBSO_NAME): $(LIBSO_FILE)
	ln -sf $(notdir $<) $@

$(LIBSO): $(LIBSO_NAME)
	ln -sf $(notdir $<) $@

.PHONY: FORCE
$(COMMIT_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(TSR_COMMIT)' | cmp -s - $@ || echo '$(TSR_COMMIT)' >$@

$(BUILD)/obj/src/launcher/options.o: $(COMMIT_STAMP)
$(BUILD)/obj/src/launcher/options.o: CPPFLAGS += -DTSR_VERSION_TEXT='"$(SO_VERSION)"' -DTSR_COMMIT='"$(TSR_COMMIT)"'

# Linked beside and renamed into place: a test running tsrun while `make
# install` relinks it for a new commit (tsrun --version) must never exec a
# file still being written (ETXTBSY, exit 126).
$(TSRUN): $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard src/launcher/*.c)) $(LIBINT)
	@mkdir -p $(dir $@)
	$(CC) -o $@.tmp $^ $(LDLIBS) && mv -f $@.tmp $@

# ---- Applications -----------------------------------------------------------
# An app.mk sets, for app NAME:  APPS += NAME, NAME_SRCS (Tessera version),
# NAME_SEQ_SRCS (plain C), optionally NAME_MPI_SRCS, NAME_TEST_ARGS (small
# input for make test) and NAME_QUICK_ARGS / NAME_BENCH_ARGS for the harness.
# NAME_THREADED := yes says the Tessera version runs TSR_THREADS workers per
# node (apps/common/tsr_app.h): tests/plan.sh runs it with 2 under the
# `threads` set, and NAME_native is the same source on plain pthreads
# (apps/common/tsr_native.c, no Tessera) for bench/thr_apps.sh.
APPS :=
include $(wildcard apps/*/app.mk)

define app_rules
$(BUILD)/apps/$(1): $$($(1)_SRCS) $(LIBA)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CPPFLAGS) $$(CFLAGS) -Iapps/common -o $$@ $$($(1)_SRCS) $(LIBA) $$(LDLIBS)
$(BUILD)/apps/$(1)_seq: $$($(1)_SEQ_SRCS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CPPFLAGS) $$(CFLAGS) -Iapps/common -o $$@ $$($(1)_SEQ_SRCS) $$(LDLIBS)
ifneq ($$($(1)_MPI_SRCS),)
$(BUILD)/apps/$(1)_mpi: $$($(1)_MPI_SRCS)
	@mkdir -p $$(dir $$@)
	$$(MPICC) $$(CPPFLAGS) $$(CFLAGS) -Iapps/common -o $$@ $$($(1)_MPI_SRCS) $$(LDLIBS)
MPI_APP_BINS += $(BUILD)/apps/$(1)_mpi
endif
APP_BINS += $(BUILD)/apps/$(1) $(BUILD)/apps/$(1)_seq
ifneq ($$($(1)_THREADED),)
$(BUILD)/apps/$(1)_native: $$($(1)_SRCS) apps/common/tsr_native.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CPPFLAGS) $$(CFLAGS) -DAPP_NATIVE -Iapps/common -o $$@ $$($(1)_SRCS) apps/common/tsr_native.c $$(LDLIBS)
APP_BINS += $(BUILD)/apps/$(1)_native
endif
endef
$(foreach a,$(APPS),$(eval $(call app_rules,$(a))))
THREADED_APPS := $(foreach a,$(APPS),$(if $($(a)_THREADED),$(a)))

apps: $(APP_BINS)
mpi-apps: $(MPI_APP_BINS)

# ---- CAS-DSM: the compiler pass and tsrcc (docs/CAS.md) ----------------------
# The pass is an LLVM 16 plugin, built with Debian's clang-16 and
# llvm-16-dev (scripts/deps.sh build installs them). Without them `make`
# says so, and the CAS tests skip saying why. CAS_APPS: each application
# built by tsrcc at each level, into build/cas/LEVEL/, and with polling,
# into build/cas/poll/.
LLVM_CONFIG ?= /usr/lib/llvm-16/bin/llvm-config
CLANG16     ?= clang-16
HAVE_LLVM   := $(shell test -x $(LLVM_CONFIG) && command -v $(CLANG16) >/dev/null && echo yes)
CAS_PLUGIN  := $(BUILD)/lib/tessera-cas.so
TSRCC       := $(BUILD)/bin/tsrcc
CAS_OBJS    := $(patsubst compiler/%.cpp,$(BUILD)/obj/compiler/%.o,$(wildcard compiler/*.cpp))
CAS_LEVELS  := none basic aghoist agdiscard maxaghoist maxagdiscard
# Each build's tsrcc options: a level's own, and `poll`, maxagdiscard with
# tsr_poll before inner loops.
CAS_BUILDS  := $(CAS_LEVELS) poll
cas_flags    = $(if $(filter poll,$(1)),-tsr-cas=maxagdiscard -tsr-poll,-tsr-cas=$(1))
CAS_APPS    := $(foreach l,$(CAS_BUILDS),$(foreach a,$(APPS),$(BUILD)/cas/$(l)/$(a)))
tsrcc_for = sed -e 's|@PLUGIN@|$(1)|' -e 's|@INCLUDE@|$(2)|' -e 's|@LIB@|$(3)|' \
                -e 's|@CLANG@|$(CLANG16)|' -e 's|@VERSION@|$(SO_VERSION)|' \
                -e 's|@COMMIT@|$(TSR_COMMIT)|' compiler/tsrcc.in

# The applications' OpenMP forms (NAME_OMP_SRCS, docs/OPENMP.md), one source
# built twice: build/apps/NAME_omp by tsrcc -fopenmp (the harness's
# tessera-omp; without CAS checks, like the API versions beside it) and
# build/apps/NAME_ompnative by clang-16 -fopenmp with libomp (omp-native, one
# host), where libomp-16-dev is installed.
OMP_APPS     := $(foreach a,$(APPS),$(if $($(a)_OMP_SRCS),$(a)))
HAVE_LIBOMP  := $(shell test -f /usr/lib/llvm-16/lib/libomp.so && echo yes)
OMP_APP_BINS := $(foreach a,$(OMP_APPS),$(BUILD)/apps/$(a)_omp \
                    $(if $(HAVE_LIBOMP),$(BUILD)/apps/$(a)_ompnative))

ifeq ($(HAVE_LLVM),yes)
cas: $(CAS_PLUGIN) $(TSRCC) $(CAS_APPS) $(OMP_APP_BINS)
else
cas:
	@echo "cas: clang-16 or llvm-16-dev is missing (scripts/deps.sh build installs them): no tsrcc, CAS tests skipped"
endif

$(BUILD)/obj/compiler/%.o: compiler/%.cpp compiler/cas_pass.h compiler/omp_pass.h
	@mkdir -p $(dir $@)
	$(CLANG16:clang%=clang++%) $(shell $(LLVM_CONFIG) --cxxflags 2>/dev/null) -fPIC -O2 -Wall -Wextra -Wno-unused-parameter -c $< -o $@

$(CAS_PLUGIN): $(CAS_OBJS)
	@mkdir -p $(dir $@)
	$(CLANG16:clang%=clang++%) -shared -o $@ $^

$(TSRCC): compiler/tsrcc.in Makefile $(COMMIT_STAMP)
	@mkdir -p $(dir $@)
	$(call tsrcc_for,$(abspath $(CAS_PLUGIN)),$(abspath include),$(abspath $(LIBA))) >$@.tmp
	chmod 755 $@.tmp && mv -f $@.tmp $@

define cas_app_rule
$(BUILD)/cas/$(1)/$(2): $$($(2)_SRCS) $(LIBA) $(CAS_PLUGIN) $(TSRCC)
	@mkdir -p $$(dir $$@)
	$(TSRCC) $(call cas_flags,$(1)) -O2 -g -D_GNU_SOURCE -Iapps/common -o $$@ $$($(2)_SRCS)
endef
$(foreach l,$(CAS_BUILDS),$(foreach a,$(APPS),$(eval $(call cas_app_rule,$(l),$(a)))))

define omp_app_rule
$(BUILD)/apps/$(1)_omp: $$($(1)_OMP_SRCS) $(LIBA) $(OMPLIB) $(CAS_PLUGIN) $(TSRCC)
	@mkdir -p $$(dir $$@)
	$(TSRCC) -fopenmp -tsr-cas=none -O2 -g -D_GNU_SOURCE -Iapps/common -o $$@ $$($(1)_OMP_SRCS)
$(BUILD)/apps/$(1)_ompnative: $$($(1)_OMP_SRCS)
	@mkdir -p $$(dir $$@)
	$(CLANG16) -fopenmp -O2 -g -D_GNU_SOURCE -Iapps/common -o $$@ $$($(1)_OMP_SRCS) -lm
endef
$(foreach a,$(OMP_APPS),$(eval $(call omp_app_rule,$(a))))

# ---- Examples: programs written for TreadMarks or JIAJIA ----------------------
# Built with the public headers only, as a user of those systems would.
EXAMPLE_BINS := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))

$(BUILD)/examples/%: examples/%.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Iinclude -o $@ $< $(LIBA) $(LDLIBS)

examples: $(EXAMPLE_BINS)

# ---- PARMACS programs: SPLASH-style kernels through share/tessera/c.m4.tessera
# m4 expands the ANL macros (docs/OMPNOW.md); the C is built like a user's.
PARMACS_M4   := share/tessera/c.m4.tessera
PARMACS_BINS := $(patsubst tests/parmacs/%.C,$(BUILD)/parmacs/%,$(wildcard tests/parmacs/*.C))

$(BUILD)/parmacs/%.c: tests/parmacs/%.C $(PARMACS_M4)
	@mkdir -p $(dir $@)
	m4 $(PARMACS_M4) $< >$@

$(BUILD)/parmacs/%: $(BUILD)/parmacs/%.c $(LIBA) include/tessera_parmacs.h
	$(CC) $(CFLAGS) -Iinclude -o $@ $< $(LIBA) $(LDLIBS)

# The same SPLASH-3-style source on POSIX threads (tests/parmacs/c.m4.pthreads),
# the reference tests/sh/parmacs.sh compares the Tessera build with.
PARMACS_PT_M4 := tests/parmacs/c.m4.pthreads
PARMACS_PT    := $(BUILD)/parmacs/splash.pthreads

$(BUILD)/parmacs/%.pthreads.c: tests/parmacs/%.C $(PARMACS_PT_M4)
	@mkdir -p $(dir $@)
	m4 $(PARMACS_PT_M4) $< >$@

$(BUILD)/parmacs/%.pthreads: $(BUILD)/parmacs/%.pthreads.c
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

parmacs: $(PARMACS_BINS) $(PARMACS_PT)

# ---- Tests ------------------------------------------------------------------
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)
MP_SRCS   := $(wildcard tests/mp/*.c)
MP_BINS   := $(MP_SRCS:tests/mp/%.c=$(BUILD)/tests/mp/%)

$(BUILD)/tests/unit/%: tests/unit/%.c $(LIBINT)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIBINT) $(LDLIBS)

$(BUILD)/tests/mp/%: tests/mp/%.c $(LIBA) $(LIBINT)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(call lib_for,$<) $(LDLIBS)

tests: $(UNIT_BINS) $(MP_BINS)

BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c)) $(BUILD)/bench/tsr_micro
benches: $(BENCH_BINS)

# make test [T=PATTERNS] runs every test found by tests/plan.sh, or only
# those whose name contains one of the space-separated shell PATTERNS
# (T=lock_counter, T=sh/launcher, T='unit/ sh/'), in parallel, as TAP.
# make prove [T=PATTERNS] runs the same tests through prove(1).
# Where an MPI compiler is installed (make bench installs one), the MPI
# programs are built too, so that tests/sh/app_kernels.sh compares their
# kernels with the others'; without one, that part is skipped, saying so.
HAVE_MPICC := $(shell command -v $(MPICC) 2>/dev/null)
test: deps
	$(MAKE) all fuzz-build $(if $(HAVE_MPICC),mpi-apps)
	@T='$(T)' tests/run.sh

# make check [T=PATTERNS] is the quick tier (tests/quick.tier): the unit
# tests, the multi-process tests at 2 nodes under the default configuration,
# tcp and udp, and SOR; it builds only what those need.
check: deps
	$(MAKE) lib $(TSRUN) $(UNIT_BINS) $(MP_BINS) $(BUILD)/apps/sor
	@TSR_TEST_TIER=quick T='$(T)' tests/run.sh

prove: deps
	$(MAKE) all
	@T='$(T)' tests/plan.sh $(BUILD)/tests/t >/dev/null
	prove -j2 -r $(BUILD)/tests/t

# ---- Sanitizer builds -------------------------------------------------------
# make check-asan / make check-tsan [T=PATTERNS] build the library, tsrun, the
# tests and the apps with AddressSanitizer + UndefinedBehaviorSanitizer, or
# ThreadSanitizer, into build-asan/ or build-tsan/, and run the unit tests
# and the multi-process suite on that build, under the configurations
# tests/san_matrix.sh picks from tests/matrix (each protocol, backend and
# engine, at fewer node counts); T= narrows it as for make test. The flags reach the ordinary build
# rules through CFLAGS and LDLIBS in the environment.
#
# What the runtime needs under each sanitizer (x86-64, GCC 12):
#  - ASan must leave SIGSEGV to the DSM's fault handler: handle_segv=0,
#    allow_user_segv_handler=1. Its shadow memory spans 0x02008fff7000 to
#    0x10007fff7fff, over the default TSR_BASE (0x100000000000), so the
#    shared region moves up to 0x200000000000. Leaks are checked at exit.
#  - UBSan stops at its first report (-fno-sanitize-recover), failing the test.
#  - TSan lets a program map memory only in its application ranges (below
#    0x008000000000, and some above 0x550000000000); TSR_BASE=0x1000000000
#    puts the 16G region in the low one. There is no suppression file, but
#    the TSR_DETECT=uffd configurations do not run under TSan: the thread
#    that faulted is suspended in the kernel while the handler thread serves
#    its fault, an ordering TSan cannot see, so every fault would be
#    reported as a race with the thread it stopped (san_matrix.sh --no-uffd).
#    Nor is UCX built in (UCX=no, san_matrix.sh --no-ucx): linking it brings
#    UCX's memory hooks (libucm's madvise), which a new thread calls as it
#    starts, before TSan has set the thread up, and crashes.
#    TSan slows the runtime 5-15 times, and check-tsan runs two jobs at
#    once on two cores: a comm thread was once silent for the default 5 s
#    (mp/lrc_gc absent, in CI), so heartbeats there allow 20 s.
SAN_BUILDS := build-asan build-tsan
ASAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
ASAN_ENV   := ASAN_OPTIONS=handle_segv=0:allow_user_segv_handler=1 UBSAN_OPTIONS=print_stacktrace=1 TSR_BASE=0x200000000000 TSR_TEST_MATRIX=build-asan/matrix
TSAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
TSAN_ENV   := TSAN_OPTIONS=halt_on_error=1 TSR_BASE=0x1000000000 TSR_TEST_MATRIX=build-tsan/matrix TSR_HEARTBEAT=20

# $(call sanitizer_check,BUILD-DIR,FLAGS,RUN-ENVIRONMENT[,MAKE-VARIABLES])
define sanitizer_check
	CFLAGS='$(2)' LDLIBS='$(2)' $(MAKE) BUILD=$(1) $(4) lib tests apps $(1)/bin/tsrun
	@$(3) B=$(1) T='$(or $(T),unit/ mp/)' tests/run.sh
endef

.PHONY: check-asan check-tsan
check-asan: deps build-asan/matrix
	$(call sanitizer_check,build-asan,$(ASAN_FLAGS),$(ASAN_ENV))

# With tsrcc and its plugin where clang-16 is, for T=sh/omp_teams (OpenMP
# teams of several threads a node, their programs linked with GCC's libtsan).
check-tsan: deps build-tsan/matrix
	$(call sanitizer_check,build-tsan,$(TSAN_FLAGS),$(TSAN_ENV),UCX=no \
	    $(if $(HAVE_LLVM),build-tsan/bin/tsrcc build-tsan/lib/tessera-cas.so))

# The sanitizers' configurations; TSan's without the TSR_DETECT=uffd and ucx
# lines (see the TSan note above).
.PHONY: build-asan/matrix build-tsan/matrix
build-asan/matrix:
	@mkdir -p $(dir $@)
	tests/san_matrix.sh >$@
build-tsan/matrix:
	@mkdir -p $(dir $@)
	tests/san_matrix.sh --no-uffd --no-ucx >$@

# ---- Fuzzing ----------------------------------------------------------------
# libFuzzer targets (tests/fuzz/NAME.c) feed random bytes to message dispatch,
# to the lock manager and barrier root, to diff decoding and to the udp
# backend's reliability layer. They need clang
# (scripts/deps.sh installs it): the library is built again with clang,
# coverage and ASan/UBSan into build-fuzz/.
# make fuzz runs each for FUZZ_SECONDS (default 300); make test runs each for
# a few seconds (tests/sh/fuzz.sh). Crashes are left in build-fuzz/crashes/.
FUZZ_BUILD   := build-fuzz
FUZZ_FLAGS   := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(FUZZ_BUILD)/fuzz/%,$(wildcard tests/fuzz/*.c))
FUZZ_SECONDS ?= 300

.PHONY: fuzz fuzz-build
fuzz-build:
	@if command -v clang >/dev/null; then \
	    CC=clang CFLAGS='$(FUZZ_FLAGS) -fsanitize=fuzzer-no-link' LDLIBS='$(FUZZ_FLAGS)' \
	        $(MAKE) -s BUILD=$(FUZZ_BUILD) $(FUZZ_TARGETS); \
	else echo "fuzz: clang is missing (scripts/deps.sh build installs it)"; fi

$(FUZZ_BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_BUILD)/lib/libtessera_internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_BUILD)/lib/libtessera_internal.a -pthread -lm

fuzz: deps fuzz-build
	@mkdir -p $(FUZZ_BUILD)/crashes
	@for t in $(FUZZ_TARGETS); do \
	    echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	    $$t -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(FUZZ_BUILD)/crashes/ -print_final_stats=1 || exit 1; \
	done

# ---- Running and benchmarking ----------------------------------------------
deps:
	@scripts/deps.sh build

# The demo builds only what it runs (the library, tsrun and SOR), so that it
# starts within seconds of a clone; it ends with the job's statistics table.
run: deps
	$(MAKE) lib $(TSRUN) $(BUILD)/apps/sor
	$(TSRUN) -n 4 --stats $(BUILD)/apps/sor $(sor_RUN_ARGS)

$(BUILD)/bench/%: bench/%.c $(LIBA) $(LIBINT)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(call lib_for,$<) $(LDLIBS)

# Barnes-Hut reuses the app's code (apps/barnes/barnes.h and its app.h),
# whose static functions it does not all call.
$(BUILD)/bench/ompnow_barnes: CPPFLAGS += -Iapps/common
$(BUILD)/bench/ompnow_barnes: CFLAGS += -Wno-unused-function

# SOR's sweep over each kind of memory (docs/PERFORMANCE.md, TCP section).
$(BUILD)/bench/sor_memory: apps/sor/sor_kernels.c
$(BUILD)/bench/sor_memory: CPPFLAGS += -Iapps/common -Iapps/sor
$(BUILD)/bench/sor_memory: LDLIBS += apps/sor/sor_kernels.c

# tsr_micro has a file per group of rows in bench/micro/ (micro.h); it
# reaches inside the runtime, so it links LIBINT.
MICRO_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard bench/micro/*.c))
$(BUILD)/bench/tsr_micro: $(MICRO_OBJS) $(LIBINT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(MICRO_OBJS) $(LIBINT) $(LDLIBS)

# MPI's own round trip, the transport table's reference (tsr_micro runs it
# when mpirun is there; its rows are empty otherwise).
$(BUILD)/bench/mpi_pingpong: bench/mpi/pingpong.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $<

bench-micro: bench-deps
	$(MAKE) all $(BENCH_BINS) $(BUILD)/bench/mpi_pingpong
	python3 bench/micro_report.py

bench-deps:
	@scripts/deps.sh bench

bench: bench-deps
	$(MAKE) all mpi-apps $(BENCH_BINS)
	python3 bench/harness.py --full
	$(MAKE) bench-cluster
	$(MAKE) bench-cas
	$(MAKE) bench-themis
	$(MAKE) bench-ompnow

# Barnes-Hut with replicated sequential sections and multicast, the shape
# of OpenMP/NOW's Tables 1 and 2 (docs/OMPNOW.md).
.PHONY: bench-ompnow
bench-ompnow: all
	python3 bench/ompnow_barnes.py

# Tessera against MPI across four network-namespace hosts at 1 Gbit/s
# (needs root; bench/README.md).
.PHONY: bench-cluster
bench-cluster: bench-deps
	bench/cluster_netns.sh | tee bench/results/cluster_netns.txt

bench-quick: bench-deps
	$(MAKE) all mpi-apps $(BENCH_BINS)
	python3 bench/harness.py --quick

# Lock acquire+release latency against memory written, both write detection
# modes side by side (bench/README.md).
.PHONY: bench-release
bench-release: all
	python3 bench/release_cost.py

# CAS-DSM's Tables 4-8 and 11-13: every app at every level of the pass and
# with polling (docs/CAS.md), under the default progress policy and with
# comm threads that always sleep.
.PHONY: bench-cas
CAS_REPS ?= 1
bench-cas: deps
	$(MAKE) all
	python3 bench/cas_table.py --reps $(CAS_REPS)
	TSR_PROGRESS=block python3 bench/cas_table.py --reps $(CAS_REPS) --out bench/results/cas_block.md
# Themis: the paper's Figures 4 and 5, reordering counts and CG beside the
# same accesses in OpenSHMEM (docs/THEMIS.md). The OpenSHMEM program is
# built with Open MPI's oshcc (openmpi-bin, libopenmpi-dev).
OSHCC ?= oshcc
$(BUILD)/bench/ga_micro_shmem: bench/shmem/ga_micro_shmem.c bench/ga_pattern.h
	@mkdir -p $(dir $@)
	$(OSHCC) $(CFLAGS) -o $@ $<

.PHONY: bench-themis
bench-themis: bench-deps
	$(MAKE) all $(BENCH_BINS) $(BUILD)/bench/ga_micro_shmem
	bench/themis.sh | tee bench/results/themis.txt

# Munin's multiple protocols: the paper's Tables 6 and 2 (docs/MUNIN.md).
.PHONY: bench-munin
bench-munin: all
	$(TSRUN) -n 4 $(BUILD)/bench/munin_table6
	$(TSRUN) -n 2 $(BUILD)/bench/munin_table2

# ---- Installation -----------------------------------------------------------
install: lib $(TSRUN) $(if $(HAVE_LLVM),$(CAS_PLUGIN))
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 $(TSRUN) $(DESTDIR)$(PREFIX)/bin/tsrun
	install -m 644 include/tessera.h include/tessera_munin.h include/tessera_ga.h include/tessera_parmacs.h include/tmk.h include/Tmk.h include/jia.h $(DESTDIR)$(PREFIX)/include/
	install -d $(DESTDIR)$(PREFIX)/share/tessera
	install -m 644 $(PARMACS_M4) $(DESTDIR)$(PREFIX)/share/tessera/
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/libtessera.a
	install -m 644 $(OMPLIB) $(DESTDIR)$(PREFIX)/lib/libtessera_omp.a
	install -d $(DESTDIR)$(PREFIX)/include/omp
	install -m 644 include/omp/omp.h $(DESTDIR)$(PREFIX)/include/omp/
	install -m 755 $(LIBSO_FILE) $(DESTDIR)$(PREFIX)/lib/$(notdir $(LIBSO_FILE))
	ln -sf $(notdir $(LIBSO_FILE)) $(DESTDIR)$(PREFIX)/lib/$(notdir $(LIBSO_NAME))
	ln -sf $(notdir $(LIBSO_NAME)) $(DESTDIR)$(PREFIX)/lib/libtessera.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(SO_VERSION)|' tessera.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tessera.pc
	install -d $(DESTDIR)$(PREFIX)/lib/cmake/Tessera $(DESTDIR)$(PREFIX)/share/man/man1
	for f in TesseraConfig TesseraConfigVersion; do \
	    sed -e 's|@VERSION@|$(SO_VERSION)|' -e 's|@SO_MAJOR@|$(SO_MAJOR)|' cmake/$$f.cmake.in \
	        > $(DESTDIR)$(PREFIX)/lib/cmake/Tessera/$$f.cmake || exit 1; \
	done
	for m in tsrun tsrcc; do \
	    sed -e 's|@VERSION@|$(SO_VERSION)|' share/man/man1/$$m.1 \
	        > $(DESTDIR)$(PREFIX)/share/man/man1/$$m.1 || exit 1; \
	done
ifeq ($(HAVE_LLVM),yes)
	install -m 755 $(CAS_PLUGIN) $(DESTDIR)$(PREFIX)/lib/tessera-cas.so
	$(call tsrcc_for,$(PREFIX)/lib/tessera-cas.so,$(PREFIX)/include,$(PREFIX)/lib/libtessera.a) \
	    > $(DESTDIR)$(PREFIX)/bin/tsrcc
	chmod 755 $(DESTDIR)$(PREFIX)/bin/tsrcc
endif

clean:
	rm -rf $(BUILD) $(SAN_BUILDS) $(FUZZ_BUILD)

# A build from when tsr_micro was the one file bench/tsr_micro.c has a
# build/bench/tsr_micro.d that still names it; it is left out.
-include $(filter-out $(BUILD)/bench/tsr_micro.d,$(shell find $(BUILD) -name '*.d' 2>/dev/null))

# `make print-VAR` prints a make variable (the harness reads app arguments so).
print-%:
	@echo '$($*)'
