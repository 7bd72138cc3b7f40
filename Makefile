# spider — see README.md.  `make` builds bin/spider and never installs a
# package: when one is missing it stops and names `make deps`, which
# installs them (`make demo` and `make check` call it first).
#
#   make            bin/spider and the tools (bin/cyclon-trace, bin/gen-trace, bin/check-smt2)
#   make MPI=1      also bin/spider-mpi, for MPI jobs (needs Open MPI: make deps)
#   make deps       install what the build, the tests and the demo need
#                   (scripts/install-deps: apt-get, and npm into .deps/)
#   make install    bin/spider, spider.1 and the docs under DESTDIR/PREFIX
#                   (PREFIX=/usr/local by default); make uninstall removes them
#   make demo       analyse the bundled TaxDC traces and the atomicity example
#   make test       the suite once, on a small sample of random traces and
#                   without the scale checks (QUICK=1), installing nothing:
#                   the loop while changing the code
#   make check      every test, then make test's sample again under
#                   AddressSanitizer and UndefinedBehaviorSanitizer, and
#                   valgrind on a few traces
#   make bench      benchmarks/run (writes nothing; see benchmarks/RESULTS.md)
#   make fuzz       libFuzzer on the loader for FUZZ_SECONDS (default 600)
#   make agent      bin/spider-agent.jar, the Java agent (traces/agent/; needs
#                   javac and Debian's libasm-java: make deps installs them)
CC ?= cc
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -pthread -D_GNU_SOURCE
# compiler and linker flags of the libraries, from pkg-config
PKGS = z3 libcjson
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CJSON_LIBS := $(shell pkg-config --libs libcjson 2>/dev/null)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)
LDLIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -lpthread
# objects depend on the headers they include (build/**/*.d)
DEPFLAGS = -MMD -MP
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1
DOCDIR = $(PREFIX)/share/doc/spider
OBJ ?= build

LIB_SRC = util/alloc.c util/clock.c util/text.c util/graph.c util/comm.c util/comm_threads.c traces/trace_load.c traces/trace_ranks.c traces/trace_share.c traces/trace_reader.c traces/trace_event.c traces/json_arena.c traces/trace_intern.c traces/trace_derive.c \
          prune/prune.c \
          encode/encode.c encode/encode_z3.c encode/encode_z3_core.c encode/encode_smt2.c encode/encode_slice.c encode/encode_query.c encode/encode_waits.c encode/encode_explain.c encode/encode_build.c encode/encode_skeleton.c \
          spider/engine/engine.c spider/engine/engine_group.c spider/engine/engine_decide.c spider/engine/engine_analyse.c spider/engine/engine_shortcut.c spider/engine/shortcut_graph.c spider/engine/shortcut_clocks.c spider/engine/hb_order.c spider/engine/engine_schedule.c spider/engine/schedule_ahead.c spider/engine/engine_pool.c \
          spider/engine/engine_witness.c spider/engine/context.c spider/engine/engine_log.c spider/engine/engine_ranks.c spider/engine/engine_share.c \
          spider/analysis/analysis_data.c spider/analysis/analysis_message.c spider/analysis/analysis_handler.c \
          spider/analysis/analysis_atomicity.c spider/analysis/analysis_between.c \
          spider/analysis/analysis_multivar.c spider/analysis/correlation.c spider/analysis/correlation_muvi.c spider/analysis/analysis_inconsistent.c spider/analysis/invariants.c spider/analysis/analyses.c \
          spider/report/report.c \
          spider/report/report_text.c spider/report/report_json.c spider/report/report_sarif.c \
          spider/report/report_html.c spider/report/report_shiviz.c \
          spider/report/kinds.c spider/cli/filter.c spider/cli/suppress.c spider/report/baseline.c \
          spider/cli/select.c spider/cli/progress.c spider/cli/learn.c spider/cli/options.c spider/cli/share_run.c
# (no header list: each object depends on the headers it includes, from
# the .d files -MMD writes)
LIB_OBJ = $(LIB_SRC:%.c=$(OBJ)/%.o)

