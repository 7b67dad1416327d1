#!/bin/bash
# Eleventh user trial (a researcher describing a cluster before buying it in a few words, a teacher with the
# alpha-beta course, an ML engineer simulating training steps). Each friction, fixed and kept fixed:
#  - machine:gpu=gb200-nvl72 (or "GB200 NVL72", as the rack is sold) was read as the GPU alone and predicted an
#    8-GPU node: 64 racks silently became 512 GPUs. The digits after NVL are the NVLink domain's GPUs (gpus=72)
#    unless gpus= is given;
#  - "rail-optimised" (fabric=rail), the fabric every GPU cluster is sold with, was refused ("not switch or
#    fattree") although the README says the one switch stands for it; now accepted and named in the header;
#  - kind=RoCEv2 was refused as an unknown network kind;
#  - nics="8 x 400G" (as a cluster is written down), 8X400G, 8*400G and 8×400G were "not COUNTxSPEED";
#  - alltoall above 1024 ranks (--model nccl's closed form in place of the replay) ignored the NICs: 16 NVL72
#    racks on 800G predicted 631 GB/s algbw per GPU, 6x what its NIC can carry (the replay at 8 racks: 52);
#  - racks=64 was "unknown parameter 'racks'" with no word on how to say racks (a rack is a node).
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad
for v in $(env | grep -oE '^(NCCL|RCCL)_[A-Z0-9_]*'); do unset "$v"; done

. "$(dirname "$0")/refused_one_line.sh" # refused_one_line WANT ARGS...: exit 2, one stderr line, no stdout

last_row() { grep -vE '^#|^$' | tail -1; }
run() { "$ccsim" --topo "$1" --model nccl -b 1G -e 1G 2>&1; }

# --- (a) an NVL72 rack named as sold -------------------------------------------------------------------------
want=$(run machine:gpu=gb200,gpus=72,nodes=2,nics=72x400G,kind=ib)
for name in gb200-nvl72 "GB200 NVL72" GB200_NVL72; do
  got=$(run "machine:gpu=$name,nodes=2,nics=72x400G,kind=ib")
  echo "$got" | grep -q "machine-72xgb200-nvswitch.*144 ranks" || bad "gpu=$name is not a 72-GPU rack: $(echo "$got" | grep -m1 topology)"
  [ "$(echo "$got" | last_row)" = "$(echo "$want" | last_row)" ] || bad "gpu=$name predicts otherwise than gpu=gb200,gpus=72"
done
"$ccsim" --topo machine:gpu=gb200-nvl72 -b 1M -e 1M | grep -q "machine-72xgb200-nvswitch.*72 ranks" || bad "one NVL72 rack is not 72 GPUs"
# gpus= given wins (the OCI runs on 64 of a rack's GPUs); "H100 NVL" (no digits: a PCIe card) is not a domain size.
"$ccsim" --topo machine:gpu=gb200-nvl72,gpus=64 -b 1M -e 1M | grep -q "machine-64xgb200.*64 ranks" || bad "gpus=64 did not win over NVL72"
"$ccsim" --topo machine:gpu=gb200-nvl4 -b 1M -e 1M | grep -q "machine-4xgb200.*4 ranks" || bad "gb200-nvl4 is not 4 GPUs"
"$ccsim" --topo machine:gpu=h100-nvl -b 1M -e 1M 2>&1 | grep -q "8 ranks" || bad "gpu=h100-nvl is no longer 8 GPUs"
refused_one_line "racks is not a parameter: a rack of one NVLink domain is one node here (nodes=N" \
  --topo machine:gpu=gb200-nvl72,racks=64,nics=72x800G -b 1M -e 1M
refused_one_line "racks is not a parameter" --topo machine:gpu=gb200,gpus=72,racks=2 -b 1M -e 1M

# --- (a) a rail-optimised RoCEv2 fabric ------------------------------------------------------------------------
plain=$(run machine:gpu=mi355x,nodes=4,nics=8x400G,kind=roce)
for spell in "fabric=rail" "fabric=rail-optimised" "fabric=Rail-Optimized"; do
  got=$(run "machine:gpu=mi355x,nodes=4,nics=8x400G,kind=roce,$spell")
  echo "$got" | grep -q "roce NIC(s) each, rail-optimised (one non-blocking switch" || bad "$spell: not named in the header: $(echo "$got" | grep -m1 -E 'topology|ccsim:')"
  [ "$(echo "$got" | last_row)" = "$(echo "$plain" | last_row)" ] || bad "$spell predicts otherwise than the one switch"
done
[ "$(run machine:gpu=mi355x,nodes=4,nics=8x400G,kind=RoCEv2 | last_row)" = "$(echo "$plain" | last_row)" ] || bad "kind=RoCEv2 not read as roce"
for spell in "8 x 400G" 8X400G "8*400G" "8×400G"; do
  [ "$(run "machine:gpu=mi355x,nodes=4,nics=$spell,kind=roce" | last_row)" = "$(echo "$plain" | last_row)" ] || bad "nics=$spell not read as 8x400G"
done
refused_one_line "--topo nics: '8 y 400G' is not COUNTxSPEED like 8x400G" --topo "machine:gpu=h100,nodes=2,nics=8 y 400G" -b 1M -e 1M
refused_one_line "fabric 'torus' is not switch, rail (rail-optimised: one switch) or fattree" \
  --topo machine:gpu=mi355x,nodes=4,nics=8x400G,fabric=torus -b 1M -e 1M

# --- (a) how alltoall scales past the replay's 1024 ranks ----------------------------------------------------------
# By hand: 16 racks of 72, one 800 Gb/s (100 GB/s) NIC per GPU; a GPU sends 15/16 of its 1 GiB off its rack through
# its NIC, so time >= 15/16 x 2^30 B / 100 GB/s and algbw = size / time <= 100 x 16/15 = 106.7 GB/s.
row=$("$ccsim" --topo machine:gpu=gb200-nvl72,nodes=16,nics=72x800G,kind=ib --model nccl --op alltoall -b 1G -e 1G | last_row)
echo "$row" | grep -q "analytic" || bad "1152-rank alltoall is replayed now: the check below no longer tests the closed form"
awk -v a="$(echo "$row" | awk '{print $7}')" 'BEGIN {exit !(a > 0 && a <= 106.7)}' || bad "1152-rank alltoall beats its NICs: $row"

[ "$fails" -eq 0 ] && echo "all new-user friction checks (11th trial) pass"
exit $((fails > 0))
