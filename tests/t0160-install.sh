# make install / make uninstall (PREFIX, DESTDIR) from a fresh clone, the
# man page (lint, and the same options as --help), and a plain `make` on a
# machine missing a package: it fails naming `make deps`, never runs apt-get.
. tests/lib.sh
ROOT=$(pwd)
TMP=$ROOT/$TMP    # the clone is built elsewhere

# ---- the man page: lint, and the options of --help ----------------------
if command -v mandoc >/dev/null; then
    mandoc -T lint -W warning spider.1 >"$TMP/mandoc.log" 2>&1 && [ ! -s "$TMP/mandoc.log" ] &&
        ok || { not_ok "mandoc -T lint spider.1"; cat "$TMP/mandoc.log"; }
else
    echo "note: mandoc absent (make deps installs it): groff only"
fi
groff -man -ww -z spider.1 >"$TMP/groff.log" 2>&1 && [ ! -s "$TMP/groff.log" ] &&
    ok || { not_ok "groff warnings on spider.1"; cat "$TMP/groff.log"; }
MANWIDTH=80 man -l spider.1 >"$TMP/man.txt" 2>"$TMP/man.err"
[ -s "$TMP/man.txt" ] && [ ! -s "$TMP/man.err" ] && ok || { not_ok "man -l spider.1"; cat "$TMP/man.err"; }
for section in NAME SYNOPSIS OPTIONS SUPPRESSIONS 'EXIT STATUS' EXAMPLES; do
    grep -q "^$section" "$TMP/man.txt" && ok || not_ok "man page has no $section"
done
for status in 0 1 2 3; do
    sed -n '/^EXIT STATUS/,/^ENVIRONMENT/p' "$TMP/man.txt" | grep -qE "^       $status +[A-Z]" && ok || not_ok "man page: exit status $status"
done
# the long options each lists, as sets
$SPIDER --help | grep -o -- '--[a-z0-9][a-z0-9-]*' | sort -u >"$TMP/help.opts"
sed -n '/^OPTIONS/,/^SUPPRESSIONS/p' "$TMP/man.txt" | grep -E '^       -' |
    grep -o -- '--[a-z0-9][a-z0-9-]*' | sort -u >"$TMP/man.opts"
if diff "$TMP/help.opts" "$TMP/man.opts" >"$TMP/opts.diff"; then ok
else not_ok "--help and spider.1 list different options (< --help, > man page):"; cat "$TMP/opts.diff"; fi
echo "options in --help and spider.1: $(wc -l <"$TMP/help.opts")"
# and the short ones
$SPIDER --help | grep -oE '^  -[a-zA-Z]' | sort >"$TMP/help.short"
sed -n '/^OPTIONS/,/^SUPPRESSIONS/p' "$TMP/man.txt" | grep -oE '^       -[a-zA-Z]' | sed 's/^ *-/  -/' | sort >"$TMP/man.short"
diff "$TMP/help.short" "$TMP/man.short" >/dev/null && ok || not_ok "short options differ"

# ---- a fresh clone: make install, make uninstall ---------------------------
if [ -n "${SANITIZED:-}" ]; then # the clone builds its own binary: once is enough
    echo "note: the clone and install checks ran in the plain pass"; finish
fi
git clone -q "$ROOT" "$TMP/clone" 2>"$TMP/clone.err" || { not_ok "git clone"; cat "$TMP/clone.err"; finish; }
# (the clone has what is committed: uncommitted work is not tested here)
if [ -n "${INSTALL_TEST_WORKTREE:-}" ]; then # for a developer: the work tree
    { git ls-files; git ls-files --others --exclude-standard; } | grep -v '^tests/tmp/' |
        tar cf - -T - 2>/dev/null | tar xf - -C "$TMP/clone"
fi
cd "$TMP/clone"
make -j2 install DESTDIR="$TMP/x" PREFIX=/usr >"$TMP/install.log" 2>&1 && ok || { not_ok "make install"; tail -20 "$TMP/install.log"; }
cd "$ROOT"
X=$TMP/x/usr
[ "$("$X/bin/spider" --version)" = "$($SPIDER --version)" ] && ok || not_ok "installed spider --version"
MANWIDTH=80 man -l "$X/share/man/man1/spider.1" >"$TMP/iman.txt" 2>"$TMP/iman.err" &&
    grep -q '^SYNOPSIS' "$TMP/iman.txt" && [ ! -s "$TMP/iman.err" ] && ok || not_ok "man -l the installed page"
[ -f "$X/share/doc/spider/README.md" ] && [ -f "$X/share/doc/spider/report.md" ] && ok || not_ok "docs installed"
[ "$(stat -c %a "$X/bin/spider")" = 755 ] && [ "$(stat -c %a "$X/share/man/man1/spider.1")" = 644 ] && ok || not_ok "modes"
"$X/bin/spider" -q benchmarks/taxdc/example1 >/dev/null; [ $? -eq 1 ] && ok || not_ok "installed spider finds the race"
(cd "$TMP/clone" && make uninstall DESTDIR="$TMP/x" PREFIX=/usr) >>"$TMP/install.log" 2>&1
[ -z "$(find "$TMP/x" -type f)" ] && ok || { not_ok "make uninstall left files:"; find "$TMP/x" -type f; }

# ---- a plain make never installs: a missing package names `make deps` ----
# a PATH with every tool but pkg-config, and apt-get/sudo that say if called
mkdir -p "$TMP/fakebin"
for tool in sh make cc gcc ar as ld find mkdir rm cat sed grep ls dirname id install; do
    p=$(command -v $tool) && ln -sf "$p" "$TMP/fakebin/$tool"
done
for cmd in apt-get sudo npm; do
    printf '#!/bin/sh\necho "%s was run" >>%s/installs.log\nexit 1\n' "$cmd" "$TMP" >"$TMP/fakebin/$cmd"
    chmod +x "$TMP/fakebin/$cmd"
done
rm -f "$TMP/installs.log"
(cd "$TMP/clone" && make clean >/dev/null && PATH=$TMP/fakebin make) >"$TMP/make.out" 2>&1
rc=$?
[ $rc -ne 0 ] && ok || not_ok "make without pkg-config succeeded"
grep -q "pkg-config: run 'make deps'" "$TMP/make.out" && ok || { not_ok "make's message names make deps:"; cat "$TMP/make.out"; }
[ ! -e "$TMP/installs.log" ] && ok || { not_ok "a plain make ran an installer:"; cat "$TMP/installs.log"; }
rm -rf "$TMP/clone" "$TMP/x"
finish