BINS = bin/spider bin/cyclon-trace bin/json-baseline bin/gen-trace bin/check-smt2 \
       bin/check-share
ifeq ($(MPI),1)
BINS += bin/spider-mpi bin/check-share-mpi
endif
TEST_BINS = tests/bin/test_trace tests/bin/test_prune tests/bin/test_waits \
            tests/bin/test_schedule tests/bin/test_graph tests/bin/test_decide \
            tests/bin/test_comm
SAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=undefined
FUZZ_SECONDS ?= 600

.PHONY: all deps check-deps demo test check check-sanitized san-bins check-valgrind bench \
        fuzz clean install uninstall agent
# keep object files of pattern rules (no "rm" after a build)
.PRECIOUS: $(OBJ)/%.o
all: $(BINS)

deps:
	@./scripts/install-deps

# a plain build only checks, and names `make deps` when something is missing
check-deps:
	@./scripts/install-deps --check

# objects wait for `make deps` when the goals include it, else for the check
DEPS_STEP = $(if $(filter deps demo check check-sanitized bench fuzz,$(MAKECMDGOALS)),deps,check-deps)

# An object without its .d (never built with -MMD) is rebuilt: the empty
# rule makes a missing .d count as changed.
$(OBJ)/%.o: %.c $(OBJ)/%.d | $(DEPS_STEP)
	@mkdir -p $(dir $@)
	$(CC) $(PKG_CFLAGS) -I$(OBJ)/gen $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# The HTML page's style sheet and script, kept as files and embedded in
# the binary as C arrays (scripts/embed)
HTML_ASSETS = spider/report/html/page.css spider/report/html/page.js
$(OBJ)/gen/html_assets.h: $(HTML_ASSETS) scripts/embed
	@mkdir -p $(dir $@)
	./scripts/embed page_css=spider/report/html/page.css \
	    page_js=spider/report/html/page.js >$@.tmp && mv $@.tmp $@
$(OBJ)/spider/report/report_html.o: $(OBJ)/gen/html_assets.h

$(OBJ)/%.d: ;
# named, so that a missing one is not an intermediate file to ignore
DEP_FILES = $(patsubst %.c,$(OBJ)/%.d,$(LIB_SRC) spider/cli/main.c \
            spider/cli/spider.c spider/cli/spider_mpi.c util/comm_mpi.c \
            benchmarks/cyclon_trace.c benchmarks/json_baseline.c \
            tests/gen_trace.c tests/gen_trace_rng.c tests/gen_trace_sim.c \
            tests/gen_trace_out.c tests/gen_trace_locks.c tests/check_smt2.c tests/check_share.c tests/check_share_mpi.c tests/test_trace.c tests/test_prune.c tests/test_waits.c \
            tests/test_schedule.c tests/test_graph.c tests/test_decide.c tests/test_comm.c)
$(DEP_FILES):

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)

$(OBJ)/libspider.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

