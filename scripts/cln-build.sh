# Sourced by test.sh: builds Core Lightning from a release tarball (CI's
# ../shared/cln/) into the cache, keyed by the tarball's and this file's
# hashes, and prints the bin dir (lightningd; subdaemons and plugins in
# ../libexec/c-lightning, where lightningd finds them).
# Interim: `cln@src:` node specs (nodebuild) are to build users' trees.
set -euo pipefail

CLN_BUILD_DEPS=(build-essential autoconf automake libtool pkg-config gettext libsqlite3-dev libsodium-dev zlib1g-dev libffi-dev python3 python3-mako jq lowdown)

# lnbench_cln_build TARBALL: echoes the bin dir of the cached build.
lnbench_cln_build() {
  local tarball=$1 cache=${LNBENCH_CACHE:-$HOME/.cache/lnbench}
  local key
  key=$( (sha256sum "$tarball"; sha256sum "${BASH_SOURCE[0]}"; gcc --version | head -1) | sha256sum | cut -c1-16)
  local out="$cache/bin/cln-$key"
  if [ -x "$out/bin/lightningd" ]; then echo "$out/bin"; return 0; fi
  local work; work=$(mktemp -d)
  local name; name=$(basename "$tarball"); name=${name%-src.tar.*}
  local start=$SECONDS
  echo "building CLN from $tarball (--disable-rust: crates cannot be fetched; a few minutes)" >&2
  mkdir -p "$work/$name"
  tar -xf "$tarball" -C "$work/$name" --strip-components=1
  # /usr/bin first: a pyenv python3 earlier in PATH lacks mako.
  if ! (cd "$work/$name" && export PATH="/usr/bin:/bin:$PATH" &&
        ./configure --disable-rust >"$work/build.log" 2>&1 &&
        nice make -j2 all-programs >>"$work/build.log" 2>&1 &&
        make install DESTDIR="$work/install" PREFIX=/ >>"$work/build.log" 2>&1); then
    tail -30 "$work/build.log" >&2; rm -rf "$work"; return 1
  fi
  mkdir -p "$cache/bin"; rm -rf "$out"; mv "$work/install" "$out"; rm -rf "$work"
  echo "built CLN $("$out/bin/lightningd" --version) in $((SECONDS - start)) s ($(du -sh "$out" | cut -f1))" >&2
  echo "$out/bin"
}
