# install.sh — the library as a C programmer installs and uses it (issue 39): `make install`
# into a temporary prefix puts the binary, man page and model, xlate.h, libxlate.a,
# libxlate.so.X.Y.Z with its soname link and libxlate.so, and xlate.pc there;
# examples/translate_file.c built with pkg-config alone (shared, and static with --static)
# translates as the command line does; the shared library exports exactly the functions
# xlate.h declares (its preprocessed text parsed here), the static one defines no other global;
# DESTDIR stages the same files under PREFIX; `make uninstall` removes them and nothing else.
. tests/cli/lib.sh
B=$(dirname "${TEST_BUILD:-build/tests}")
P=$T/usr
# the make that runs `make test` passes its flags and jobserver down; this one installs only:
# what make tests built is taken as it is (-o: never remade, where a source newer than it would
# have it linked again here without the build's flags, e.g. make sanitize's)
unset MAKEFLAGS MFLAGS MAKELEVEL
make() { command make -o "$B/xlate" -o "$B/lib/libxlate.a" -o "$B/lib/libxlate.so.$VER" "$@"; }
# the sanitized build's objects need their runtime in the program too (make sanitize)
SAN=
[ "${TEST_SANITIZED:-}" = 1 ] && SAN="-fsanitize=address,undefined"
hver() { sed -n "s/^#define XLATE_VERSION_$1 \([0-9]*\)$/\1/p" src/xlate.h; }
MAJ=$(hver MAJOR); VER=$MAJ.$(hver MINOR).$(hver PATCH)

