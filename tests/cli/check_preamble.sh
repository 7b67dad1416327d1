# Sourced first by the CLI check scripts that ctest calls as SCRIPT CCSIM SOURCE_DIR: the binary under test, the
# data it reads (CCSIM_DATA_DIR), a temp folder removed on exit, and `bad MESSAGE`, which counts a failure; each
# script ends with `exit $((fails > 0))`.
ccsim="$1"; src="$2"
export CCSIM_DATA_DIR="$src"
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fails=$((fails+1)); }
