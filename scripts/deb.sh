#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the rdma-sroce-dkms Debian package, built with dpkg-deb from
# the tracked sources (Kbuild, drivers/, include/) and packaging/deb.
# The version is dkms.conf's, plus the commit date and hash in a checkout
# (0.1+git20261203.521cf80), so that every commit makes a newer package.
#
# SROCE_DEB_DIR   where the .deb goes (default: build/ in the tree)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out=${SROCE_DEB_DIR:-$repo/build}
git=(git -c "safe.directory=$repo" -C "$repo")

base=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$repo/dkms.conf")
[ -n "$base" ] || { echo "deb.sh: no PACKAGE_VERSION in dkms.conf" >&2; exit 1; }
if "${git[@]}" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	version="$base+git$("${git[@]}" log -1 --format=%cd --date=format:%Y%m%d).$("${git[@]}" rev-parse --short HEAD)"
	list=$("${git[@]}" ls-files Kbuild drivers include compat)
else
	version=$base
	list=$(cd "$repo" && find Kbuild drivers include compat -name Kbuild -o -name '*.[ch]' \
		-o -path compat/expected -o -path compat/probe.sh)
fi
# no process substitution: a minimal system may have no /dev/fd
mapfile -t files <<<"$list"

# The supported series (compat/expected) as dkms.conf's regex, the
# postinst's case pattern and words: dkms.conf is also used from a
# checkout (dkms add .), so it is written out and held to them here.
mapfile -t series <<<"$(sh "$repo/scripts/kver.sh" --series)"
alt=$(printf '%s|' "${series[@]}")
alt=${alt%|}
regex="^(${alt//./\\.})\\."
glob=$(printf '%s.*|' "${series[@]}")
glob=${glob%|}
words=${series[*]}
words=${words// / and }
want="BUILD_EXCLUSIVE_KERNEL=\"$regex\""
grep -qxF "$want" "$repo/dkms.conf" ||
	{ echo "deb.sh: dkms.conf must say $want (the series of compat/expected)" >&2; exit 1; }

stage=$(mktemp -d)
chmod 0755 "$stage"
trap 'rm -rf "$stage"' EXIT
src=$stage/usr/src/rdma-sroce-$version
doc=$stage/usr/share/doc/rdma-sroce-dkms
umask 022
mkdir -p "$src" "$doc" "$stage/DEBIAN"
(cd "$repo" && cp --parents -- "${files[@]}" "$src/")
sed "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$version\"/" "$repo/dkms.conf" >"$src/dkms.conf"
cp "$repo/packaging/deb/copyright" "$doc/copyright"
for f in postinst prerm; do
	sed -e "s/@VERSION@/$version/" -e "s/@SERIES_GLOB@/$glob/" -e "s/@SERIES_LIST@/$words/" \
		"$repo/packaging/deb/$f" >"$stage/DEBIAN/$f"
	chmod 0755 "$stage/DEBIAN/$f"
done
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@SIZE@/$size/" \
	"$repo/packaging/deb/control.in" >"$stage/DEBIAN/control"

mkdir -p "$out"
deb=$out/rdma-sroce-dkms_${version}_all.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
