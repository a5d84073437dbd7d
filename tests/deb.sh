#!/bin/sh
# SPDX-License-Identifier: MIT
# make deb-test: after make deb, the packages in OUT hold what a user needs — iomatrix: the
# binary (it runs and says its version), both man pages, the bash and zsh completions, the docs
# at the path the systemd unit names, the unit with /usr/bin; iomatrix-mpi: its binary and man
# page, depending on iomatrix. The build itself ran lintian (contrib/debian/build.sh). Run by CI
# (.ci/run), not by make test: the build takes minutes.
#   tests/deb.sh OUT
set -u
out=${1:?usage: tests/deb.sh OUT}
fail=0
die() { echo "FAIL: $*"; fail=1; }
main=$(ls "$out"/iomatrix_*.deb 2>/dev/null | head -n 1)
mpi=$(ls "$out"/iomatrix-mpi_*.deb 2>/dev/null | head -n 1)
[ -n "$main" ] && [ -n "$mpi" ] || { echo "FAIL: no iomatrix and iomatrix-mpi packages in $out"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/iomatrix-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
dpkg-deb -x "$main" "$work/root" || die "dpkg-deb -x $main"
dpkg-deb -x "$mpi" "$work/root" || die "dpkg-deb -x $mpi"
r=$work/root
for f in usr/bin/iomatrix usr/bin/iomatrix-mpi usr/share/man/man1/iomatrix.1.gz \
    usr/share/man/man5/iomatrix-matrix.5.gz usr/share/man/man1/iomatrix-mpi.1.gz \
    usr/share/bash-completion/completions/iomatrix usr/share/zsh/vendor-completions/_iomatrix \
    usr/share/doc/iomatrix/copyright usr/share/doc/iomatrix/README.md \
    lib/systemd/system/iomatrix-sweep@.service; do
    [ -e "$r/$f" ] || die "the packages lack /$f"
done
unit=$r/lib/systemd/system/iomatrix-sweep@.service
grep -q '^ExecStart=/usr/bin/iomatrix resume ' "$unit" || die "the unit does not start /usr/bin/iomatrix"
grep -q '@[A-Z]*@\|/usr/local' "$unit" && die "the unit keeps a template or /usr/local path"
doc=$(sed -n 's|^Documentation=file://\([^ ]*\).*|\1|p' "$unit")
[ -n "$doc" ] && [ -f "$r$doc" ] || die "the unit's documentation '$doc' is not in the package"
v=$("$r/usr/bin/iomatrix" version) || die "the packaged iomatrix does not run"
deb_v=$(dpkg-deb -f "$main" Version)
echo "packaged: $v; package version $deb_v"
case $v in *[0-9].[0-9]*) ;; *) die "iomatrix version says '$v'" ;; esac
dpkg-deb -f "$mpi" Depends | grep -q "iomatrix (= $deb_v)" || die "iomatrix-mpi does not depend on iomatrix $deb_v"
[ "$fail" -eq 0 ] && echo "deb: 1 passed, 0 failed" || echo "deb: 0 passed, 1 failed"
exit "$fail"