# a file of someone else's in the prefix before: uninstall must leave it
mkdir -p "$P/lib" && echo keep > "$P/lib/other.txt"
make -s BUILD="$B" PREFIX="$P" install > "$T/make.out" 2>&1
expect_rc "make install PREFIX=tmp: exit 0" $? 0
want=$(printf '%s\n' bin/xlate include/xlate.h lib/libxlate.a lib/libxlate.so \
  "lib/libxlate.so.$MAJ" "lib/libxlate.so.$VER" lib/other.txt lib/pkgconfig/xlate.pc \
  share/man/man1/xlate.1 $(for c in models/*/config.json; do d=${c%/config.json}
    ls "$d" | sed "s|^|share/xlate/$d/|"; done) | sort)
expect_eq "make install: the files" "$(cd "$P" && find . ! -type d | sed 's|^\./||' | sort)" "$want"
expect_eq "libxlate.so: the link to the soname" "$(readlink "$P/lib/libxlate.so")" "libxlate.so.$MAJ"
expect_eq "libxlate.so.$MAJ: the link to the file" "$(readlink "$P/lib/libxlate.so.$MAJ")" "libxlate.so.$VER"
expect_eq "libxlate.so.$VER: its soname" \
  "$(readelf -d "$P/lib/libxlate.so.$VER" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" "libxlate.so.$MAJ"
if cmp -s src/xlate.h "$P/include/xlate.h"; then ok "include/xlate.h: src/xlate.h"
else notok "include/xlate.h: src/xlate.h" "differs"; fi

export PKG_CONFIG_PATH="$P/lib/pkgconfig"
expect_eq "xlate.pc: Version the header's" "$(pkg-config --modversion xlate)" "$VER"
expect_eq "xlate.pc: OpenBLAS, cJSON, libzip and expat (documents) as private requirements" \
  "$(pkg-config --print-requires-private xlate | tr '\n' ' ')" "openblas libcjson libzip expat "
expect_eq "xlate.pc: -lm -lpthread private" "$(sed -n 's/^Libs.private: //p' "$P/lib/pkgconfig/xlate.pc")" "-lm -lpthread"
expect_eq "xlate.pc: the shared link is -lxlate alone" "$(echo $(pkg-config --libs xlate))" "-L$P/lib -lxlate"

# a user's copy of the example and the README's program (its indented block from "/* hello.c"),
# built as the README says: shared, then static (the archive by name: beside libxlate.so,
# -lxlate would take the .so)
cp examples/translate_file.c "$T/translate_file.c"
awk '/^    \/\* hello\.c/ {on = 1} on && /^[^ ]/ {exit} on {print}' README.md | sed 's/^    //' > "$T/hello.c"
expect_grep "README: the program's main" "$T/hello.c" '^int main'
static_libs() { pkg-config --static --libs xlate | sed 's/-lxlate /-l:libxlate.a /'; }
( cd "$T" && cc $SAN -o tf_shared translate_file.c $(pkg-config --cflags --libs xlate) ) > "$T/cc1" 2>&1
expect_rc "cc translate_file.c \$(pkg-config --cflags --libs xlate): builds" $? 0
libs=$(pkg-config --static --libs xlate)
case " $libs " in *" -lxlate "*) ok "pkg-config --static --libs xlate: -lxlate";;
  *) notok "pkg-config --static --libs xlate: -lxlate" "$libs";; esac
( cd "$T" && cc $SAN -o tf_static translate_file.c $(pkg-config --cflags xlate) $(static_libs) ) > "$T/cc2" 2>&1
expect_rc "cc translate_file.c \$(pkg-config --static --libs xlate), libxlate.a: builds" $? 0
( cd "$T" && cc $SAN -o hello hello.c $(pkg-config --cflags --libs xlate) &&
  cc $SAN -o hello_static hello.c $(pkg-config --cflags xlate) $(static_libs) ) > "$T/cc4" 2>&1
expect_rc "README's hello.c: builds, shared and static" $? 0
expect_eq "the shared build needs libxlate.so.$MAJ" \
  "$(readelf -d "$T/tf_shared" 2>&1 | grep -o 'libxlate[^]]*')" "libxlate.so.$MAJ"
expect_eq "the static build needs no libxlate.so" "$(readelf -d "$T/tf_static" 2>&1 | grep -c libxlate)" 0

# 20 test sentences, a blank line, a line of two sentences: as the command line translates them
M=$P/share/xlate/models/en-de
{ head -n 20 tests/data/multi30k/test_2016_flickr.en; echo; echo "A dog runs. Two men are talking."; } > "$T/in.en"
OPENBLAS_NUM_THREADS=1 "$XLATE" -m "$M" < "$T/in.en" > "$T/cli.de" 2> "$T/cli.err"
expect_rc "the command line on the installed model: exit 0" $? 0
expect_eq "the command line: a line out per line in" "$(wc -l < "$T/cli.de")" 22
# the installed binary lists the installed models (its ../share/xlate/models): the repo's
# models/ directories with a config.json, by name, en-de the default
mgot=$(XLATE_MODEL= HF_HUB_CACHE="$T/no-cache" "$P/bin/xlate" models --json 2> /dev/null | "$PYTHON" -c '
import json, os, sys
print(" ".join("%s:%s:%s" % (o["repo_id"], os.path.realpath(o["repo_path"]), o["default"])
               for o in json.load(sys.stdin)))' 2>&1)
mwant=$(for n in $(for c in models/*/config.json; do c=${c%/config.json}; echo "${c#models/}"; done | LC_ALL=C sort)
  do printf '%s:%s:%s ' "$n" "$(realpath "$P/share/xlate/models/$n")" "$([ "$n" = en-de ] && echo True || echo False)"; done)
expect_eq "the installed xlate models --json: the installed models, en-de the default" "$mgot " "$mwant"
for k in shared static; do
  LD_LIBRARY_PATH="$P/lib" OPENBLAS_NUM_THREADS=1 "$T/tf_$k" "$M" "$T/in.en" > "$T/$k.de" 2> "$T/$k.err"
  expect_rc "translate_file ($k): exit 0" $? 0
  if cmp -s "$T/$k.de" "$T/cli.de"; then ok "translate_file ($k): the command line's 22 lines"
  else notok "translate_file ($k): the command line's output" "$(diff "$T/$k.de" "$T/cli.de" | head -4)"; fi
done
S="Two dogs are playing in the snow."
want1=$(echo "$S" | OPENBLAS_NUM_THREADS=1 "$XLATE" -m "$M" 2>&1)
for k in hello hello_static; do
  expect_eq "README's $k: the command line's translation [$want1]" \
    "$(LD_LIBRARY_PATH="$P/lib" OPENBLAS_NUM_THREADS=1 "$T/$k" "$M" "$S" 2>&1)" "$want1"
done
expect_eq "the shared build runs the installed libxlate.so" \
  "$(LD_LIBRARY_PATH="$P/lib" ldd "$T/tf_shared" | sed -n 's/.*libxlate[^ ]* => \([^ ]*\) .*/\1/p')" \
  "$P/lib/libxlate.so.$MAJ"
