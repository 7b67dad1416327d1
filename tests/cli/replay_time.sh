# Sourced by CLI tests that check a replayed time by hand (rccl_net.sh, nvidia_ring_ll_ib.sh); sets `fail=1` on a miss.
# time_of CMD...: the time column (us) of the first nccl-tests row CMD prints.
time_of() { "$@" 2>&1 | awk '$1 ~ /^[0-9]+$/ && NF >= 9 { print $6; exit }'; }
# near NAME GOT WANT: GOT within 0.05 us of WANT.
near() {
  awk -v g="$2" -v w="$3" 'BEGIN { exit !(g != "" && g - w < 0.05 && w - g < 0.05) }' || { echo "FAIL $1: got '$2' us, want $3"; fail=1; }
}
