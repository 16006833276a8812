#!/usr/bin/env bash
# The packages as a user gets them: the .deb files of BUILD_DIR (make package) installed with
# apt-get into a fresh Debian 12 root that has never seen the source tree, run there, and
# removed again. Needs root, debootstrap and a Debian mirror (the packages' dependencies come
# from it); under a minute once the bare root is cached, plus debootstrap the first time.
#   scripts/package-root-check.sh BUILD_DIR
# Checks, in the root:
#   1. quantfront-cli (and quantfront-cuda when built) install without a single Qt package;
#      qfront runs from the installed files (installed-programs-check.sh).
#   2. quantfront installs beside them; qfront, quantfront --export, man pages, completion and a
#      broken install are checked again with the window present.
#   3. apt-get remove --purge leaves none of the packages' files behind.
# QF_DEB_ROOT_CACHE (default /var/cache/quantfront-check/bookworm-minbase.tar) keeps the bare
# root between runs; each run unpacks a fresh copy of it.
set -euo pipefail
build=$(cd "${1:?usage: package-root-check.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^project(QuantFront VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
mirror=${QF_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${QF_DEB_ROOT_CACHE:-/var/cache/quantfront-check/bookworm-minbase.tar}
[[ $(id -u) -eq 0 ]] || { echo "package-root-check: needs root (chroot)" >&2; exit 2; }
shopt -s nullglob
debs=("$build"/quantfront*_"$version"_*.deb)
[[ ${#debs[@]} -ge 2 ]] || { echo "package-root-check: no packages in $build (make package)" >&2; exit 2; }

if [[ ! -s $cache ]]; then
  command -v debootstrap > /dev/null || apt-get install -y -qq debootstrap > /dev/null
  mkdir -p "$(dirname "$cache")"
  bare=$(mktemp -d /tmp/qf-bare-root.XXXXXX)
  echo "package-root-check: debootstrap bookworm (minbase) from $mirror"
  debootstrap --variant=minbase bookworm "$bare" "$mirror" > "$bare.log" 2>&1 ||
    { tail -5 "$bare.log" >&2; exit 1; }
  tar -C "$bare" -cf "$cache" .
  rm -rf "$bare" "$bare.log"
fi

root=$(mktemp -d /tmp/qf-deb-root.XXXXXX)
cleanup() {
  for m in proc dev/pts dev; do umount "$root/$m" 2> /dev/null || true; done
  rm -rf "$root"
}
trap cleanup EXIT
tar -C "$root" -xf "$cache"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2> /dev/null || true
mkdir -p "$root/tmp/qf"
cp "${debs[@]}" "$src/scripts/installed-programs-check.sh" "$root/tmp/qf/"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  DEBIAN_FRONTEND=noninteractive bash -c "$1"; }

echo "package-root-check: the check's own tools (python3, man-db)"
in_root "apt-get update -qq && apt-get install -y -qq --no-install-recommends python3 man-db \
  > /dev/null"

cuda_deb=$(cd "$root/tmp/qf" && ls quantfront-cuda_*.deb 2> /dev/null || true)
echo "package-root-check: 1. quantfront-cli ${cuda_deb:+and quantfront-cuda }alone"
in_root "cd /tmp/qf && apt-get install -y -qq --no-install-recommends ./quantfront-cli_*.deb \
  ${cuda_deb:+./$cuda_deb} > /dev/null"
qt=$(in_root "dpkg-query -W -f='\${Package}\n' | grep -c '^libqt' || true")
if [[ $qt -ne 0 ]]; then
  echo "FAIL  quantfront-cli${cuda_deb:+/quantfront-cuda} pulled in $qt Qt packages" >&2; exit 1
fi
echo "ok    no Qt package installed with quantfront-cli${cuda_deb:+ and quantfront-cuda}"
in_root "bash /tmp/qf/installed-programs-check.sh /usr $version"

echo "package-root-check: 2. quantfront (the window) beside it"
in_root "cd /tmp/qf && apt-get install -y -qq --no-install-recommends ./quantfront_*.deb > /dev/null"
in_root "bash /tmp/qf/installed-programs-check.sh /usr $version"

echo "package-root-check: 3. apt-get remove --purge"
packages="quantfront quantfront-cli${cuda_deb:+ quantfront-cuda}"
in_root "dpkg -L $packages | sort -u > /tmp/qf/files"
in_root "apt-get remove --purge -y -qq $packages > /dev/null"
left=$(in_root 'while read -r f; do [[ -f $f || -L $f ]] && echo "$f"; done < /tmp/qf/files;
  [[ -e /usr/share/quantfront ]] && echo /usr/share/quantfront; true')
if [[ -n $left ]]; then
  echo "FAIL  left behind after apt-get remove --purge:" >&2
  echo "$left" | head -20 >&2
  exit 1
fi
echo "ok    apt-get remove --purge left none of the packages' files"
echo "package-root-check: every check passed"
