#!/bin/bash
# `amd-smi topology` files (tests/data/import/amd-smi-*: real outputs and AMD's own examples, text and --json)
# through `ccsim topo import` and `--topo FILE`, and machine:...,bridge=2way|4way|none from the command line.
# What the tables say is read by eye: 8 MI355X all XGMI = 28 one-link pairs; PCIE pairs with ACCESS DISABLED
# are host-staged. Unusable input and a bridge the card is not sold with: one line naming the file or key, exit 2.
set -u
ccsim="$1"; root="$2"
data="$root/tests/data/import"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
json_count() { # FILE PYTHON-EXPR over t (the imported JSON) -> printed value
  /usr/bin/python3 -c "import json,sys; t=json.load(open(sys.argv[1])); print($2)" "$1"
}
refused() { # NEEDLE CMD...: exit 2, one stderr line containing NEEDLE
  local needle="$1"; shift
  "$@" >/dev/null 2>"$tmp/err"; local rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$needle" "$tmp/err" ||
    fail "$* -> exit $rc, wanted one line with '$needle': $(head -c 300 "$tmp/err")"
}

# The OCI MI355X node: the kind from amd-smi's own GPU-Name column, 28 XGMI links.
mi355x="$data/amd-smi-topology-8gpu-mi355x-xgmi-weight0-oci.txt"
"$ccsim" topo import "$mi355x" -o "$tmp/mi355x.json" || fail "import $mi355x"
[ "$(json_count "$tmp/mi355x.json" "t['gpu']")" = mi355x ] || fail "MI355X sample: GPU kind"
[ "$(json_count "$tmp/mi355x.json" "sum(l['type']=='xgmi' and l['a'].startswith('gpu') and l['b'].startswith('gpu') for l in t['links'])")" = 28 ] ||
  fail "MI355X sample: 28 XGMI pairs"
# Its XGMI mesh predicts what machine:gpu=mi355x predicts (host side differs: no NUMA placement in the file).
for model in fifo nccl; do
  "$ccsim" --topo "$mi355x" -b 1M -e 1G --model $model --semantics mpi --params none | grep -v '^#' >"$tmp/a" || fail "--topo $mi355x ($model)"
  "$ccsim" --topo machine:gpu=mi355x -b 1M -e 1G --model $model --semantics mpi --params none | grep -v '^#' >"$tmp/b"
  [ -s "$tmp/a" ] && diff -q "$tmp/a" "$tmp/b" >/dev/null || fail "$mi355x and machine:gpu=mi355x predict differently ($model)"
done

# AMD's changelog examples: text needs --gpu; both JSON layouts import.
refused "amd-smi topology does not say which GPU it is: give --gpu KIND" "$ccsim" topo import "$data/amd-smi-topology-8gpu-allxgmi-w15-amdsmi-changelog61.txt"
"$ccsim" topo import "$data/amd-smi-topology-8gpu-allxgmi-w15-amdsmi-changelog61.txt" --gpu mi300x -o "$tmp/cl.json" || fail "changelog text with --gpu"
for f in amd-smi-topology-json-old-2gpu-pcie-amdsmi-changelog612.txt amd-smi-topology-json-2gpu-pcie-access-type-amdsmi-changelog612.txt; do
  "$ccsim" topo import "$data/$f" --gpu mi300x -o "$tmp/j.json" || { fail "import $f"; continue; }
  [ "$(json_count "$tmp/j.json" "sum(bool(l.get('host_staged')) for l in t['links'])")" = 2 ] || fail "$f: both GPU ports host-staged (DISABLED)"
done

# Two RX 7900 XTX: a GPU the catalogue does not know is named, --gpu takes over.
xtx="$data/amd-smi-topology-2gpu-rx7900xtx-pcie-p2p-disabled-rocm6074.txt"
refused "line 18: names the GPU 'AMD Radeon RX 7900 XTX', which models/gpus.json does not know" "$ccsim" --topo "$xtx" -b 1M -e 1M
"$ccsim" --topo "$xtx" --gpu mi100 -b 1M -e 1M >/dev/null || fail "--topo $xtx --gpu mi100"

# Broken files.
printf 'LINK TYPE TABLE:\n             0000:01:00.0 0000:02:00.0\n0000:01:00.0 SELF         XGMI\n' >"$tmp/cut.txt"
refused "cut.txt: the 'LINK TYPE TABLE' section has no complete GPU matrix" "$ccsim" topo import "$tmp/cut.txt" --gpu mi300x
printf '[{"gpu": 0, "link_type": {"gpu_0": "SELF"' >"$tmp/cut.json"
refused "cut.json: not valid \`amd-smi topology --json\` output" "$ccsim" topo import "$tmp/cut.json" --gpu mi300x

# Bridges: 4 H200 NVL on two 2-way bridges ring through PCIe and the socket link; the 4-way default keeps
# the ring on NVLink, so the 2-way busbw is lower (8 cards: both cross the sockets alike).
busbw() { "$ccsim" --topo "$1" -b 1G -e 1G --model nccl | grep -v '^#' | awk 'NF{print $8}' | head -1; }
two=$(busbw machine:gpu=h200nvl,gpus=4,bridge=2way); four=$(busbw machine:gpu=h200nvl,gpus=4)
/usr/bin/python3 -c "import sys; sys.exit(0 if 0 < float('$two') < float('$four') else 1)" 2>/dev/null ||
  fail "4 x H200 NVL: bridge=2way busbw '$two' not below the 4-way '$four'"
refused "machine: h100nvl comes with 2-way NVLink bridges only" "$ccsim" --topo machine:gpu=h100nvl,gpus=4,bridge=4way -b 1M -e 1M
refused "machine: l40s is not sold with an NVLink bridge" "$ccsim" --topo machine:gpu=l40s,gpus=4,bridge=2way -b 1M -e 1M
refused "machine: bridge 'x' is not 2way, 4way or none" "$ccsim" --topo machine:gpu=a40,bridge=x -b 1M -e 1M

echo "amd-smi and bridges: $fails failure(s)"
[ "$fails" -eq 0 ]
