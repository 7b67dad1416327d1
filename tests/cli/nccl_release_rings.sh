#!/bin/bash
# NCCL 2.4's own rings (sim/model/nccl/rings_v24.hpp) in the NCCL graph header, worked by hand from
# NVIDIA/nccl v2.4.8-1 src/transport/p2p.cc:
#   DGX-1V, 8 GPUs: a ring takes one NVLink lane per hop, a V100 has 6, and 6 rings fit -> 6 x 2 = 12 channels;
#   12 GPUs of a DGX-2: 6 NVLinks per GPU into the NVSwitches -> min(16, 6) = 6 rings x 2 = 12 channels;
#   DGX-1V GPUs 0-4: GPU 4's only NVLink among them goes to GPU 0, no ring -> one ring in rank order, 1 channel,
#   so 1 MiB (over 1 x 256 x 5 x 64 B = 80 KiB of LL) runs ring/Simple on 1 channel.
# Without --nccl-version (NCCL 2.30's search) the header says nothing of 2.4.
set -u
ccsim="$1"
fail=0
header() { "$ccsim" "$@" --model nccl -b 1M -e 1M 2>&1 | grep '^# model sees'; }
has() { # $1 label, $2 text, $3 wanted substring
  case "$2" in *"$3"*) ;; *) echo "FAIL $1: '$3' not in '$2'"; fail=1 ;; esac
}
has "dgx1" "$(header --topo dgx1-v100 --nccl-version 2.4.8)" "NCCL 2.4 rings: 6 found on direct NVLink, each run twice = 12 channel(s)"
has "dgx2" "$(header --topo dgx2 --gpus 1,2,6,7,8,9,10,11,12,13,14,15 --nccl-version 2.4.8)" \
  "NCCL 2.4 rings: 6 (one per NVSwitch NVLink), each run twice = 12 channel(s)"
has "dgx1 0-4" "$(header --topo dgx1-v100 --gpus 0,1,2,3,4 --nccl-version 2.4.8)" "one ring in rank order = 1 channel"
choice=$("$ccsim" --topo dgx1-v100 --gpus 0,1,2,3,4 --nccl-version 2.4.8 --model nccl -b 1M -e 1M 2>&1 | awk '/^ *[0-9]/ { print $(NF-1), $NF; exit }')
[ "$choice" = "ring/Simple ch=1" ] || { echo "FAIL dgx1 0-4 1 MiB: got '$choice', expected ring/Simple ch=1"; fail=1; }
latest=$(header --topo dgx1-v100)
case "$latest" in *"NCCL 2.4"*) echo "FAIL 2.30 header names 2.4: $latest"; fail=1 ;; esac
exit $fail
