# Sourced by test.sh: the build of CI's CLN tree (../shared/cln/, a release
# tarball) through `lnbench build --version cln@src:…` (cached by content
# like LND). lnbench installs the Debian packages the build needs itself
# (nodebuild.CLNBuildPackages), as it does for run.sh.
set -euo pipefail

# lnbench_cln_build TARBALL: echoes the bin dir of the cached build
# (lightningd; subdaemons and plugins in ../libexec/c-lightning).
lnbench_cln_build() {
  local dir
  dir=$(bin/lnbench build --version "cln@src:$1" | sed -n 's/.* → //p')
  [ -x "$dir/bin/lightningd" ] || { echo "lnbench build cln@src:$1 gave no lightningd" >&2; return 1; }
  echo "$dir/bin"
}
