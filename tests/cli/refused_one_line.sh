# Sourced by CLI test scripts that count failures with their own `bad MESSAGE` and keep a temp folder in $tmp:
# refused_one_line WANT ARGS... runs "$ccsim" ARGS (20 s of CPU at most, 300 s of wall for a wait: a loaded
# machine stretches wall time, not CPU time) and calls bad unless it exits 2 with nothing on
# stdout and exactly one stderr line containing WANT (the house rule on bad input, stricter than refused.sh's
# one-line-of-both check: a refusal must not also print a partial table).
refused_one_line() {
  local want="$1"; shift
  local rc lines
  (ulimit -t 20; timeout 300 "$ccsim" "$@") >"$tmp/out" 2>"$tmp/err"; rc=$?
  lines=$(wc -l <"$tmp/err")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$tmp/out" ] || ! grep -qF -- "$want" "$tmp/err"; then
    bad "ccsim $* -> rc=$rc, stderr lines=$lines, want '$want'"; sed 's/^/  | /' "$tmp/err"
  fi
}
