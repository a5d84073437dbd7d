#!/bin/sh
# SPDX-License-Identifier: MIT
# make deb: the Debian packages iomatrix and iomatrix-mpi from a source tarball (make dist),
# unpacked under OUT/src with contrib/debian/ as its debian/, built by dpkg-buildpackage -us -uc
# -b; the .deb, .buildinfo and .changes files are left in OUT, and lintian (when installed) must
# find no error or warning beyond the overrides in contrib/debian/*.lintian-overrides.
#   contrib/debian/build.sh TARBALL VERSION OUT
set -eu
[ $# -eq 3 ] || { echo "usage: contrib/debian/build.sh TARBALL VERSION OUT" >&2; exit 2; }
tarball=$1 version=$2 out=$3
for c in dpkg-buildpackage dh; do
    command -v "$c" >/dev/null 2>&1 || {
        echo "make deb: $c is not installed (apt-get install dpkg-dev debhelper)" >&2; exit 1; }
done
# A Debian version from the tree's: 0.3.0-4-gabc1234-dirty → 0.3.0+4.gabc1234.dirty
debver=$(printf '%s' "$version" | sed 's/-/+/; s/-/./g')
rm -rf "$out"
mkdir -p "$out/src"
tar -xzf "$tarball" -C "$out/src"
tree="$out/src/iomatrix-$version"
[ -d "$tree" ] || { echo "make deb: $tarball holds no iomatrix-$version/" >&2; exit 1; }
cp -R "$tree/contrib/debian" "$tree/debian"
rm -f "$tree/debian/build.sh"
top=$(sed -n '1s/^iomatrix (\([^)]*\)).*/\1/p' "$tree/debian/changelog")
if [ "$top" != "$debver" ]; then
    {
        printf 'iomatrix (%s) unstable; urgency=medium\n\n' "$debver"
        printf '  * Built from the tree at %s.\n\n' "$version"
        printf ' -- the iomatrix developers <iomatrix@packages.debian.invalid>  %s\n\n' \
            "$(LC_ALL=C date -R)"
        cat "$tree/debian/changelog"
    } >"$tree/debian/changelog.new"
    mv "$tree/debian/changelog.new" "$tree/debian/changelog"
fi
(cd "$tree" && DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-parallel=2}" dpkg-buildpackage -us -uc -b)
mv "$out"/src/*.deb "$out"/src/*.buildinfo "$out"/src/*.changes "$out"/
rm -rf "$out/src"
ls "$out"
if command -v lintian >/dev/null 2>&1; then
    lintian --fail-on error,warning --info "$out"/*.changes
    echo "lintian: no error or warning"
else
    echo "make deb: lintian is not installed; the packages are not checked"
fi
