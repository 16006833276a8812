#!/usr/bin/env bash
# The installed layout works without the source tree: `cmake --install` of BUILD_DIR into a
# staging prefix outside the tree, then, with the source tree (and the build tree inside it)
# hidden behind an empty folder in a private mount namespace, the installed programs run
# from their own files: qfront's version, model and search, the window's headless export, the
# man pages, bash completion; a broken install (a bundled file removed) exits 2 naming the file
# and the folder it looked in. make test runs it (ctest); package-root-check.sh does the same
# from the .deb packages in a fresh Debian root.
#   scripts/install-check.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: install-check.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^project(QuantFront VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
stage=$(mktemp -d /tmp/qf-install-check.XXXXXX)
trap 'rm -rf "$stage"' EXIT
case "$stage" in "$src"/*) echo "install-check: staging folder inside the source tree" >&2; exit 1;; esac

cmake --install "$build" --prefix "$stage/usr" --strip > "$stage/install.log"
cp "$src/scripts/installed-programs-check.sh" "$stage/check.sh"

# Hide the source tree: a private mount namespace (root, or an unprivileged user namespace)
# mounts an empty tmpfs over it. Without namespaces the check still runs, and says so.
if unshare -rm true 2>/dev/null; then
  hide=(unshare -rm sh -c 'mount -t tmpfs qf-hidden "$0" && exec "$@"' "$src")
elif [[ $(id -u) -eq 0 ]] && unshare -m true 2>/dev/null; then
  hide=(unshare -m sh -c 'mount -t tmpfs qf-hidden "$0" && exec "$@"' "$src")
else
  echo "install-check: no mount namespace here: the source tree stays visible" >&2
  hide=()
fi
cd "$stage"
"${hide[@]}" env -u QUANTFRONT_DATA_DIR HOME="$stage" XDG_RUNTIME_DIR= \
  bash "$stage/check.sh" "$stage/usr" "$version" "$src"
