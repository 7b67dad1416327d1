#!/bin/bash
# Google Cloud's GPU networks (models/README.md "Google's GPU networks"), checked against Google's own pages by hand:
#  * instance=a3-highgpu-8g is 4 x 200 Gb/s GPUDirect-TCPX NICs, a3-megagpu-8g 8 x 200 Gb/s GPUDirect-TCPXO
#    (cloud.google.com/compute/docs/gpus/gpu-network-bandwidth); another kind or GPU, or a Google-shaped word that
#    is no machine type, is refused in one line, exit 2.
#  * --model nccl runs Google's NCCL profile for the fabric: TCPX NCCL_ALGO=Ring NCCL_PROTO=Simple with
#    NCCL_MIN/MAX_NCHANNELS=8 (container-engine-accelerators gpudirect-tcpx/nccl-config-latest.yaml): rings only.
#    TCPXO's nccl-env-profile.sh of the NCCL release modelled (gpudirect-tcpxo/README.md, the release notes):
#    NCCL 2.21.5 NCCL_ALGO=Ring,Tree NCCL_PROTO=Simple NCCL_NVLS_ENABLE=0 (no LL, LL128 or NVLS in the choice column);
#    NCCL 2.23.4 the same with NCCL_PROTO=Simple,LL128 (LL128 rows, still no LL nor NVLS); NCCL 2.28.7, and no release
#    given, NCCL_PROTO=Simple,LL128 alone (NVLS back, LL never). The command line's own word wins over the profile.
#    Spans out of order in a --nccl-tables file, or an "until" on a lone profile, are refused in one line, exit 2.
#  * a TCP link at Google's 8244 B MTU carries 8192 B of payload per 8282 B on the wire, InfiniBand 4096 per 4122:
#    2 x 1 H100 over 1 x 100G tcpx, an 8 GiB allreduce (every byte crosses the NIC once; 2 ranks: busbw = algbw),
#    bare model: 12.0 x 8244 / 8282 = 11.945 GB/s busbw.
#  * ccsim topo gen cluster --instance a3-megagpu-8g writes the type's kind and NICs; the file predicts what the
#    spec predicts.
set -u
ccsim="$1"
fail=0
. "$(dirname "$0")/refused.sh" # refused LABEL TEXT ARGS...: one line, exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
choices() { # ccsim args -> the choice column of every row
  "$ccsim" "$@" --model nccl --op allreduce -b 8 -e 1G -f 8 2>&1 | awk '/^ *[0-9]/ && NF >= 9 { print $9 }'
}
mega="machine:gpu=h100,nodes=2,instance=a3-megagpu-8g"
high="machine:gpu=h100,nodes=2,instance=a3-highgpu-8g"
c=$(choices --topo "$mega" --nccl-version 2.21.5)
[ "$(printf '%s\n' "$c" | wc -l)" = 10 ] || { echo "FAIL tcpxo: expected 10 rows: $c"; fail=1; }
if printf '%s\n' "$c" | grep -q -i -e '/LL' -e nvls; then echo "FAIL tcpxo 2.21.5 profile: LL/LL128/NVLS chosen: $c"; fail=1; fi
printf '%s\n' "$c" | grep -q -v -e '^ring/Simple$' -e '^tree/Simple$' && { echo "FAIL tcpxo 2.21.5: not ring/tree Simple: $c"; fail=1; }
c=$(choices --topo "$mega" --nccl-version 2.23.4)
printf '%s\n' "$c" | grep -q '/LL128$' || { echo "FAIL tcpxo 2.23.4 profile: no LL128 row: $c"; fail=1; }
if printf '%s\n' "$c" | grep -q -i -e '/LL$' -e nvls; then echo "FAIL tcpxo 2.23.4 profile: LL/NVLS chosen: $c"; fail=1; fi
for v in "--nccl-version 2.28.7" ""; do
  # shellcheck disable=SC2086
  c=$(choices --topo "$mega" $v)
  printf '%s\n' "$c" | grep -q nvls || { echo "FAIL tcpxo newest profile ($v): no NVLS row: $c"; fail=1; }
  if printf '%s\n' "$c" | grep -q '/LL$'; then echo "FAIL tcpxo newest profile ($v): LL chosen: $c"; fail=1; fi