cat > "$T/ver.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <xlate.h>
int main(void) { printf("%s %s\n", xlate_version(), XLATE_VERSION); return 0; }
EOF
( cd "$T" && cc $SAN -o ver ver.c $(pkg-config --cflags --libs xlate) ) > "$T/cc3" 2>&1 &&
  expect_eq "xlate_version(), XLATE_VERSION: the header's numbers" \
    "$(LD_LIBRARY_PATH="$P/lib" "$T/ver")" "$VER $VER" ||
  notok "xlate_version: builds" "$(head -c 300 "$T/cc3")"

# exported symbols against the header's declarations: its preprocessed text, where a function
# declaration is an identifier followed by "(" at brace depth 0 (not "type (*name)(...)": a
# function pointer parameter; fields are inside braces)
cc -E -P "$P/include/xlate.h" > "$T/h.i" 2> "$T/cpp.err"
expect_rc "cc -E include/xlate.h" $? 0
"$PYTHON" - "$T/h.i" > "$T/decl" <<'EOF'
import re, sys
s = "".join(l for l in open(sys.argv[1]) if not l.startswith("#"))  # pragmas
depth, names = 0, set()
for m in re.finditer(r"[{}]|\b([A-Za-z_]\w*)\s*\((?!\s*\*)", s):
    if m.group(0) == "{": depth += 1
    elif m.group(0) == "}": depth -= 1
    elif depth == 0 and m.group(1) not in ("__attribute__", "visibility"): names.add(m.group(1))
print("\n".join(sorted(names)))
EOF
nm -D --defined-only "$P/lib/libxlate.so.$VER" | awk '{print $NF}' | sort -u > "$T/dyn"
nd=$(wc -l < "$T/dyn"); nh=$(wc -l < "$T/decl")
bad=$(grep -v '^xlate_' "$T/dyn" | head -5 | tr '\n' ' ')
expect_eq "libxlate.so: $nd exported symbols, each xlate_*" "$bad" ""
expect_eq "libxlate.so: each exported symbol declared in xlate.h" "$(comm -23 "$T/dyn" "$T/decl" | tr '\n' ' ')" ""
expect_eq "xlate.h: each of its $nh functions exported" "$(comm -13 "$T/dyn" "$T/decl" | tr '\n' ' ')" ""
[ "$nd" -ge 40 ] && ok "libxlate.so: $nd symbols (the API, not an empty list)" ||
  notok "libxlate.so: the API exported" "$nd symbols"
expect_eq "libxlate.a: every global it defines declared in xlate.h" \
  "$(nm -g --defined-only "$P/lib/libxlate.a" | awk 'NF == 3 {print $3}' | sort -u | comm -23 - "$T/decl" | tr '\n' ' ')" ""

# DESTDIR: the same files under DESTDIR/PREFIX, xlate.pc naming PREFIX
make -s BUILD="$B" PREFIX=/opt/xl DESTDIR="$T/stage" install > "$T/make2.out" 2>&1
expect_rc "make install DESTDIR=tmp PREFIX=/opt/xl: exit 0" $? 0
expect_eq "DESTDIR: the files under DESTDIR/opt/xl, nothing else" \
  "$(cd "$T/stage" && find . ! -type d | sed 's|^\./opt/xl/||' | sort)" "$(echo "$want" | grep -v other.txt)"
expect_eq "DESTDIR: xlate.pc names PREFIX" "$(sed -n '1,3p' "$T/stage/opt/xl/lib/pkgconfig/xlate.pc" | tr '\n' ' ')" \
  'prefix=/opt/xl libdir=${prefix}/lib includedir=${prefix}/include '

# uninstall: every file install wrote gone, the other file kept, only directories left
make -s BUILD="$B" PREFIX="$P" uninstall > "$T/make3.out" 2>&1
expect_rc "make uninstall: exit 0" $? 0
expect_eq "make uninstall: nothing of install's left, the other file kept" \
  "$(cd "$P" && find . ! -type d | sort)" "./lib/other.txt"
make -s BUILD="$B" PREFIX=/opt/xl DESTDIR="$T/stage" uninstall > "$T/make4.out" 2>&1
expect_rc "make uninstall DESTDIR: exit 0" $? 0
expect_eq "make uninstall DESTDIR: nothing left but directories" "$(cd "$T/stage" && find . ! -type d)" ""
finish
