# spider — see README.md.  `make` builds bin/spider; `make demo` and
# `make check` install what they need first.
#
#   make            bin/spider and the tools (bin/cyclon-trace, bin/gen-trace, bin/check-smt2)
#   make demo       analyse the bundled TaxDC traces and the atomicity example
#   make check      every test, then the suite again under AddressSanitizer and
#                   UndefinedBehaviorSanitizer, and valgrind on a few traces
#   make bench      benchmarks/run (writes nothing; see benchmarks/RESULTS.md)
#   make fuzz       libFuzzer on the loader for FUZZ_SECONDS (default 600)
CC ?= cc
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -pthread -D_GNU_SOURCE
LDLIBS = -lz3 -lcjson -lm -lpthread
OBJ ?= build

LIB_SRC = traces/alloc.c traces/trace_load.c traces/trace_intern.c traces/trace_derive.c \
          prune/prune.c \
          encode/encode.c encode/encode_z3.c encode/encode_smt2.c encode/encode_slice.c encode/encode_query.c \
          spider/engine.c spider/engine_shortcut.c spider/engine_pool.c \
          spider/analysis_data.c spider/analysis_message.c spider/analysis_atomicity.c \
          spider/report.c \
          spider/report_text.c spider/report_json.c
HEADERS = traces/alloc.h traces/trace.h traces/trace_internal.h encode/encode.h prune/prune.h \
          spider/spider.h spider/engine.h
LIB_OBJ = $(LIB_SRC:%.c=$(OBJ)/%.o)

BINS = bin/spider bin/cyclon-trace bin/json-baseline bin/gen-trace bin/check-smt2
TEST_BINS = tests/bin/test_trace tests/bin/test_prune
SAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=undefined
FUZZ_SECONDS ?= 600

.PHONY: all deps demo check check-sanitized check-valgrind bench fuzz clean
# keep object files of pattern rules (no "rm" after a build)
.SECONDARY:
all: deps $(BINS)

deps:
	@./scripts/install-deps

$(OBJ)/%.o: %.c $(HEADERS) | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(OBJ)/libspider.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

bin/spider: $(OBJ)/spider/main.o $(OBJ)/libspider.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

bin/cyclon-trace: $(OBJ)/benchmarks/cyclon_trace.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^

bin/json-baseline: $(OBJ)/benchmarks/json_baseline.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lcjson

bin/gen-trace: $(OBJ)/tests/gen_trace.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lm

bin/check-smt2: $(OBJ)/tests/check_smt2.o $(OBJ)/libspider.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

tests/bin/%: $(OBJ)/tests/%.o $(OBJ)/libspider.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

demo: all
	@echo "== spider on the bundled TaxDC micro-benchmarks (benchmarks/taxdc/) =="
	@for d in benchmarks/taxdc/*/; do \
	    echo; echo "### $$d"; ./bin/spider "$$d"; \
	    s=$$?; [ $$s -le 1 ] || exit $$s; \
	done; true
	@echo; echo "== atomicity violations (benchmarks/atomicity/) =="
	@./bin/spider --atomicity benchmarks/atomicity/hbase-region; \
	    s=$$?; [ $$s -le 1 ]

check: all $(TEST_BINS)
	@./tests/run-all
	@$(MAKE) --no-print-directory check-sanitized
	@$(MAKE) --no-print-directory check-valgrind

# The same suite against binaries built with ASan and UBSan (in build-san/
# and bin-san/); any report fails the run.
check-sanitized: deps
	@$(MAKE) --no-print-directory OBJ=build-san CFLAGS="$(SAN_FLAGS)" \
	    BIN_DIR=bin-san bin-san/spider bin-san/test_trace bin-san/test_prune
	@echo "== the suite under AddressSanitizer and UndefinedBehaviorSanitizer =="
	@SANITIZED=1 SPIDER=./bin-san/spider SEEDS=40 \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	    ./tests/run-all

bin-san/spider: $(OBJ)/spider/main.o $(OBJ)/libspider.a
	@mkdir -p bin-san
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

bin-san/test_%: $(OBJ)/tests/test_%.o $(OBJ)/libspider.a
	@mkdir -p bin-san
	$(CC) $(CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

check-valgrind: all
	@echo "== valgrind memcheck on a few traces =="
	@./tests/valgrind-traces

bench: all
	@./scripts/install-deps --bench
	./benchmarks/run

fuzz: deps
	@command -v clang >/dev/null || ./scripts/install-deps --fuzz
	@mkdir -p build-fuzz bin tests/fuzz-corpus
	clang -g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	    -o bin/fuzz-load tests/fuzz_load.c $(LIB_SRC) $(LDLIBS)
	./bin/fuzz-load -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	    -artifact_prefix=tests/fuzz-corpus/crash- \
	    build-fuzz tests/fuzz-corpus tests/bad benchmarks/taxdc/m5358

clean:
	rm -rf bin bin-san build build-san build-fuzz tests/bin tests/tmp