done
# A tables file whose TCPXO spans come out of order (2.26 before 2.23) is refused, naming the key.
python3 - "$(dirname "$0")/../../models/nccl.json" "$tmp/tables.json" <<'PYEOF'
import json, sys
t = json.load(open(sys.argv[1]))
spans = t["net_kinds"]["tcpxo"]["nccl_env"]
spans[0]["until"], spans[1]["until"] = spans[1]["until"], spans[0]["until"]
json.dump(t, open(sys.argv[2], "w"))
PYEOF
refused "tcpxo spans out of order" "until" --topo "$mega" --model nccl --nccl-tables "$tmp/tables.json" -b 1M -e 1M
# A lone profile (TCPX's) with an "until" would leave later releases without one: refused too.
python3 - "$(dirname "$0")/../../models/nccl.json" "$tmp/lone.json" <<'PYEOF'
import json, sys
t = json.load(open(sys.argv[1]))
t["net_kinds"]["tcpx"]["nccl_env"]["until"] = "2.20"
json.dump(t, open(sys.argv[2], "w"))
PYEOF
refused "tcpx lone profile with until" "until" --topo "$high" --model nccl --nccl-tables "$tmp/lone.json" -b 1M -e 1M

c=$(choices --topo "$high")
[ "$(printf '%s\n' "$c" | sort -u)" = "ring/Simple" ] || { echo "FAIL tcpx profile: not ring/Simple only: $c"; fail=1; }
# The command line's word wins over the profile: --nvls on brings NVLS back on TCPXO, --nccl-proto LL,LL128,Simple LL.
c=$(choices --topo "$mega" --nvls on)
printf '%s\n' "$c" | grep -q nvls || { echo "FAIL tcpxo --nvls on: no NVLS row: $c"; fail=1; }
c=$(choices --topo "$mega" --nccl-proto LL,LL128,Simple)
printf '%s\n' "$c" | grep -q '/LL' || { echo "FAIL tcpxo --nccl-proto LL,LL128,Simple: no LL row: $c"; fail=1; }

bus=$("$ccsim" --topo "machine:gpu=h100,gpus=1,nodes=2,nics=1x100G,kind=tcpx" --model nccl --params none -b 8G -e 8G 2>&1 |
  awk '/^ *[0-9]/ && NF >= 9 { print $8; exit }')
awk -v g="$bus" 'BEGIN { exit !(g != "" && g - 11.945 <= 0.01 && 11.945 - g <= 0.01) }' ||
  { echo "FAIL tcpx busbw: got '$bus', expected 12.0 x 8244/8282 = 11.945"; fail=1; }

# A preset node of another GPU (dgx1: V100, read from its NVLink2) or one that does not say its GPU (a PCIe preset).
for spec in "$mega,kind=gib" "machine:gpu=b200,nodes=2,instance=a3-megagpu-8g" "machine:gpu=h100,nodes=2,instance=a3-megagpu-4g" \
    "cluster:nodes=2,node=dgx1,instance=p5.48xlarge" "cluster:nodes=2,node=pcie-gen4-8gpu,instance=p5.48xlarge"; do
  out=$("$ccsim" --topo "$spec" --model nccl -b 1M -e 1M 2>&1); rc=$?
  [ "$rc" = 2 ] || { echo "FAIL $spec: exit $rc, expected 2: $out"; fail=1; }
  [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || { echo "FAIL $spec: more than one line: $out"; fail=1; }
  case "$out" in *instance*) ;; *) echo "FAIL $spec: '$out' does not name instance"; fail=1 ;; esac
done

"$ccsim" topo gen cluster --nodes 2 --node hgx-h100 --instance a3-megagpu-8g -o "$tmp/mega.json" >/dev/null 2>&1 ||
  { echo "FAIL topo gen --instance a3-megagpu-8g"; fail=1; }
grep -q '"instance": *"a3-megagpu-8g"' "$tmp/mega.json" || { echo "FAIL topo gen: no instance in the file"; fail=1; }
[ "$(grep -c '"tcpxo"' "$tmp/mega.json")" = 16 ] || { echo "FAIL topo gen: expected 16 tcpxo links (2 x 8 NICs)"; fail=1; }
a=$("$ccsim" --topo "$tmp/mega.json" --model nccl -b 8 -e 1G -f 64 2>&1 | awk '/^ *[0-9]/ && NF >= 9 { print $1, $6, $9 }')
b=$("$ccsim" --topo "cluster:nodes=2,node=hgx-h100,instance=a3-megagpu-8g" --model nccl -b 8 -e 1G -f 64 2>&1 |
  awk '/^ *[0-9]/ && NF >= 9 { print $1, $6, $9 }')
[ -n "$a" ] && [ "$a" = "$b" ] || { echo "FAIL topo gen file and spec differ: '$a' vs '$b'"; fail=1; }
[ "$fail" = 0 ] && echo "gcp networks: ok"
exit "$fail"
