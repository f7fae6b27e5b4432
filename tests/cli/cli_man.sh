# cli_man.sh — the man page xlate.1: renders without warnings, documents every option of
# --help, the exit statuses of src/cli/cli.h, the environment (the hub's HF_* variables too), what
# the default model is, the MODELS section and the sharding example; `make
# install` installs it.
. tests/cli/lib.sh
if command -v groff > /dev/null 2>&1; then
  groff -man -ww -z xlate.1 > "$T/warn" 2>&1
  expect_eq "groff -man -ww renders xlate.1 without warnings" "$(cat "$T/warn")" ""
else
  ok "groff renders xlate.1 # SKIP groff is not installed"
fi
if command -v man > /dev/null 2>&1; then
  MANWIDTH=80 man --warnings -l xlate.1 > "$T/page" 2> "$T/warn"
  expect_eq "man -l xlate.1: no warnings" "$(cat "$T/warn")" ""
  for s in NAME SYNOPSIS DESCRIPTION MODELS OPTIONS COMMANDS ENVIRONMENT "EXIT STATUS" FILES EXAMPLES; do
    expect_grep "man page section $s" "$T/page" "^$s\$"
  done
else
  ok "man -l xlate.1 # SKIP man is not installed"
fi
# The page's text with roff escapes for '-' undone, to grep options in.
sed 's/\\-/-/g; s/\\f[BIRP]//g' xlate.1 > "$T/src"

"$XLATE" --help > "$T/help"
for opt in $(grep -o -- '--[a-z][a-z-]*' "$T/help" | sort -u); do
  if grep -q -- "$opt" "$T/src"; then ok "xlate.1 documents $opt"; else notok "xlate.1 documents $opt" "not found"; fi
done
# Exit statuses: the enum in src/cli/cli.h, --help and the page agree.
for code in 0 1 2 3 4 5; do
  name=$(sed -n "s/.*XLATE_EXIT_\([A-Z]*\) = $code\b.*/\1/p" src/cli/cli.h | tr 'A-Z' 'a-z')
  [ "$name" = ok ] && name=success
  expect_grep "--help: exit status $code is $name" "$T/help" "^  $code  $name"
  if awk -v c="$code" '/^\.SH EXIT STATUS/ { on = 1 } /^\.SH FILES/ { on = 0 } on && prev == ".B " c { print; exit } { prev = $0 }' xlate.1 | grep -qi "^$name"; then
    ok "xlate.1: exit status $code is $name"
  else
    notok "xlate.1: exit status $code is $name" "not in EXIT STATUS"
  fi
done
# every XLATE_* variable the sources read is documented: those read through getenv, and the
# table of src/xlate_env.c (the hub's knobs are read through a helper of their own)
vars=$({ grep -rhoE 'getenv\("XLATE_[A-Z0-9_]+"\)' src | sed 's/getenv("\(.*\)")/\1/'
         grep -oE '^ *\{"XLATE_[A-Z0-9_]+"' src/xlate_env.c | tr -d ' {"'; } | sort -u)
[ -n "$vars" ] || notok "environment variables found in src/" "none"
for v in $vars; do
  expect_grep "xlate.1 ENVIRONMENT: $v" "$T/src" "^\.B $v\$"
done
# the Hugging Face hub's variables (huggingface_hub constants.py) that model names read
for v in HF_HUB_CACHE HF_HOME HF_TOKEN HF_ENDPOINT HF_HUB_OFFLINE; do
  expect_grep "xlate.1 ENVIRONMENT: $v" "$T/src" "^\.B $v\$"
done
# what the default model is, said where a reader starts (the words of models/en-de/config.json's
# "description", which xlate info shows), and how to get a real one
awk '/^\.SH DESCRIPTION/ { on = 1; next } /^\.SH / { on = 0 } on' "$T/src" | tr '\n' ' ' > "$T/desc"
for w in "image captions" "Multi30k" "7.6M parameters" "BLEU 35.7" "xlate -m \\%Helsinki-NLP/opus-mt-en-de"; do
  if grep -qF -- "$w" "$T/desc"; then ok "xlate.1 DESCRIPTION: says \"$w\""; else notok "xlate.1 DESCRIPTION: says \"$w\"" "not found"; fi
done
expect_grep "xlate.1 EXAMPLES: GNU parallel sharding" "$T/src" '^parallel --pipe --keep-order -N 1000 xlate -q --threads 1'
for sub in info encode decode; do
  expect_grep "xlate.1 COMMANDS: $sub" "$T/src" "^\.B xlate $sub"
done
expect_grep "xlate.1 FILES: the compiled-in share directory" "$T/src" 'share/xlate/models/en-de'

# make install puts it in the man directory (dry run: nothing is built or copied).
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -n install DESTDIR="$T/root" PREFIX=/usr > "$T/install" 2>&1
expect_grep "make install installs xlate.1 into share/man/man1" "$T/install" "install -m 644 xlate.1 $T/root/usr/share/man/man1/xlate.1"
finish
