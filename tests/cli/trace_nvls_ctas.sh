#!/bin/bash
# compare applies a trace's NCCL_MIN_CTAS / NCCL_MAX_CTAS to NVLS's CUDA channels as NCCL does (NVIDIA/nccl
# src/transport/nvls.cc ncclNvlsInit, v2.17.1-1 to v2.29.7-1: nvlsChannels = max(minCTAs, min(maxCTAs, NVLS_NCHANNELS));
# src/init.cc caps both at MAXCHANNELS, 32 up to v2.24.3-1 and 64 from v2.25.1-1, and lowers a minCTAs above maxCTAs to
# it); NCCL_MIN/MAX_NCHANNELS bound comm->nChannels only. A log's "N nvls channels" is NCCL's count itself. The trace:
# one 8 GiB allreduce row on 8 x H200 (NCCL 2.19.3: 16 NVLS channels) that NCCL and ccsim run as NVLS, with
# "-x NCCL_MIN_NCHANNELS=32" on its mpirun line. Counts by hand from that rule.
set -u
ccsim="$1"; src="$2"
fail=0
trace="$src/models/holdout/h200-azure-nd-8gpu-allreduce-8G-nvls-nccl2193.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# $1: the settings in place of NCCL_MIN_NCHANNELS=32; $2: NVLS channels expected; $3: a line expected; $4...: more flags
check() {
  local set="$1" want="$2" line="$3"; shift 3
  sed "s/-x NCCL_MIN_NCHANNELS=32/$set/" "$trace" > "$tmp/t.txt"
  local out; out=$("$ccsim" compare --trace "$tmp/t.txt" --topo machine:gpu=h200 --model nccl "$@" 2>&1) || { echo "FAIL compare ($set): $out"; fail=1; return; }
  echo "$out" | grep -q "^  8589934592 .* nvls/Simple ch=$want " || { echo "FAIL ($set $*): expected nvls ch=$want: $out"; fail=1; }
  [ -z "$line" ] || echo "$out" | grep -qF -- "$line" || { echo "FAIL ($set): no line '$line': $out"; fail=1; }
}
check "-x NCCL_MAX_CTAS=8" 8 "# trace: applied NCCL_MAX_CTAS=8 from the trace: NVLS / NVLS-tree CUDA channels at most 8 (NCCL's nvlsChannels)"
check "-x NCCL_MIN_CTAS=24" 24 "# trace: applied NCCL_MIN_CTAS=24 from the trace: NVLS / NVLS-tree CUDA channels at least 24"
check "-x NCCL_MIN_CTAS=8 -x NCCL_MAX_CTAS=4" 4 ""          # init.cc: a minCTAs above maxCTAs is maxCTAs
check "-x NCCL_MIN_CTAS=40" 32 ""                           # 2.19.3: MAXCHANNELS 32
check "-x NCCL_MIN_CTAS=40" 40 "" --nccl-version 2.26.2     # 2.26.2: MAXCHANNELS 64
check "-x NCCL_MIN_CTAS=0x0c" 16 ""                         # strtoll base 0: 12, below the 16 NCCL runs anyway
# NCCL_NVLS_NCHANNELS is the count the CTAs bound: the NCCL_PARAM itself to 2.24.3 (0: max(1, min(32, 0)) = 1), a
# value >= 0 from 2.25.1 (-1: the default 16), a value > 0 from 2.27.3 (0: the default 16).
check "-x NCCL_NVLS_NCHANNELS=8" 8 "# trace: applied NCCL_NVLS_NCHANNELS=8 from the trace: NVLS / NVLS-tree CUDA channels 8 before NCCL_MIN/MAX_CTAS"
check "-x NCCL_NVLS_NCHANNELS=8 -x NCCL_MIN_CTAS=12" 12 ""
check "-x NCCL_NVLS_NCHANNELS=24 -x NCCL_MAX_CTAS=20" 20 ""
check "-x NCCL_NVLS_NCHANNELS=0" 1 ""
check "-x NCCL_NVLS_NCHANNELS=0" 1 "" --nccl-version 2.25.1
check "-x NCCL_NVLS_NCHANNELS=-1" 16 "" --nccl-version 2.25.1
check "-x NCCL_NVLS_NCHANNELS=0" 16 "" --nccl-version 2.27.3
check "-x NCCL_NVLS_NCHANNELS=some" 16 "not applied: NCCL_NVLS_NCHANNELS=some from the trace (not a whole number)"
# The NCHANNELS pair leaves NVLS at its 16 and says so.
check "-x NCCL_MIN_NCHANNELS=32" 16 "# trace: not applied to NVLS channels: NCCL_MIN_NCHANNELS=32 (NCCL bounds nvlsChannels by NCCL_MIN/MAX_CTAS only)"
check "-x NCCL_MAX_NCHANNELS=4" 16 ""
# A log's "N nvls channels" runs that count; a CTAs setting beside it is named as counted.
{ sed "s/-x NCCL_MIN_NCHANNELS=32/-x NCCL_MAX_CTAS=4/" "$trace"
  echo "host:1:1 [0] NCCL INFO 24 coll channels, 0 collnet channels, 12 nvls channels, 32 p2p channels, 32 p2p channels per peer"; } > "$tmp/log.txt"
out=$("$ccsim" compare --trace "$tmp/log.txt" --topo machine:gpu=h200 --model nccl 2>&1) || { echo "FAIL compare with a log: $out"; fail=1; }
echo "$out" | grep -q "^  8589934592 .* nvls/Simple ch=12 " || { echo "FAIL: the log's 12 nvls channels not run: $out"; fail=1; }
echo "$out" | grep -qF "the trace states NCCL_MAX_CTAS=4: already in the log's 12 nvls channels" || { echo "FAIL: no counted line: $out"; fail=1; }
echo "$out" | grep -qF "NCCL INFO: 12 nvls channels (applied as the NVLS CUDA channel count)" || { echo "FAIL: no applied log line: $out"; fail=1; }
exit $fail
