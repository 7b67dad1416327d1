// A ring's GPUs in a header line: short rings as they are; long ones (256 ranks printed 8 lines of 256 numbers)
// as "in order", as one node's block repeated, or with runs collapsed, never dropping a GPU. Expected texts by hand.
#include <doctest/doctest.h>

#include <numeric>
#include <string>
#include <vector>

#include "sim/report/report.hpp"

using ccsim::report::gpu_order_text;

TEST_CASE("a short ring is listed GPU by GPU") {
  CHECK(gpu_order_text({1, 2, 3, 0}) == "1 2 3 0");
  CHECK(gpu_order_text({1, 2, 3, 0}, ",") == "1,2,3,0");
}

TEST_CASE("a long ring in order, or one node's path repeated on every node, takes one short line") {
  std::vector<int> in_order(256);
  std::iota(in_order.begin(), in_order.end(), 0);
  CHECK(gpu_order_text(in_order) == "0..255 in order (256 ranks)");
  // NCCL's ring 0 on 32 nodes of 8: 1 2 3 4 5 6 7 0 on node 0, the same + 8 on node 1, ...
  std::vector<int> shifted;
  for (int node = 0; node < 32; ++node)
    for (int i : {1, 2, 3, 4, 5, 6, 7, 0}) shifted.push_back(8 * node + i);
  CHECK(gpu_order_text(shifted) == "1-7 0, then the same +8 per block of 8 for 31 more block(s) (last: 249-255 248; 256 ranks)");
}

TEST_CASE("a long ring of no pattern is printed whole, runs collapsed") {
  // 0..39 with 17 and 18 swapped and the nodes' halves out of order: nothing left out.
  std::vector<int> g(40);
  std::iota(g.begin(), g.end(), 0);
  std::swap(g[17], g[18]);
  std::swap(g[0], g[39]);
  CHECK(gpu_order_text(g) == "39 1-16 18 17 19-38 0 (40 ranks)");
}
