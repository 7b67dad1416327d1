# COST of the longest doctest cases, read by ctest after doctest_discover_tests has added them (tests/CMakeLists.txt
# appends this file to TEST_INCLUDE_FILES after doctest's own): under -j 2 on a clean clone ctest starts the highest
# COST first, and a long case started last leaves a core idle at the end of the suite. Values: seconds in the
# sanitized tree (the sanitized suite of .ci/run at 2bd7570, a loaded machine; scripts/BENCHMARKS.md "CI time, thirteenth
# session"). A renamed case silently loses its COST here: only the order changes, never what runs.
set_tests_properties([=[NCCL model per machine class: busbw never falls as the size doubles (8 B to 16 GiB) for one algorithm and protocol, and never exceeds what the hardware carries]=]
                     PROPERTIES COST 72)
set_tests_properties([=[double_binary_tree: engine time equals the formula exactly]=] PROPERTIES COST 26)
set_tests_properties([=[every formula equals the simulation on the ideal crossbar, and no algorithm beats the lower bound]=]
                     PROPERTIES COST 18)
set_tests_properties([=[invariant: on an ideal crossbar, twice the ranks at the same per-rank size are never faster]=]
                     PROPERTIES COST 18)
set_tests_properties([=[invariant: predicted time never falls as the size grows, for every algorithm and model]=]
                     PROPERTIES COST 14)
