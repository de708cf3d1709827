# Sourced by run.sh and test.sh: installs what lnbench needs on a fresh
# Debian machine. Only Debian packages and Go modules; nothing else is fetched.
set -euo pipefail

lnbench_need_go() {
  if ! command -v go >/dev/null 2>&1; then
    if [ -x /usr/local/go/bin/go ]; then export PATH="/usr/local/go/bin:$PATH"; else
      echo "lnbench: Go is not installed; install Go 1.26 (https://go.dev/dl) and rerun" >&2; exit 1
    fi
  fi
}

# lnbench_apt PKG...: installs the Debian packages that are missing.
lnbench_apt() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "lnbench: missing Debian packages: ${missing[*]}; install them as root (apt-get install ${missing[*]})" >&2; return 1
    fi
  fi
  echo "installing Debian packages: ${missing[*]}" >&2
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

lnbench_docker_answers() {
  command -v docker >/dev/null 2>&1 && timeout 10 docker info >/dev/null 2>&1
}
