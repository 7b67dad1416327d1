#!/bin/bash
# A binary that cannot find its data folder (copied elsewhere, no CCSIM_DATA_DIR) prints one error line and
# exits 2 for --help, whose text ends with the catalogue of shipped topologies; it used to abort (exit 134).
# Usage: help_without_data.sh CCSIM
set -u
ccsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$ccsim" "$tmp/ccsim"
fail() { echo "FAIL: $*"; exit 1; }
for args in "--help" "bench --help"; do
  # shellcheck disable=SC2086 # the arguments are meant to split
  out=$(cd "$tmp" && env -u CCSIM_DATA_DIR ./ccsim $args 2>&1)
  rc=$?
  [ "$rc" = 2 ] || fail "ccsim $args without data: exit $rc, expected 2 (output: $out)"
  [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "ccsim $args without data: more than one line: $out"
  case "$out" in "ccsim: cannot find ccsim's data"*CCSIM_DATA_DIR*) ;; *) fail "ccsim $args: unexpected message: $out" ;; esac
done
echo "help without data: one line, exit 2"
