# Sourced by CLI test scripts: refused LABEL TEXT ARGS... runs "$ccsim" ARGS and fails the script (fail=1) unless it
# exits 2 with exactly one output line containing TEXT (the house rule on bad input).
refused() {
  local label="$1" want="$2"; shift 2
  local out rc
  out=$("$ccsim" "$@" 2>&1); rc=$?
  if [ "$rc" != 2 ]; then echo "FAIL $label: exit $rc, expected 2: $out"; fail=1; return; fi
  if [ "$(printf '%s\n' "$out" | wc -l)" != 1 ]; then echo "FAIL $label: more than one line: $out"; fail=1; fi
  case "$out" in *"$want"*) ;; *) echo "FAIL $label: '$out' does not say '$want'"; fail=1 ;; esac
}
