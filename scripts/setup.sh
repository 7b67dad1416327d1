#!/bin/bash
# Installs what ccsim needs from Debian (only what is missing), then configures and builds in Release.
# Usage: scripts/setup.sh [--tests]   (as root on Debian 12; sudo is used when not root)
#   --tests also installs what only the test suite and CI use: Debian's Chromium, whose DevTools trace engine
#           loads a --timeline file in the trace_in_viewer test (without it that one test is skipped), Pillow
#           (reads the screenshot of an explain --format html page in cli_html_page), and
#           clang with its runtime libraries (libFuzzer, ASan, UBSan) for the sanitized build and the fuzz
#           harnesses (.ci/run, scripts/fuzz.sh), and Open MPI, with which `mpirun -np N ccsim sweep` spreads a
#           plan over ranks (tests/cli/sweep_mpi.sh; without it ccsim builds without MPI and that test is skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(g++ cmake ninja-build libboost-graph-dev nlohmann-json3-dev libfmt-dev libeigen3-dev doctest-dev libcli11-dev
      python3 python3-matplotlib graphviz libbenchmark-dev time
      pybind11-dev python3-pybind11 python3-dev python3-pytest)
case "${1:-}" in
  "") ;;
  --tests) pkgs+=(chromium clang libclang-rt-14-dev libopenmpi-dev openmpi-bin python3-pil) ;;
  *) echo "setup.sh: unknown option '$1' (expected --tests or nothing)" >&2; exit 2 ;;
esac
# pandas: the Python module's optional to_pandas(), tested when installed.
[ "${1:-}" = --tests ] && pkgs+=(python3-pandas)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# CI (CI=true, as .ci/run is run) builds with warnings as errors; a user's build only warns.
werror=OFF; [ "${CI:-}" = true ] && werror=ON
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCCSIM_WERROR=$werror >/dev/null
cmake --build build -j "$(nproc)"
