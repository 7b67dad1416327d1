#!/bin/bash
# `ccsim topo import/export` and `--topo FILE` on real tool outputs: every `nvidia-smi topo -m` matrix we
# have predicts what its preset or machine: description predicts (byte-identical rows, fifo and nccl
# models); the NCCL XML export round-trips; bad files are one line and exit 2.
set -u
ccsim="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
# Under --semantics mpi (lockstep) the same machine gives the same times whatever its GPU numbering;
# under gpu semantics a relabelled machine packs other (equivalent) rings, whose pipelining differs slightly.
same() { # same predictions: TOPO_A (with extra flags) vs TOPO_B
  local a="$1" b="$2" model
  for model in fifo nccl; do
    # --params none: the shipped calibration scales each link's bandwidth with its own rounding, and
    # equal machines described two ways may list their links in another order (0.01 us apart).
    "$ccsim" --topo $a -b 1M -e 128M --model $model --semantics mpi --params none | grep -v '^#' >"$tmp/a" || { fail "run $a"; return; }
    "$ccsim" --topo $b -b 1M -e 128M --model $model --semantics mpi --params none | grep -v '^#' >"$tmp/b" || { fail "run $b"; return; }
    [ -s "$tmp/a" ] && diff -q "$tmp/a" "$tmp/b" >/dev/null || fail "$a and $b predict differently ($model)"
  done
}
same "$root/models/traces/dgx1-v100-8gpu-allreduce-konnase.txt" dgx1
same "$root/models/traces/rtx4090-pcie-8gpu-allreduce-p2p-off-blog.txt" rtx4090-pcie-8gpu
same "$root/tests/data/import/a40-pcie-2gpu-nv4bridge-allreduce-1G-8G-nvlink-llminsights.txt --gpu a40" machine:gpu=a40
same "$root/tests/data/import/b200-gke-a4-topo-m-dranet.txt --gpu b200" machine:gpu=b200

# topo import writes JSON that loads back to the same predictions.
"$ccsim" topo import "$root/tests/data/import/b200-gke-a4-topo-m-dranet.txt" --gpu b200 -o "$tmp/a4.json" || fail "topo import"
same "$tmp/a4.json" machine:gpu=b200
grep -q '"gpu": "b200"' "$tmp/a4.json" || fail "imported JSON names its GPU kind"

# NCCL XML export -> import.
for spec in dgx1 machine:gpu=h100 machine:gpu=mi300x; do
  "$ccsim" topo export --nccl-xml "$spec" -o "$tmp/x.xml" || fail "export $spec"
  grep -q '<system version="1">' "$tmp/x.xml" || fail "export $spec: no <system>"
  same "$tmp/x.xml" "$spec"
done

# One-line errors, exit 2.
printf 'GPU0\tGPU1\nGPU0\t X \tNV2\nGPU1\tNV2\t X \n' >"$tmp/m.txt"
"$ccsim" --topo "$tmp/m.txt" -b 1M -e 1M 2>"$tmp/err" >/dev/null; rc=$?
[ $rc -eq 2 ] || fail "no GPU kind: exit $rc"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "m.txt: the topo -m matrix does not say which GPU it is: give --gpu KIND" "$tmp/err" || fail "no GPU kind message: $(cat "$tmp/err")"
"$ccsim" --topo "$tmp/m.txt" --gpu v100 -b 1M -e 1M >/dev/null || fail "--gpu v100 makes it load"
"$ccsim" --topo "$tmp/m.txt" --gpu x100 -b 1M -e 1M 2>"$tmp/err" >/dev/null; [ $? -eq 2 ] && grep -q "unknown gpu 'x100'" "$tmp/err" || fail "--gpu x100"
head -c 3000 /dev/urandom >"$tmp/junk.txt"
"$ccsim" --topo "$tmp/junk.txt" -b 1M -e 1M 2>"$tmp/err" >/dev/null; [ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "garbage file: $(head -c 300 "$tmp/err")"
"$ccsim" topo export --nccl-xml pcie-gen4-8gpu 2>"$tmp/err" >/dev/null; [ $? -eq 2 ] && grep -q "give --gpu KIND" "$tmp/err" || fail "export without a kind"

echo "topo import: $fails failure(s)"
[ "$fails" -eq 0 ]
