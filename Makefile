# xlate — build, test, install.
#   make                 ./xlate
#   make test            every test; ends with "N passed, N failed"
#   make test-slow       the slow tier only (tests/slow/: an OPUS-MT-sized model, 0.5-2 min)
#   make parity          fresh PyTorch fixtures in $(BUILD)/parity (needs python3-torch), compared
#                        live; the committed tests/fixtures are left as they are
#   make sanitize        the tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make install PREFIX=/usr/local DESTDIR=
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/xlate
MANDIR  ?= $(PREFIX)/share/man/man1
PYTHON  ?= /usr/bin/python3
BUILD   ?= build

PKGS    := openblas libcjson libcurl libcrypto libmicrohttpd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))
ifeq ($(PKG_LIBS),)
$(error pkg-config found no openblas/libcjson/libcurl/libcrypto/libmicrohttpd: apt-get install libopenblas-dev libcjson-dev libcurl4-openssl-dev libssl-dev libmicrohttpd-dev pkg-config)
endif

CC      ?= cc
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
XCFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Isrc $(PKG_CFLAGS) \
           -DXLATE_DATADIR='"$(DATADIR)"'
LDLIBS  := $(PKG_LIBS) -lm -lpthread

# src/ is one folder per room (DEVELOPERS.md); the library is every .c but the program's entry
LIB_SRC  := $(filter-out src/cli/main.c src/cli/preinit.c,$(wildcard src/*.c src/*/*.c))
LIB_OBJ  := $(LIB_SRC:src/%.c=$(BUILD)/obj/%.o)
HEADERS  := $(wildcard src/*.h src/*/*.h)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
# helpers the Python tests run (not tests themselves: tests/run.sh runs test_* only)
TEST_HELPERS := $(BUILD)/tests/align_dump $(BUILD)/tests/html_dump $(BUILD)/tests/md_dump \
                $(BUILD)/tests/weights_dump
# programs that use the library through the public header alone (tests/cli/example.sh)
EXAMPLE_BIN := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))

# ./xlate is the default build's; other build dirs (build-san) leave it alone
ifeq ($(BUILD),build)
all: xlate $(EXAMPLE_BIN)
else
all: $(BUILD)/xlate $(EXAMPLE_BIN)
endif

xlate: $(BUILD)/xlate
	cp $< $@.tmp && mv -f $@.tmp $@

$(BUILD)/xlate: $(BUILD)/obj/cli/main.o $(BUILD)/obj/cli/preinit.o $(BUILD)/libxlate.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
	ln -sfn ../models $(BUILD)/models # the default model is found beside the executable

$(BUILD)/libxlate.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/obj/%.o: src/%.c $(HEADERS) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $(CFLAGS) $(FILE_OPT) -c -o $@ $<

# The product kernels are built at -O2 whatever OPT is: their register tiles (acc[R][P] under
# "#pragma GCC unroll") become registers only when unrolled, and at -O1 (make sanitize) they
# stayed arrays in memory, every FMA's operands bounds-checked by UBSan, with ASan's shadow
# check on every weight load (gemm_avx2.c and gemm_avx512.c leave the vector tiles out of ASan):
# the sanitized suite's products ran 8x slower than with both (issue 27: 9.6 s of CPU for a 500-sentence line, 1.2 s
# now; the plain build's 0.44 s). The decoder's attention kernels (attend.c: 16-lane chains and
# 4-register accumulators under unroll pragmas, the same) too, still under both sanitizers:
# test_paragraphs, test_html.py and test_beam sanitized, one at a time, 135 -> 115 s.
KERNEL_OPT ?= -O2
KERNEL_OBJ := $(BUILD)/obj/kernels/gemm.o $(BUILD)/obj/kernels/gemm_avx2.o \
              $(BUILD)/obj/kernels/gemm_avx512.o $(BUILD)/obj/kernels/attend.o
$(KERNEL_OBJ): FILE_OPT = $(KERNEL_OPT)

# `xlate serve`'s web page (src/serve/page/*) as C arrays, committed (fuzz/build.sh compiles
# src/ as it is) and regenerated here when a page file changes (src/serve/serve_page.h)
src/serve/serve_page_data.c: $(wildcard src/serve/page/*) tools/gen_serve_page.sh
	sh tools/gen_serve_page.sh

$(BUILD)/tests/%: tests/%.c $(BUILD)/libxlate.a $(HEADERS) $(wildcard tests/*.h) | $(BUILD)/tests
	$(CC) $(XCFLAGS) -Itests $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libxlate.a $(LDLIBS)

# an example includes xlate.h alone (src/'s rooms are in folders below it), and is compiled as a
# user compiles it: plain C11 (no -D_GNU_SOURCE), warnings as errors
$(BUILD)/examples/%: examples/%.c $(BUILD)/libxlate.a src/xlate.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra -Werror -Isrc $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libxlate.a $(LDLIBS)

$(BUILD) $(BUILD)/tests:
	mkdir -p $@

tests: $(TEST_BIN) $(TEST_HELPERS) $(BUILD)/xlate $(EXAMPLE_BIN)

test: tests
	XLATE=$(BUILD)/xlate TEST_BUILD=$(BUILD)/tests PYTHON=$(PYTHON) sh tests/run.sh

test-slow: tests
	SLOW=1 XLATE=$(BUILD)/xlate TEST_BUILD=$(BUILD)/tests PYTHON=$(PYTHON) sh tests/run.sh test_marian_opus_size

parity: tests
	rm -rf $(BUILD)/parity
	$(PYTHON) tools/reference.py --out $(BUILD)/parity
	PARITY_DIR=$(BUILD)/parity XLATE=$(BUILD)/xlate TEST_BUILD=$(BUILD)/tests PYTHON=$(PYTHON) \
	  sh tests/run.sh test_parity ids_pipe

sanitize:
	TEST_SANITIZED=1 $(MAKE) BUILD=build-san OPT=-O1 \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	  LDFLAGS="-fsanitize=address,undefined" test

bench: all
	sh bench/run.sh && $(PYTHON) bench/marian_bench.py && $(PYTHON) bench/nllb_bench.py && sh bench/split_bench.sh && sh bench/doc_bench.sh

fuzz: fuzz-build
	sh fuzz/run.sh

fuzz-build:
	sh fuzz/build.sh

# test_hardening.c replays the fuzz targets, which it includes
$(BUILD)/tests/test_hardening: $(wildcard fuzz/*.c fuzz/*.h)

install: $(BUILD)/xlate
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/models $(DESTDIR)$(MANDIR)
	install -m 755 $(BUILD)/xlate $(DESTDIR)$(BINDIR)/xlate
	if [ -d models/en-de ]; then cp -r models/en-de $(DESTDIR)$(DATADIR)/models/; fi
	if [ -f xlate.1 ]; then install -m 644 xlate.1 $(DESTDIR)$(MANDIR)/xlate.1; fi

uninstall:
	rm -rf $(DESTDIR)$(BINDIR)/xlate $(DESTDIR)$(DATADIR) $(DESTDIR)$(MANDIR)/xlate.1

clean:
	rm -rf build build-san build-fuzz xlate

.PHONY: all test test-slow tests parity sanitize bench fuzz fuzz-build install uninstall clean
