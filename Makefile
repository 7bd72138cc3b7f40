# spider — see README.md.  `make` builds bin/spider; `make demo` and
# `make check` install what they need first.
CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -pthread -D_GNU_SOURCE
LDLIBS = -lz3 -lcjson -lm -lpthread

TRACE_OBJ = traces/trace_load.o traces/trace_intern.o traces/trace_derive.o
ENCODE_OBJ = encode/encode.o encode/encode_z3.o encode/encode_smt2.o encode/encode_slice.o
SPIDER_OBJ = spider/analysis.o spider/shortcut.o spider/solve.o spider/report.o \
             spider/report_text.o spider/report_json.o
PRUNE_OBJ = prune/prune.o
LIB_OBJ = $(TRACE_OBJ) $(PRUNE_OBJ) $(ENCODE_OBJ) $(SPIDER_OBJ)
HEADERS = traces/trace.h traces/trace_internal.h encode/encode.h prune/prune.h spider/spider.h

BINS = bin/spider bin/gen-trace bin/check-smt2 bin/cyclon-trace
TEST_BINS = tests/bin/test_trace tests/bin/test_prune

.PHONY: all deps demo check unit bench clean
all: deps $(BINS)

deps:
	@./scripts/install-deps

%.o: %.c $(HEADERS) | deps
	$(CC) $(CFLAGS) -c -o $@ $<

build/libspider.a: $(LIB_OBJ)
	@mkdir -p build
	$(AR) rcs $@ $^

bin/spider: spider/main.o build/libspider.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

bin/gen-trace: tests/gen_trace.o
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ -lm

bin/check-smt2: tests/check_smt2.o build/libspider.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

tests/bin/%: tests/%.o build/libspider.a
	@mkdir -p tests/bin
	$(CC) $(CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

demo: all
	@echo "== spider on the bundled TaxDC micro-benchmarks (benchmarks/taxdc/) =="
	@for d in benchmarks/taxdc/*/; do \
	    echo; echo "### $$d"; ./bin/spider "$$d"; \
	    s=$$?; [ $$s -le 1 ] || exit $$s; \
	done; true

check: all $(TEST_BINS)
	@./tests/run-all

unit: $(TEST_BINS)
	for t in $(TEST_BINS); do $$t || exit 1; done

clean:
	rm -rf bin build tests/bin */*.o

bench: all
	./benchmarks/run

bin/cyclon-trace: benchmarks/cyclon_trace.o
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^
