#!/bin/bash
# Every bad scenario must give exactly one line on stderr that names the file and the problem, exit
# status 2 and nothing on stdout. Cases: tests/data/bad_scenarios/<name>.json with the expected message
# fragment listed below (scenario files reject unknown keys, so the expectation cannot live inside them).
set -u
ccsim="$1"; dir="$2"
fails=0; n=0
check() { # expected-fragment, then the command's arguments after "scenario"
  local want="$1"; shift
  n=$((n+1))
  local out err rc
  out=$(mktemp); err=$(mktemp)
  timeout 60 "$ccsim" scenario "$@" >"$out" 2>"$err"; rc=$?
  local lines; lines=$(wc -l <"$err")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$out" ] || ! grep -qF -- "$want" "$err"; then
    echo "FAIL: ccsim scenario $* -> rc=$rc, stderr lines=$lines, stdout bytes=$(wc -c <"$out"), want '$want'"; sed 's/^/  | /' "$err"
    fails=$((fails+1))
  fi
  rm -f "$out" "$err"
}
bad() { # file-stem, expected fragment: the message must name the file too
  check "$dir/$1.json" "$dir/$1.json"
  check "$2" "$dir/$1.json"
}
bad malformed              "malformed JSON"
bad not_object             "the scenario must be an object"
bad no_model               "missing \"model\""
bad unknown_strategy       "strategy: unknown 'gossip'"
bad unknown_key            "unknown key 'bucket_sise'"
bad negative_flops         "compute.device_flops must be positive"
bad no_compute_times       "no compute times"
bad half_timed_layer       "give both \"forward\" and \"backward\""
bad utilization_above_one  "utilization must be at most 1"
bad too_many_gpus          "degree 16 needs 16 GPUs"
bad unknown_topology       "neither a file nor a shipped topology"
bad unknown_algorithm      "algorithm: no 'magic' for allreduce"
bad unknown_dtype          "grad_dtype: unknown type 'float128'"
bad async_allreduce        "'async' needs a parameter-server strategy"
bad ssp_without_staleness  "ssp needs \"staleness\""
bad unknown_distribution   "unknown 'cauchy'"
bad ps_cpu_without_cpu     "ps_cpu needs a CPU node"
bad fractional_params      "model.params must be a positive whole number"
bad bad_bucket_size        "bucket_size"
bad one_byte_buckets       "into 300000000 buckets per step, more than 100000"
bad huge_params            "model.params: 1e+15 is more than 1e13 parameters"
bad huge_layer_list        "model.layers[1]: the layers up to this one hold more than 1e13 parameters"
bad training_too_long      "training: would time 5.19e+09 bucket exchanges"
bad step_too_long          "compute: forward + backward of"
bad degree_wraps_int       "degrees must be at most 65536, got 4294967304"
bad gpu_wraps_int          "gpus must be at most 16777216, got 4294967297"
bad network_model_not_string "network.model must be a string, got 1"
bad huge_sw_alpha          "network.sw_alpha: more than 1 s per message"
bad hybrid_tp_heads         "parallel.tp: 3 does not divide transformer.heads = 16"
bad hybrid_bad_order        "parallel.order: unknown dimension 'xp'"
bad hybrid_pp_layers        "do not divide transformer.layers = 8"
bad hybrid_ep_dense         "parallel.ep: 2 needs an MoE model"
bad hybrid_bad_schedule     "parallel.schedule: unknown 'zigzag'"
bad hybrid_too_many_gpus    "tp x cp x pp x dp = 16 GPUs"
bad hybrid_no_seq           "transformer: missing \"seq\""
bad hybrid_global_batch     "parallel.global_batch: 10 is not a multiple of dp x micro_batch = 4"
bad hybrid_oom              "GiB per GPU"
bad hybrid_zero4            "parallel.zero must be at most 3"
bad hybrid_with_degrees     "unknown key 'degrees'"
bad ps_cpu_no_route         "strategy ps_cpu on cluster-2xmachine-8xa100-nvswitch: generated: 2 nodes, 8 x 200 Gb/s ib NIC(s) each, one switch: no route"
bad hybrid_compute_too_long "s of compute per GPU per step is more than 1e6 s"
bad dp_state_oom            "strategy allreduce on 64 GPUs needs 104.3 GiB of model state per GPU but a h100 has 80 GiB"
bad hybrid_too_many_passes  "layer passes, more than 2e7"
bad hybrid_too_many_jobs    "ranks in engine jobs"
check "--timeline: only a hybrid-parallel scenario" "$dir/../../../scenarios/lm300m_dgx1.json" --timeline /tmp/never-written.json
check "cannot open" "$dir/no_such_file.json"
check "--bucket-size: buckets of 1 KiB split 3e+08 parameters" "$dir/../../../scenarios/lm300m_dgx1.json" --bucket-size 1K
check "--bucket-size: training: would time" "$dir/../../../scenarios/resnet50_ps_dgx1.json" --bucket-size 4K
check "--bucket-size" "$dir/../../../scenarios/lm300m_dgx1.json" --bucket-size 0
check "--format" "$dir/../../../scenarios/lm300m_dgx1.json" --format xml
echo "bad scenarios: $((n-fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
