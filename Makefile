# xlate — build, test, install.
#   make                 ./xlate
#   make test            every test; ends with "N passed, N failed"
#   make test-slow       the slow tier only (tests/slow/: an OPUS-MT-sized model, 0.5-2 min)
#   make test-hosts-full hosts_parallel.sh at full size: 20,000 lines over 3 netns hosts (root; minutes)
#   make parity          fresh PyTorch fixtures in $(BUILD)/parity (needs python3-torch), compared
#                        live; the committed tests/fixtures are left as they are
#   make sanitize        the tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make install PREFIX=/usr/local DESTDIR=   (make uninstall with the same two)
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/xlate
MANDIR  ?= $(PREFIX)/share/man/man1
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
PYTHON  ?= /usr/bin/python3
BUILD   ?= build

PKGS    := openblas libcjson libcurl libcrypto libmicrohttpd libzip expat
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))
ifeq ($(PKG_LIBS),)
$(error pkg-config found no openblas/libcjson/libcurl/libcrypto/libmicrohttpd/libzip/expat: apt-get install libopenblas-dev libcjson-dev libcurl4-openssl-dev libssl-dev libmicrohttpd-dev libzip-dev libexpat1-dev pkg-config)
endif

CC      ?= cc
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
# -fPIC -fvisibility=hidden: the same objects make libxlate.so (which exports xlate.h alone)
XCFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Isrc -fPIC -fvisibility=hidden $(PKG_CFLAGS) \
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
                $(BUILD)/tests/weights_dump $(BUILD)/tests/po_dump
# programs that use the library through the public header alone (tests/cli/example.sh)
EXAMPLE_BIN := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
# the installed library (below, at its rules): what of src/ it holds, its version, its files
SO_PKGS    := openblas libcjson libzip expat
SO_LIBS     = $(shell pkg-config --libs $(SO_PKGS)) -lm -lpthread
SO_OBJ     := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(filter-out src/cli/% src/hub/% src/serve/%,$(LIB_SRC)))
xlate_ver   = $(shell sed -n 's/^.define XLATE_VERSION_$(1) *\([0-9]*\).*/\1/p' src/xlate.h)
SO_MAJOR   := $(call xlate_ver,MAJOR)
SO_VERSION := $(SO_MAJOR).$(call xlate_ver,MINOR).$(call xlate_ver,PATCH)
SO_NAME    := libxlate.so.$(SO_MAJOR)
LIB_DIST   := $(BUILD)/lib/libxlate.so.$(SO_VERSION) $(BUILD)/lib/libxlate.a

# ./xlate is the default build's; other build dirs (build-san) leave it alone
ifeq ($(BUILD),build)
all: xlate $(EXAMPLE_BIN) $(LIB_DIST)
else
all: $(BUILD)/xlate $(EXAMPLE_BIN) $(LIB_DIST)
endif

xlate: $(BUILD)/xlate
	cp $< $@.tmp && mv -f $@.tmp $@

$(BUILD)/xlate: $(BUILD)/obj/cli/main.o $(BUILD)/obj/cli/preinit.o $(BUILD)/libxlate.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
	ln -sfn ../models $(BUILD)/models # the default model is found beside the executable

$(BUILD)/libxlate.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# The installed library (issue 39): the rooms xlate.h reaches, without the program's (cli/,
# hub/, serve/: only the xlate binary links those, and with them libcurl, libcrypto and the
# server's libraries). libxlate.so.MAJOR exports xlate.h's functions alone (every object is
# built -fvisibility=hidden; xlate.h's pragma makes its declarations default). The installed
# libxlate.a is the same objects linked into one (ld -r) with each hidden symbol made local,
# so a static program sees the same names. Both need SO_PKGS and -lm -lpthread and nothing
# else (xlate.pc's Requires.private and Libs.private; --no-undefined proves it for the .so).
# $(BUILD)/libxlate.a stays every object, internals visible, for the binary and the tests.