bin/spider: $(OBJ)/spider/cli/spider.o $(OBJ)/spider/cli/main.o $(OBJ)/libspider.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# bin/spider-mpi (make MPI=1, or make bin/spider-mpi): the command on the
# ranks of an MPI job, with the MPI pkg-config finds (Debian's Open MPI:
# make deps installs it).  Only its own two objects see MPI.
MPI_CFLAGS = $(shell pkg-config --cflags mpi-c 2>/dev/null)
MPI_LIBS = $(shell pkg-config --libs mpi-c 2>/dev/null)
HAVE_MPI := $(shell pkg-config --exists mpi-c 2>/dev/null && command -v mpirun >/dev/null && echo 1)
MPI_OBJ = $(OBJ)/spider/cli/spider_mpi.o $(OBJ)/util/comm_mpi.o
$(MPI_OBJ): PKG_CFLAGS += $(MPI_CFLAGS)
bin/spider-mpi: $(MPI_OBJ) $(OBJ)/spider/cli/main.o $(OBJ)/libspider.a
	@pkg-config --exists mpi-c || { echo "spider: bin/spider-mpi needs MPI:" \
	    "run 'make deps' (installs Debian's Open MPI)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(MPI_LIBS) $(LDLIBS)

# the share loader's check on the ranks of an MPI job (tests/check_share.c)
$(OBJ)/tests/check_share_mpi.o: tests/check_share.c $(OBJ)/tests/check_share_mpi.d | $(DEPS_STEP)
	@mkdir -p $(dir $@)
	$(CC) $(MPI_CFLAGS) $(PKG_CFLAGS) $(CFLAGS) -DCHECK_SHARE_MPI $(DEPFLAGS) -c -o $@ $<
bin/check-share-mpi: $(OBJ)/tests/check_share_mpi.o $(OBJ)/util/comm_mpi.o $(OBJ)/libspider.a
	@pkg-config --exists mpi-c || { echo "spider: bin/check-share-mpi needs MPI:" \
	    "run 'make deps' (installs Debian's Open MPI)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(MPI_LIBS) $(LDLIBS)

bin/cyclon-trace: $(OBJ)/benchmarks/cyclon_trace.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^

bin/json-baseline: $(OBJ)/benchmarks/json_baseline.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(CJSON_LIBS)

bin/gen-trace: $(OBJ)/tests/gen_trace.o $(OBJ)/tests/gen_trace_rng.o \
               $(OBJ)/tests/gen_trace_sim.o $(OBJ)/tests/gen_trace_out.o \
               $(OBJ)/tests/gen_trace_locks.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lm

bin/check-smt2: $(OBJ)/tests/check_smt2.o $(OBJ)/libspider.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

bin/check-share: $(OBJ)/tests/check_share.o $(OBJ)/libspider.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

tests/bin/%: $(OBJ)/tests/%.o $(OBJ)/libspider.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(LDLIBS)

demo: deps
	@$(MAKE) --no-print-directory all
	@echo "== spider on the bundled TaxDC micro-benchmarks (benchmarks/taxdc/) =="
	@for d in benchmarks/taxdc/*/; do \
	    echo; echo "### $$d"; ./bin/spider "$$d"; \
	    s=$$?; [ $$s -le 1 ] || exit $$s; \
	done; true
	@echo; echo "== atomicity violations (benchmarks/atomicity/) =="
	@./bin/spider --atomicity benchmarks/atomicity/hbase-region; \
	    s=$$?; [ $$s -le 1 ]
	@echo; echo "== learning from 20 passing runs (benchmarks/learning/) =="
	@rm -f build/apache-log.inv
	@./bin/spider --learn=build/apache-log.inv benchmarks/learning/apache-log/passing/*.log
	@./bin/spider -q --atomicity --invariants=build/apache-log.inv \
	    --only-invariant-violations benchmarks/learning/apache-log/failing.log; \
	    s=$$?; [ $$s -le 1 ]

# make check and make test build on every core
NPROC := $(shell nproc 2>/dev/null || echo 1)

# what is missing (the z3 command, a JDK) skips the scripts that need it
test:
	@$(MAKE) --no-print-directory -j$(NPROC) all $(TEST_BINS) $(if $(HAVE_MPI),bin/spider-mpi bin/check-share-mpi)
	@QUICK=1 JOBS=$(NPROC) ./tests/run-all

# The sanitized binaries are built while the release pass runs, at the
# lowest priority: they take the cycles its scripts leave (a minute of
# both cores, had they waited for the pass to end)
check: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all $(TEST_BINS) \
	    $(if $(shell pkg-config --exists mpi-c 2>/dev/null && echo 1),bin/spider-mpi bin/check-share-mpi)
	@mkdir -p build-san; \
	    nice -n 19 $(MAKE) --no-print-directory san-bins >build-san/build.log 2>&1 & san=$$!; \
	    JOBS=$(NPROC) ./tests/run-all; rc=$$?; \
	    wait $$san || { cat build-san/build.log; exit 1; }; exit $$rc
	@$(MAKE) --no-print-directory check-sanitized
	@$(MAKE) --no-print-directory check-valgrind

# binaries built with ASan and UBSan, in build-san/ and bin-san/
san-bins:
	@$(MAKE) --no-print-directory -j$(NPROC) OBJ=build-san CFLAGS="$(SAN_FLAGS)" \
	    BIN_DIR=bin-san bin-san/spider bin-san/test_trace bin-san/test_prune \
	    bin-san/test_waits bin-san/test_schedule bin-san/test_graph bin-san/test_comm \
	    bin-san/test_decide bin-san/check-share

# The suite again against binaries built with ASan and UBSan, on make
# test's sample (QUICK=1): the sanitizers look for memory errors and
# undefined behaviour along every script's paths, the release pass before
# has checked the answers on the large samples.  Any report fails the run.
check-sanitized: deps san-bins
	@echo "== the suite under AddressSanitizer and UndefinedBehaviorSanitizer =="
	@SANITIZED=1 QUICK=1 SPIDER=./bin-san/spider JOBS=$(NPROC) \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	    ./tests/run-all

bin-san/spider: $(OBJ)/spider/cli/spider.o $(OBJ)/spider/cli/main.o $(OBJ)/libspider.a
	@mkdir -p bin-san
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

bin-san/check-share: $(OBJ)/tests/check_share.o $(OBJ)/libspider.a
	@mkdir -p bin-san
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

bin-san/test_%: $(OBJ)/tests/test_%.o $(OBJ)/libspider.a
	@mkdir -p bin-san
	$(CC) $(CFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(LDLIBS)

check-valgrind: all
	@echo "== valgrind memcheck on a few traces =="
	@./tests/valgrind-traces

bench: all
	@./scripts/install-deps --bench
	./benchmarks/run

fuzz: deps
	@command -v clang >/dev/null || ./scripts/install-deps --fuzz
	@mkdir -p build-fuzz bin tests/fuzz-corpus
	@$(MAKE) --no-print-directory $(OBJ)/gen/html_assets.h
	clang -g -O1 -std=gnu11 -D_GNU_SOURCE -I$(OBJ)/gen -fsanitize=fuzzer,address,undefined \
	    -o bin/fuzz-load tests/fuzz_load.c $(LIB_SRC) $(LDLIBS)
	./bin/fuzz-load -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	    -artifact_prefix=tests/fuzz-corpus/crash- \
	    build-fuzz tests/fuzz-corpus tests/bad benchmarks/taxdc/m5358

# The Java agent (traces/agent/, docs/tracing.md): plain javac against
# Debian's ASM, whose classes go into the jar (the jar is its own
# Boot-Class-Path, so one file is the whole agent).
ASM_JARS = /usr/share/java/asm.jar /usr/share/java/asm-commons.jar \
           /usr/share/java/asm-tree.jar /usr/share/java/asm-analysis.jar
AGENT_SRC = $(wildcard traces/agent/src/spider/agent/*.java)
agent: bin/spider-agent.jar

bin/spider-agent.jar: $(AGENT_SRC) traces/agent/MANIFEST.MF
	@command -v javac >/dev/null && [ -f /usr/share/java/asm.jar ] || \
	    { echo "make agent needs javac and libasm-java: run 'make deps'" >&2; exit 1; }
	@rm -rf $(OBJ)/agent && mkdir -p $(OBJ)/agent/classes bin
	javac -nowarn -source 11 -target 11 -cp $(subst $(eval) ,:,$(ASM_JARS)) \
	    -d $(OBJ)/agent/classes $(AGENT_SRC)
	cd $(OBJ)/agent/classes && for j in $(ASM_JARS); do jar xf $$j org; done
	jar cfm $@ traces/agent/MANIFEST.MF -C $(OBJ)/agent/classes .

install: bin/spider
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(DOCDIR)
	install -m 755 bin/spider $(DESTDIR)$(BINDIR)/spider
	install -m 644 spider.1 $(DESTDIR)$(MANDIR)/spider.1
	install -m 644 README.md docs/*.md $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/spider $(DESTDIR)$(MANDIR)/spider.1
	rm -rf $(DESTDIR)$(DOCDIR)

clean:
	rm -rf bin bin-san build build-san build-fuzz tests/bin tests/tmp
