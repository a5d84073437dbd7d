#!/bin/sh
# SPDX-License-Identifier: MIT
# The Makefile keeps a distribution's conventions: `make CFLAGS=-O2 CPPFLAGS=-D_FORTIFY_SOURCE=2`
# compiles with both and without -Werror, `make dev` with -Werror; `make` only names a missing
# dependency (never apt-get or sudo: only make deps and make demo install); `make install`
# writes the binaries, man pages, both completions, the docs and a systemd unit that names
# this PREFIX; `make dist` writes VERSION into its tarball, and a build from that tarball is
# that version. Skips (77) without make.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_cmd make tar
b=$(dirname "$IOMATRIX")
variant=$(basename "$b")
root=$(dirname "$b")
# (the make that runs this suite passes its variables, VARIANT=asan among them, in MAKEFLAGS
# and the environment, and CI exports WERROR:
# the makes under test get none of them)
# mk_in DIR ARGS…: make in DIR; mk ARGS…: make in the tree under test
mk_in() {
    _dir=$1
    shift
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u VARIANT -u WERROR make --no-print-directory -C "$_dir" "$@"
}
mk() { mk_in "$TOP" "$@"; }

# the user's flags, and -Werror only when asked for
mk -n -B BUILD_ROOT="$WORK/b" CFLAGS=-O2 CPPFLAGS=-D_FORTIFY_SOURCE=2 "$WORK/b/release/src/util.o" \
    >user.txt 2>&1 || die "make -n with the user's flags: $(tail -n 3 user.txt)"
grep -q -- ' -D_FORTIFY_SOURCE=2 ' user.txt || die "CPPFLAGS not used: $(cat user.txt)"
grep -q -- ' -O2 ' user.txt || die "CFLAGS not used: $(cat user.txt)"
grep -q -- '-Werror\( \|$\)' user.txt && die "make with the user's CFLAGS has -Werror: $(cat user.txt)"
mk -n BUILD_ROOT="$WORK/dev" dev >dev.txt 2>&1 || die "make -n dev: $(tail -n 3 dev.txt)"
grep -q -- ' -Werror .*src/util.c' dev.txt || die "make dev has no -Werror"

# make names what is missing and installs nothing
mkdir stub
for c in pkg-config apt-get sudo; do
    printf '#!/bin/sh\necho "%s $*" >>"%s/called"\nexit 1\n' "$c" "$WORK" >"stub/$c"
    chmod +x "stub/$c"
done
PATH="$WORK/stub:$PATH" mk BUILD_ROOT="$WORK/b" >deps.txt 2>&1 && die "make passed without its dependencies"
grep -q 'missing build dependencies.*' deps.txt && grep -q 'apt-get install.* libconfig-dev' deps.txt ||
    die "make does not name the missing packages: $(cat deps.txt)"
grep -q 'make deps' deps.txt || die "make does not point at make deps: $(cat deps.txt)"
grep -q '^\(apt-get\|sudo\)' called && die "make ran $(grep '^\(apt-get\|sudo\)' called | head -n 1)"
grep -q 'libcmocka' deps.txt && die "make (no tests) asks for cmocka: $(cat deps.txt)"

# make install under a DESTDIR, PREFIX=/usr
mk -q BUILD_ROOT="$root" VARIANT="$variant" "$IOMATRIX" 2>/dev/null ||
    skip "the binary under test is not up to date with the tree"
mk BUILD_ROOT="$root" VARIANT="$variant" DESTDIR="$WORK/root" PREFIX=/usr install >install.txt 2>&1 ||
    die "make install: $(tail -n 3 install.txt)"
r=$WORK/root
for f in usr/bin/iomatrix usr/share/man/man1/iomatrix.1 usr/share/man/man5/iomatrix-matrix.5 \
    usr/share/bash-completion/completions/iomatrix usr/share/zsh/site-functions/_iomatrix \
    usr/share/doc/iomatrix/README.md usr/share/doc/iomatrix/overnight.md \
    usr/lib/systemd/system/iomatrix-sweep@.service; do
    [ -f "$r/$f" ] || die "make install wrote no /$f"
done
if [ -x "$b/iomatrix-mpi" ]; then
    [ -x "$r/usr/bin/iomatrix-mpi" ] || die "iomatrix-mpi was built but not installed"
    [ -f "$r/usr/share/man/man1/iomatrix-mpi.1" ] || die "no iomatrix-mpi(1) installed"
fi
unit=$r/usr/lib/systemd/system/iomatrix-sweep@.service
grep -q '^ExecStart=/usr/bin/iomatrix resume %f' "$unit" || die "the unit's ExecStart: $(grep ExecStart "$unit")"
grep -q '/usr/local\|@[A-Z]*@' "$unit" && die "the unit keeps a /usr/local or template path"
doc=$(sed -n 's|^Documentation=file://\([^ ]*\).*|\1|p' "$unit")
[ -n "$doc" ] && [ -f "$r$doc" ] || die "the unit points at '$doc', which make install did not write"

# make dist: VERSION in the tarball, and a build outside git takes it
mk BUILD_ROOT="$WORK/d" dist >dist.txt 2>&1 || die "make dist: $(tail -n 3 dist.txt)"
tarball=$(tail -n 1 dist.txt)
mkdir unpacked && tar -xzf "$tarball" -C unpacked || die "tar -x $tarball"
tree=$(ls -d unpacked/iomatrix-*)
v=$(cat "$tree/VERSION") || die "no VERSION in $tarball"
[ "$tree" = "unpacked/iomatrix-$v" ] || die "$tree holds VERSION '$v'"
"$IOMATRIX" version | grep -q -- " $v\$" || die "VERSION '$v' is not the binary's '$("$IOMATRIX" version)'"
[ -d "$tree/src" ] && [ -f "$tree/LICENSE" ] && [ -d "$tree/contrib/debian" ] || die "the tarball lacks src, LICENSE or contrib/debian"
[ -e "$tree/build" ] && die "the tarball holds build/"
mk_in "$tree" -n build/release/src/main.o >built.txt 2>&1
grep -q "IOM_VERSION='\"$v\"'" built.txt || die "a build from the tarball is not version $v: $(grep -o 'IOM_VERSION=[^ ]*' built.txt)"
exit $fail