$(BUILD)/lib/libxlate.so.$(SO_VERSION): $(SO_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(SO_NAME) -Wl,--no-undefined $(CFLAGS) $(LDFLAGS) -o $@ $^ $(SO_LIBS)

$(BUILD)/lib/libxlate.a: $(SO_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -r -nostdlib -o $(BUILD)/lib/xlate.o $^
	objcopy --localize-hidden $(BUILD)/lib/xlate.o
	rm -f $@ && ar rcs $@ $(BUILD)/lib/xlate.o

# objects built before -fPIC -fvisibility=hidden are built again once (make does not see flags)
$(BUILD)/.fpic-hidden: | $(BUILD)
	touch $@

$(BUILD)/obj/%.o: src/%.c $(HEADERS) $(BUILD)/.fpic-hidden | $(BUILD)
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

tests: $(TEST_BIN) $(TEST_HELPERS) $(BUILD)/xlate $(EXAMPLE_BIN) $(LIB_DIST)

# TESTS="A B": only the tests whose names contain A or B (tests/run.sh); empty: every test
test: tests
	XLATE=$(BUILD)/xlate TEST_BUILD=$(BUILD)/tests PYTHON=$(PYTHON) sh tests/run.sh $(TESTS)

test-slow: tests
	SLOW=1 XLATE=$(BUILD)/xlate TEST_BUILD=$(BUILD)/tests PYTHON=$(PYTHON) sh tests/run.sh test_marian_opus_size

# GNU parallel over SSH to 3 network-namespace hosts, one lost mid-run (docs/CLUSTER.md)
test-hosts-full: tests
	HOSTS_LINES=20000 HOSTS_BLOCK=1000 XLATE=$(BUILD)/xlate TEST_BUILD=$(BUILD)/tests \
	  PYTHON=$(PYTHON) sh tests/run.sh hosts_parallel
.PHONY: test-hosts-full

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
	sh bench/run.sh && $(PYTHON) bench/marian_bench.py && $(PYTHON) bench/nllb_bench.py && sh bench/split_bench.sh && sh bench/doc_bench.sh && $(PYTHON) bench/doc_pkg.py && $(PYTHON) bench/serve.py && sh bench/hosts.sh

fuzz: fuzz-build
	sh fuzz/run.sh

fuzz-build:
	sh fuzz/build.sh

# test_hardening.c replays the fuzz targets, which it includes
$(BUILD)/tests/test_hardening: $(wildcard fuzz/*.c fuzz/*.h)

# the library: its header, libxlate.a, libxlate.so.X.Y.Z with the links libxlate.so.MAJOR (the
# soname) and libxlate.so, and xlate.pc (its dirs relative to ${prefix} where they lie in it)
pc_dir = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
install: $(BUILD)/xlate $(LIB_DIST)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/models $(DESTDIR)$(MANDIR)
	install -m 755 $(BUILD)/xlate $(DESTDIR)$(BINDIR)/xlate
	for d in models/*/config.json; do [ -f "$$d" ] && cp -r "$${d%/config.json}" $(DESTDIR)$(DATADIR)/models/ || true; done
	if [ -f xlate.1 ]; then install -m 644 xlate.1 $(DESTDIR)$(MANDIR)/xlate.1; fi
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 src/xlate.h $(DESTDIR)$(INCLUDEDIR)/xlate.h
	install -m 644 $(BUILD)/lib/libxlate.a $(DESTDIR)$(LIBDIR)/libxlate.a
	install -m 755 $(BUILD)/lib/libxlate.so.$(SO_VERSION) $(DESTDIR)$(LIBDIR)/libxlate.so.$(SO_VERSION)
	ln -sfn libxlate.so.$(SO_VERSION) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	ln -sfn $(SO_NAME) $(DESTDIR)$(LIBDIR)/libxlate.so
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(call pc_dir,$(LIBDIR))' \
	  'includedir=$(call pc_dir,$(INCLUDEDIR))' '' 'Name: xlate' \
	  'Description: Transformer translation models (MarianMT, NLLB-200, M2M100) on the CPU' \
	  'Version: $(SO_VERSION)' 'Requires.private: $(SO_PKGS)' 'Cflags: -I$${includedir}' \
	  'Libs: -L$${libdir} -lxlate' 'Libs.private: -lm -lpthread' \
	  > $(DESTDIR)$(PKGCONFIGDIR)/xlate.pc

# what install wrote, and no more (the directories it made stay: they may hold others' files)
uninstall:
	rm -rf $(DESTDIR)$(BINDIR)/xlate $(DESTDIR)$(DATADIR) $(DESTDIR)$(MANDIR)/xlate.1
	rm -f $(DESTDIR)$(INCLUDEDIR)/xlate.h $(DESTDIR)$(PKGCONFIGDIR)/xlate.pc \
	  $(addprefix $(DESTDIR)$(LIBDIR)/,libxlate.a libxlate.so $(SO_NAME) libxlate.so.$(SO_VERSION))

clean:
	rm -rf build build-san build-fuzz xlate

.PHONY: all test test-slow tests parity sanitize bench fuzz fuzz-build install uninstall clean
