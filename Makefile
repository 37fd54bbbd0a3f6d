# gpuprof — one Makefile. `make` builds everything into build/; `make V=1` shows the commands.
# Targets: all man test test-sanitize stress demo bench gpu-check gpu-peers fuzz install clean deps.

PREFIX ?= /usr/local
CC ?= cc
CFLAGS ?= -O2 -g
WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wwrite-strings -Wformat=2 \
       -Wno-format-nonliteral -Wno-missing-field-initializers
# (as git's DEVELOPER flags: a table row may leave its trailing fields out, zero, as C defines)
ifdef WERROR
WARN += -Werror
endif
ifdef SANITIZE
CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE)
endif
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -Ilib -Ianalyze -Ianalyze/ext -Iingest -Ibuild/gen -MMD -MP
LIBS = -lsqlite3 -lpcre2-8 -lz -lm -pthread

# Sanitizer builds live apart, so switching SANITIZE never mixes objects.
ifdef SANITIZE
B = build/sanitize
else
B = build
endif
export GPUPROF_BUILD = $(B)
ifeq ($(V),1)
Q =
else
Q = @
endif

EMBED = schemas/session.sql schemas/views.sql $(wildcard schemas/migrate-*.sql) $(wildcard schemas/read-*.sql) schemas/views-ext.sql $(wildcard analyze/*.sql) analyze/kernel-classes.rules analyze/gpu-peaks.rules analyze/stall-reasons.txt report/report.css report/sort.js report/timeline.js

# lib/: what every program shares; analyze/ext/: the SQL engine (functions and tables the analyses call);
# ingest's sink (the write side) and readers' helpers, which the tests and fuzzers link too.
ENGINE_SRC = $(filter-out analyze/ext/sqlext_load.c,$(wildcard analyze/ext/*.c))
SINK_SRC = $(wildcard ingest/sink*.c) ingest/nvtx_op.c ingest/jstream.c ingest/lines.c
# (analyze/module.c, the module header's parser, too: gpuprof_module reads headers in the engine.)
LIB_SRC = $(filter-out lib/gpuprof.c,$(wildcard lib/*.c)) $(ENGINE_SRC) analyze/module.c $(SINK_SRC)
LIB_OBJ = $(LIB_SRC:%.c=$(B)/obj/%.o) $(B)/obj/gen/embedded.o
INGEST_OBJ = $(patsubst %.c,$(B)/obj/%.o,$(filter-out $(SINK_SRC),$(wildcard ingest/*.c)))
ANALYZE_OBJ = $(patsubst %.c,$(B)/obj/%.o,$(filter-out analyze/main.c analyze/module.c,$(wildcard analyze/*.c)))
REPORT_OBJ = $(patsubst %.c,$(B)/obj/%.o,$(wildcard report/*.c))
UNIT_SRC = $(wildcard tests/unit/*.c)

EXPORT_OBJ = $(patsubst %.c,$(B)/obj/%.o,$(wildcard export/*.c))
PROGRAMS = $(B)/bin/gpuprof $(B)/bin/gpuprof-ingest $(B)/bin/gpuprof-analyze $(B)/bin/gpuprof-report \
	   $(B)/bin/gpuprof-export $(B)/bin/gpuprof-synth $(B)/bin/gpuprof-collect
UNITS = $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)

# The collector: libgpuprof.so needs CUPTI (CUDA 13 at $(CUDA)); without it only the launcher is built.
CUDA ?= /usr/local/cuda
HAVE_CUPTI := $(wildcard $(CUDA)/include/cupti.h)
COLLECTOR_SRC = collector/inject.c collector/activity.c collector/oom.c collector/pcsampling.c collector/wire.c \
		collector/sampler.c lib/util.c lib/utf8.c lib/json.c lib/records.c lib/intmap.c lib/symname.c
# Each function in a section of its own, and the link keeps only those reachable from the entry points:
# what libgpuprof.so can run is then what nm shows, and tests/collector.py checks that nothing in it can
# abort the program (lib/util.c's x* allocators, abort, exit). GPUPROF_NEVER_ABORT makes every struct buf
# in it fail soft (lib/util.h).
PIC_CFLAGS = $(ALL_CFLAGS) -fPIC -fvisibility=hidden -ffunction-sections -fdata-sections -DGPUPROF_NEVER_ABORT \
	     -Icollector \
	     -isystem $(CUDA)/include
CUPTI_LIBS = -L$(CUDA)/lib64 -Wl,-rpath,$(CUDA)/lib64 -lcupti
ifneq ($(HAVE_CUPTI),)
COLLECTOR = $(B)/lib/libgpuprof.so
COLLECTOR_TESTS = $(B)/tests/collector/test_activity $(B)/tests/collector/test_pcsampling \
		  $(B)/tests/collector/test_inject $(B)/tests/collector/test_wire \
		  $(B)/tests/collector/fake/libcupti.so.13 $(B)/tests/collector/life \
		  $(B)/tests/collector/failmalloc.so
endif

# The SQL functions as an SQLite loadable extension (`.load gpuprof_sqlite` in sqlite3): analyze/ext/sqlext.c and
# the plain-C code it uses, compiled again to call SQLite through the extension API pointer; only the
# entry point is exported. Never sanitized: a sanitizer runtime cannot be loaded into the sqlite3 shell (the
# linked-in copy is, in tests/unit/test_sqlext.c).
EXTENSION = $(B)/lib/gpuprof_sqlite.so
EXT_SRC = analyze/ext/sqlext_load.c analyze/ext/sqlext.c analyze/ext/sqlext_vtab.c analyze/ext/sqlext_busy.c analyze/ext/sqlext_launch.c analyze/ext/sqlext_exec.c analyze/ext/sqlext_classes.c \
	  analyze/ext/sqlext_window.c analyze/ext/sqlext_fmt.c analyze/ext/sqlext_memory.c analyze/ext/sqlext_nest.c analyze/ext/sqlext_ops.c analyze/ext/sqlext_nodes.c analyze/ext/sqlext_peaks.c analyze/ext/sqlext_module.c analyze/module.c lib/intmap.c lib/colstore.c lib/records.c analyze/ext/dstats.c analyze/ext/spans.c \
	  lib/symname.c lib/table.c lib/json.c lib/utf8.c lib/util.c lib/embed.c $(B)/gen/ext_embedded.c
# What the extension embeds: the views it makes, and the analyses' modules and the data files they read,
# which gpuprof_module runs and binds (the programs embed everything, EMBED; make install installs them).
ANALYZE_FILES = $(wildcard analyze/*.sql) analyze/kernel-classes.rules analyze/gpu-peaks.rules analyze/stall-reasons.txt
EXT_EMBED = schemas/views-ext.sql $(ANALYZE_FILES)
EXT_CFLAGS = $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(ALL_CFLAGS)) -fPIC -fvisibility=hidden \
	     -DGPUPROF_SQLITE_LOADABLE

all: $(PROGRAMS) $(COLLECTOR) $(EXTENSION)

# Man pages, one per program, made from its --help and --version (scripts/help2man.py): the one source.
MANPAGES = $(PROGRAMS:$(B)/bin/%=$(B)/man/%.1)
man: $(MANPAGES)

$(B)/man/%.1: $(B)/bin/% $(B)/bin/gpuprof scripts/help2man.py
	@mkdir -p $(@D)
	@echo "  MAN     $@"
	$(Q)python3 scripts/help2man.py $< > $@

$(B)/bin/bin2c: scripts/bin2c.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) -O1 -o $@ $<

# The analysis modules' headers, checked before they are embedded: the table is made from the files as the
# programs make it from the embedded ones, so a malformed header fails the build here, with FILE:LINE.
MODULES = $(wildcard analyze/*.sql)
MODCHECK_OBJ = $(B)/obj/scripts/modcheck.o $(B)/obj/analyze/analyses.o $(B)/obj/analyze/module.o \
	       $(B)/obj/lib/util.o $(B)/obj/lib/utf8.o $(B)/obj/lib/table.o $(B)/obj/lib/json.o $(B)/obj/lib/embed.o
$(B)/bin/modcheck: $(MODCHECK_OBJ)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ -lm -pthread

$(B)/gen/modules.ok: $(B)/bin/modcheck $(MODULES)
	@mkdir -p $(@D)
	@echo "  CHECK   analyze/*.sql"
	$(Q)$(B)/bin/modcheck $(MODULES)
	$(Q)touch $@

$(B)/gen/embedded.c: $(B)/bin/bin2c $(EMBED) $(B)/gen/modules.ok
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	$(Q)$(B)/bin/bin2c $@ $(EMBED)

$(B)/gen/ext_embedded.c: $(B)/bin/bin2c $(EXT_EMBED) Makefile
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	$(Q)$(B)/bin/bin2c $@ $(EXT_EMBED)

$(B)/obj/gen/embedded.o: $(B)/gen/embedded.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/libcommon.a: $(LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/bin/gpuprof: $(B)/obj/lib/gpuprof.o $(B)/libcommon.a
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/bin/gpuprof-ingest: $(INGEST_OBJ) $(B)/libcommon.a
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/bin/gpuprof-analyze: $(B)/obj/analyze/main.o $(ANALYZE_OBJ) $(B)/libcommon.a
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/bin/gpuprof-report: $(REPORT_OBJ) $(ANALYZE_OBJ) $(B)/libcommon.a
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) -lxlsxwriter

$(B)/bin/gpuprof-export: $(EXPORT_OBJ) $(B)/libcommon.a
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/pic/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(PIC_CFLAGS) -c -o $@ $<

$(B)/lib/libgpuprof.so: $(COLLECTOR_SRC:%.c=$(B)/pic/%.o)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) -shared $(LDFLAGS) -Wl,--no-undefined -Wl,--gc-sections -o $@ $^ $(CUPTI_LIBS) -lstdc++ -ldl -lm -pthread

$(B)/ext/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(EXT_CFLAGS) -c -o $@ $<

$(EXTENSION): $(EXT_SRC:%.c=$(B)/ext/%.o)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) -shared $(filter-out -fsanitize=%,$(LDFLAGS)) -Wl,--no-undefined -o $@ $^ -lpcre2-8 -lm -pthread

$(B)/bin/gpuprof-collect: $(B)/obj/collector/collect.o $(B)/obj/collector/sampler.o $(B)/obj/collector/wire.o \
			  $(B)/libcommon.a
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ -ldl $(LIBS)

$(B)/obj/collector/%.o: collector/%.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -Icollector -c -o $@ $<

$(B)/tests/collector/test_activity: tests/collector/test_activity.c $(B)/pic/collector/activity.o $(B)/pic/collector/oom.o \
				    $(B)/pic/collector/wire.o $(B)/libcommon.a
	@mkdir -p $(@D) $(B)/obj/tests
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -Icollector -isystem $(CUDA)/include -MF $(B)/obj/tests/test_activity.d $(LDFLAGS) \
		-o $@ $^ $(CUPTI_LIBS) -lstdc++ $(LIBS)

$(B)/tests/collector/test_pcsampling: tests/collector/test_pcsampling.c $(B)/pic/collector/pcsampling.o \
				      $(B)/pic/collector/activity.o $(B)/pic/collector/wire.o $(B)/libcommon.a
	@mkdir -p $(@D) $(B)/obj/tests
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -Icollector -isystem $(CUDA)/include -MF $(B)/obj/tests/test_pcsampling.d $(LDFLAGS) \
		-o $@ $^ $(CUPTI_LIBS) -lstdc++ $(LIBS)

$(B)/tests/collector/test_wire: tests/collector/test_wire.c $(B)/pic/collector/wire.o $(B)/libcommon.a
	@mkdir -p $(@D) $(B)/obj/tests
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -Icollector -MF $(B)/obj/tests/test_wire.d $(LDFLAGS) -o $@ $^ $(LIBS)

# A stand-in libcupti.so.13 (LD_LIBRARY_PATH wins over the library's RUNPATH) for the pcsampling engine.
$(B)/tests/collector/fake/libcupti.so.13: tests/collector/fake_cupti.c tests/collector/fake_cupti.map
	@mkdir -p $(@D) $(B)/obj/tests
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -shared -isystem $(CUDA)/include -MF $(B)/obj/tests/fake_cupti.d $(LDFLAGS) \
		-Wl,--version-script=tests/collector/fake_cupti.map -Wl,-soname,libcupti.so.13 -o $@ $< -pthread

# A program's life under the collector (fork, exec, kill, closed stdout); an LD_PRELOAD shim that fails the
# Nth allocation of libgpuprof.so. Not in build/tests/ itself, where tests/run.sh runs the unit programs.
$(B)/tests/collector/life: tests/collector/life.c
	@mkdir -p $(@D) $(B)/obj/tests
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -MF $(B)/obj/tests/life.d $(LDFLAGS) -o $@ $< -ldl

$(B)/tests/collector/failmalloc.so: tests/collector/failmalloc.c
	@mkdir -p $(@D) $(B)/obj/tests
	@echo "  CC      $@"
	$(Q)$(CC) $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(ALL_CFLAGS)) -fPIC -shared \
		-MF $(B)/obj/tests/failmalloc.d -o $@ $< -ldl

$(B)/tests/collector/test_inject: tests/collector/test_inject.c
	@mkdir -p $(@D) $(B)/obj/tests
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -MF $(B)/obj/tests/test_inject.d $(LDFLAGS) -o $@ $< -ldl

$(B)/bin/gpuprof-synth: tests/synth/gpuprof-synth.c tests/synth/ranks.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -MF $(B)/obj/gpuprof-synth.d $(LDFLAGS) -o $@ $< -lm

$(B)/tests/%: tests/unit/%.c $(ANALYZE_OBJ) $(B)/libcommon.a
	@mkdir -p $(@D)
	@echo "  CC      $@"
	@mkdir -p $(B)/obj/tests
	$(Q)$(CC) $(ALL_CFLAGS) -MF $(B)/obj/tests/$*.d $(LDFLAGS) -o $@ $^ $(LIBS)

# The sampler's /proc parsing (collector/sampler.c, built as gpuprof-collect links it).
$(B)/tests/test_sampler: tests/unit/test_sampler.c $(B)/obj/collector/sampler.o $(B)/obj/collector/wire.o \
			 $(B)/libcommon.a
	@mkdir -p $(@D) $(B)/obj/tests
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -Icollector -MF $(B)/obj/tests/test_sampler.d $(LDFLAGS) -o $@ $^ -ldl $(LIBS)

# The SQLite VFS that fails the Nth file operation (tests/faults.py LD_PRELOADs it into the programs); not
# in $(B)/tests itself, where tests/run.sh runs the unit programs.
FAULTVFS = $(B)/tests/faults/libfaultvfs.so
$(FAULTVFS): tests/faults/faultvfs.c
	@mkdir -p $(@D) $(B)/obj/tests
	@echo "  CC      $@"
	$(Q)$(CC) $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(ALL_CFLAGS)) -fPIC -shared \
		-MF $(B)/obj/tests/faultvfs.d -o $@ $< -lsqlite3 -ldl

# The shim that stops a program at its Nth write or rename of a file (tests/outputs_atomic.py).
HOLDWRITE = $(B)/tests/faults/libholdwrite.so
$(HOLDWRITE): tests/faults/holdwrite.c
	@mkdir -p $(@D) $(B)/obj/tests
	@echo "  CC      $@"
	$(Q)$(CC) $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(ALL_CFLAGS)) -fPIC -shared \
		-MF $(B)/obj/tests/holdwrite.d -o $@ $< -ldl

# Fuzzing needs clang's libFuzzer (README.md, "make fuzz"). The product is compiled once with coverage and
# sanitizers into $(B)/fuzz/obj; each target links what it uses. A reader's target also comes as NAME_db,
# the same source built with -DFUZZ_SINK_DB: into a real session database instead of the checking sink.
FUZZ_SECONDS ?= 60
FUZZ_CC = clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	  -fsanitize-coverage-ignorelist=tests/fuzz/coverage-ignore.txt -Ilib -Ianalyze -Ianalyze/ext -Iingest -Ireport -Ibuild/gen \
	  -Icollector -Itests/fuzz -isystem $(CUDA)/include
FUZZ_READERS = ndjson kineto nsys
FUZZ_NAMES = $(filter-out $(if $(HAVE_CUPTI),,activity),$(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_TARGETS = $(FUZZ_NAMES:%=$(B)/fuzz/fuzz_%) $(FUZZ_READERS:%=$(B)/fuzz/fuzz_%_db)
FUZZ_PRODUCT = $(LIB_SRC) $(filter-out ingest/main.c $(SINK_SRC),$(wildcard ingest/*.c)) $(filter-out report/main.c,$(wildcard report/*.c)) \
	       $(filter-out analyze/main.c analyze/module.c,$(wildcard analyze/*.c)) $(if $(HAVE_CUPTI),collector/activity.c collector/wire.c)
FUZZ_OBJ = $(FUZZ_PRODUCT:%.c=$(B)/fuzz/obj/%.o) $(B)/fuzz/obj/gen/embedded.o
FUZZ_LIBS = $(LIBS) -lxlsxwriter $(if $(HAVE_CUPTI),$(CUPTI_LIBS) -lstdc++)

$(B)/fuzz/obj/gen/embedded.o: $(B)/gen/embedded.c
	@mkdir -p $(@D)
	@echo "  FUZZCC  $@"
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer-no-link -c -o $@ $<

$(B)/fuzz/obj/%.o: %.c tests/fuzz/coverage-ignore.txt
	@mkdir -p $(@D)
	@echo "  FUZZCC  $@"
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer-no-link $(FUZZ_OBJ_FLAGS) -MMD -MP -c -o $@ $<

# The JSON scanner without comparison tracing (edges still count): tracing each byte's comparisons was
# 45 % of a Kineto input; what it would steer towards (keys, literals) tests/fuzz/json.dict gives.
$(B)/fuzz/obj/lib/json.o $(B)/fuzz/obj/ingest/jstream.o: FUZZ_OBJ_FLAGS = -fno-sanitize-coverage=trace-cmp

$(B)/fuzz/libfuzzproduct.a: $(FUZZ_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/fuzz/fuzz_%_db: tests/fuzz/fuzz_%.c $(B)/fuzz/libfuzzproduct.a
	@echo "  FUZZ    $@"
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer -DFUZZ_SINK_DB -MMD -MP -MF $(B)/fuzz/obj/$(@F).d -o $@ $< $(B)/fuzz/libfuzzproduct.a $(FUZZ_LIBS)

$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(B)/fuzz/libfuzzproduct.a
	@echo "  FUZZ    $@"
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer -MMD -MP -MF $(B)/fuzz/obj/$(@F).d -o $@ $< $(B)/fuzz/libfuzzproduct.a $(FUZZ_LIBS)

# (before the rules that name them: a rule's prerequisites are expanded as make reads it)
FUZZ_REPLAYS = $(FUZZ_NAMES:%=$(B)/tests/fuzz_%)

deps:
	@scripts/deps.sh

TEST_PROGRAMS = $(UNITS) $(COLLECTOR_TESTS) $(FAULTVFS) $(HOLDWRITE) $(FUZZ_REPLAYS)
test: deps all $(TEST_PROGRAMS)
	@tests/run.sh

# The suites again under AddressSanitizer and UBSan (.ci/run), from a build of their own (build/sanitize):
# SANITIZE_SUITES names them (tests/run.sh's names; `units` is every unit program, the fuzz replays
# included). Leaks are reported too.
# (Not here: vtab, sqlext and modules_shell load the extension into Debian's sqlite3, install needs the man pages, faults
# preloads its VFS.)
SANITIZE_SUITES ?= units cases golden truth wire_doc nsys nsys_rows nsys_stats rows modules views ranks stalls csv md \
		   xlsx kineto analyses compare collector atomic parallel classes memory report_schema trace_export \
		   schema ingest_jobs interrupt demo progress collect html export outputs_atomic hostile ops_ingest ops \
		   user_modules
test-sanitize: deps
	@$(MAKE) --no-print-directory SANITIZE=address,undefined all test-programs
	@GPUPROF_BUILD=build/sanitize GPUPROF_SANITIZE=1 tests/run.sh $(SANITIZE_SUITES)
test-programs: $(TEST_PROGRAMS)

# tests/faults.py at full size: every Nth file operation failed in turn, 100 kills of an ingest.
stress: deps all $(FAULTVFS)
	@GPUPROF_FAULTS_EVERY=1 python3 tests/faults.py

demo: deps all
	@scripts/demo.sh

bench: deps all
	@scripts/bench.py

# The targets again with the normal compiler and tests/fuzz/replay.c for main: `make test` runs each once on
# every file of its seeds and corpus (build/tests/fuzz_NAME, a suite of tests/run.sh).
REPLAY_OBJ = $(filter-out %/main.o,$(INGEST_OBJ) $(REPORT_OBJ)) $(ANALYZE_OBJ) \
	     $(if $(HAVE_CUPTI),$(B)/pic/collector/activity.o $(B)/pic/collector/wire.o) $(B)/libcommon.a
$(B)/tests/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/harness.h $(REPLAY_OBJ)
	@mkdir -p $(@D) $(B)/obj/tests
	@echo "  CC      $@"
	$(Q)$(CC) $(filter-out -MMD -MP,$(ALL_CFLAGS)) -Wno-missing-prototypes -Ireport -Icollector -Itests/fuzz -isystem $(CUDA)/include \
		$(LDFLAGS) -o $@ $< tests/fuzz/replay.c $(REPLAY_OBJ) $(FUZZ_LIBS)

# Each target FUZZ_SECONDS from its seeds and corpus (tests/fuzz/{seeds,corpus}-NAME, NAME_db sharing
# NAME's); what it finds goes to $(B)/fuzz/corpus-TARGET, its log and final stats to $(B)/fuzz/TARGET.log.
# nsys inputs are edit programs of at most 129 bytes (fuzz_nsys.c's MAX_OPS), each a real database to read
# (130-200 a CPU second under ASan, not thousands): -len_control=0 lets them be that long at once, not only
# after hours.
fuzz:
	@scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory $(FUZZ_TARGETS)
	@for t in $(FUZZ_TARGETS); do \
		n=$${t##*/fuzz_}; n=$${n%_db}; \
		mkdir -p $(B)/fuzz/corpus-$${t##*/}; \
		echo "  RUN     $$t ($(FUZZ_SECONDS) s)"; \
		$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			$$(case $$n in kineto|ndjson) echo -max_len=65536 -dict=tests/fuzz/json.dict ;; \
				nsys) echo -max_len=129 -len_control=0 ;; *) echo -max_len=65536 ;; esac) $(B)/fuzz/corpus-$${t##*/} \
			$$(ls -d tests/fuzz/seeds-$$n tests/fuzz/corpus-$$n tests/data/$$n-layouts 2>/dev/null) \
			2>$(B)/fuzz/$${t##*/}.log || { tail -40 $(B)/fuzz/$${t##*/}.log; exit 1; }; \
		grep -E '^#[0-9]+.*DONE' $(B)/fuzz/$${t##*/}.log | tail -1; \
		grep -E 'stat::(number_of_executed_units|average_exec_per_sec)' $(B)/fuzz/$${t##*/}.log | tr '\n' ' '; echo; \
	done

# On a machine with an NVIDIA GPU and nvcc: record the known workload, time the overhead, check exactly.
# (Phase 2 alone, on sessions brought back from such a machine: python3 tests/gpu/check.py DIR.)
gpu-check: all
	@tests/gpu/run.sh && python3 tests/gpu/check.py $${OUT:-$(B)/gpu-check}

# The collector's overhead beside the peers' (Kineto, Nsight Systems) on the same GPU machine: tests/gpu/peers.sh.
gpu-peers: all
	@tests/gpu/peers.sh

# The programs, their man pages and bash completion (scripts/gpuprof-completion.bash, under each program's
# name, as bash-completion looks them up), the collector, the SQLite extension, the analyses' modules and
# the data files they read (share/gpuprof/analyze: `.read` them in sqlite3 with the extension loaded) and
# the schemas (the warehouse's tables and queries too).
COMPLETIONS = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
install: all man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(COMPLETIONS)
	install -m 755 $(filter-out $(B)/bin/gpuprof-synth,$(PROGRAMS)) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(filter-out $(B)/man/gpuprof-synth.1,$(MANPAGES)) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 scripts/gpuprof-completion.bash $(COMPLETIONS)/gpuprof
	for p in gpuprof-ingest gpuprof-analyze gpuprof-report gpuprof-export gpuprof-collect; do \
		ln -sf gpuprof $(COMPLETIONS)/$$p; done
ifneq ($(HAVE_CUPTI),)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include
	install -m 755 $(COLLECTOR) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 collector/gpuprof.h $(DESTDIR)$(PREFIX)/include/
endif
	install -d $(DESTDIR)$(PREFIX)/lib
	install -m 755 $(EXTENSION) $(DESTDIR)$(PREFIX)/lib/
	install -d $(DESTDIR)$(PREFIX)/share/gpuprof
	install -m 644 schemas/session.sql schemas/views.sql schemas/wire-format.md schemas/report-json.md \
		$(DESTDIR)$(PREFIX)/share/gpuprof/
	install -d $(DESTDIR)$(PREFIX)/share/gpuprof/analyze
	install -m 644 $(ANALYZE_FILES) $(DESTDIR)$(PREFIX)/share/gpuprof/analyze/
	install -d $(DESTDIR)$(PREFIX)/share/gpuprof/warehouse/queries/postgres \
		$(DESTDIR)$(PREFIX)/share/gpuprof/warehouse/queries/clickhouse
	install -m 644 schemas/warehouse/*.sql $(DESTDIR)$(PREFIX)/share/gpuprof/warehouse/
	install -m 644 schemas/warehouse/queries/postgres/*.sql $(DESTDIR)$(PREFIX)/share/gpuprof/warehouse/queries/postgres/
	install -m 644 schemas/warehouse/queries/clickhouse/*.sql $(DESTDIR)$(PREFIX)/share/gpuprof/warehouse/queries/clickhouse/
	install -d $(DESTDIR)$(PREFIX)/share/gpuprof/analyze/ref
	install -m 644 analyze/ref/*.sql $(DESTDIR)$(PREFIX)/share/gpuprof/analyze/ref/

clean:
	rm -rf build demo

.PHONY: all man deps test test-sanitize test-programs stress demo bench fuzz gpu-check gpu-peers install clean
.DELETE_ON_ERROR:

-include $(shell find $(B) -name '*.d' 2>/dev/null)
