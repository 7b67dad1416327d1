# COST of the longest doctest cases, read by ctest after doctest_discover_tests has added them (tests/CMakeLists.txt
# appends this file to TEST_INCLUDE_FILES after doctest's own): under -j 2 on a clean clone ctest starts the highest
# COST first, and a long case started last leaves a core idle at the end of the suite. Values: seconds in the
# sanitized tree (the sanitized suite of .ci/run at 6343717, /tmp/ci21, an idle machine; scripts/BENCHMARKS.md "CI time,
# sixteenth session"), except the two gxx_only cases' (their sanitized seconds at fe4e020, the last run that had them).
# A renamed case silently loses its COST here: only the order changes, never what runs.
set_tests_properties([=[NCCL model per machine class: busbw never falls as the size doubles (8 B to 16 GiB) for one algorithm and protocol, and never exceeds what the hardware carries]=]
                     PROPERTIES COST 79)
set_tests_properties([=[double_binary_tree: engine time equals the formula exactly]=] PROPERTIES COST 24)
set_tests_properties([=[the chosen segment stays within what the schedule runs on many ranks]=] PROPERTIES COST 33)
set_tests_properties([=[every registered algorithm: the path tiles the run and the trace is valid]=] PROPERTIES COST 23)
set_tests_properties([=[every formula equals the simulation on the ideal crossbar, and no algorithm beats the lower bound]=]
                     PROPERTIES COST 20)
set_tests_properties([=[invariant: on an ideal crossbar, twice the ranks at the same per-rank size are never faster]=]
                     PROPERTIES COST 14)
set_tests_properties([=[invariant: predicted time never falls as the size grows, for every algorithm and model]=]
                     PROPERTIES COST 15)
set_tests_properties([=[P2P alltoall over 2 GB200 NVL72 racks: comm channels from the packed rings, every peer in one round]=]
                     PROPERTIES COST 10)
set_tests_properties([=[pack_rings: 3D tori with an even extent get a neighbour-only snake, all-odd ones fall back]=]
                     PROPERTIES COST 8)
set_tests_properties([=[crossovers agree with a scan of the simulation]=] PROPERTIES COST 9)
set_tests_properties([=[bounded search: 8x8 and 4x4x4 tori, a 16-GPU NVSwitch-like crossbar, 64 GPUs over 8 nodes]=]
                     PROPERTIES COST 9)

# Run by the g++ -Werror tree only; .ci/run leaves the label out of the sanitized suite (`ctest -LE gxx_only`) and says
# why for each. Only numeric regressions whose every code path another case runs under the sanitizers belong here.
# A renamed case loses the label and then runs in both trees: the safe direction.
set_tests_properties([=[NCCL model per machine class: busbw never falls as the size doubles (8 B to 16 GiB) for one algorithm and protocol, and never exceeds what the hardware carries]=]
                     [=[double_binary_tree: engine time equals the formula exactly]=]
                     PROPERTIES LABELS gxx_only)
