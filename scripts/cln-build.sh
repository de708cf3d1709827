# Sourced by test.sh: the packages a Core Lightning build needs, and the
# build of CI's CLN tree (../shared/cln/, a release tarball) through
# `lnbench build --version cln@src:…` (cached by content like LND).
set -euo pipefail

CLN_BUILD_DEPS=(build-essential autoconf automake libtool pkg-config gettext libsqlite3-dev libsodium-dev zlib1g-dev libffi-dev python3 python3-mako jq lowdown)

# lnbench_cln_build TARBALL: echoes the bin dir of the cached build
# (lightningd; subdaemons and plugins in ../libexec/c-lightning).
lnbench_cln_build() {
  local dir
  dir=$(bin/lnbench build --version "cln@src:$1" | sed -n 's/.* → //p')
  [ -x "$dir/bin/lightningd" ] || { echo "lnbench build cln@src:$1 gave no lightningd" >&2; return 1; }
  echo "$dir/bin"
}
