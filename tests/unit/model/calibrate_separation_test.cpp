// calibrate's separability record (kSeparability, issue 14): whether a fit tells a factor apart from the others
// it fitted on the same rows. Hand-made Jacobian columns, expected values worked by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "sim/model/calibrate.hpp"

using namespace ccsim;

TEST_CASE("separation: two factors that move together are both below the mark and name each other") {
  // a = (1, 1, 1, 1), b = (1, 1, 1, 1.1): cos = 4.1 / (2 x sqrt(4.21)) = 0.999111, so the part of either column
  // the other cannot make is sqrt(1 - cos^2) = 0.04216 of it (VIF 563), far under 1 / sqrt(10).
  const auto s = model::separation({{1, 1, 1, 1}, {1, 1, 1, 1.1}}, {"proto:LL", "eff:xgmi"}, {true, true}, {0.01, -0.01, 0.01, -0.01}, 2);
  CHECK(s.at("proto:LL").separability == doctest::Approx(0.04216).epsilon(1e-3));
  CHECK(s.at("eff:xgmi").separability == doctest::Approx(0.04216).epsilon(1e-3));
  CHECK_FALSE(s.at("proto:LL").separable());
  CHECK_FALSE(s.at("eff:xgmi").separable());
  CHECK(s.at("proto:LL").closest == "eff:xgmi");
  CHECK(s.at("eff:xgmi").closest == "proto:LL");
}

TEST_CASE("separation: a factor on rows of its own is separable, with its standard error by hand") {
  // a = (1, 0, 0), b = (1, 1, 0): a's part off b is (1/2, -1/2, 0), |.| = 0.70711 of |a| = 1; b's part off a is
  // (0, 1, 0), 1 of |b| = sqrt(2): 0.70711 (VIF 2) each. Residuals (0.03, -0.03, 0.03), two parameters: sigma =
  // sqrt(0.0027 / 1) = 0.051962; a's log standard error sigma / (|a| x 0.70711) = 0.073485, b's the same.
  const auto s = model::separation({{1, 0, 0}, {1, 1, 0}}, {"proto:LL", "launch_us"}, {true, false}, {0.03, -0.03, 0.03}, 2);
  CHECK(s.at("proto:LL").separability == doctest::Approx(0.70711).epsilon(1e-4));
  CHECK(s.at("launch_us").separability == doctest::Approx(0.70711).epsilon(1e-4));
  CHECK(s.at("proto:LL").separable());
  CHECK(s.at("proto:LL").log_se == doctest::Approx(0.073485).epsilon(1e-4));
  CHECK(std::isnan(s.at("launch_us").log_se)); // additive: no log scale
}

TEST_CASE("separation: an exact combination of two others is not separable, and neither are they") {
  // c = a + b (a link efficiency under every protocol that runs on it, the protocols' own factors beside it).
  const auto s = model::separation({{1, 1, 0, 0}, {0, 0, 1, 1}, {1, 1, 1, 1}}, {"proto:LL", "proto:Simple", "eff:xgmi"},
                                   {true, true, true}, {0, 0, 0, 0}, 3);
  for (const char* k : {"proto:LL", "proto:Simple", "eff:xgmi"}) CHECK(s.at(k).separability < 1e-9);
}

TEST_CASE("separation: a factor alone on rows that barely see it is separable but not placed") {
  // One column (0.02, 0.05, 0.1, 0.2): separability 1. Residuals (0.1, -0.1, 0.1, -0.1), one parameter: sigma =
  // sqrt(0.04 / 3) = 0.11547; |column| = sqrt(0.0004 + 0.0025 + 0.01 + 0.04) = 0.23000; log standard error
  // 0.11547 / 0.23 = 0.50204 > ln 2 / 1.96 = 0.35363: separable, no vote. The same column x 2 halves it: 0.25102, votes.
  auto s = model::separation({{0.02, 0.05, 0.1, 0.2}}, {"proto:LL"}, {true}, {0.1, -0.1, 0.1, -0.1}, 1);
  CHECK(s.at("proto:LL").separability == 1.0);
  CHECK(s.at("proto:LL").separable());
  CHECK(s.at("proto:LL").log_se == doctest::Approx(0.50204).epsilon(1e-4));
  CHECK_FALSE(s.at("proto:LL").votes());
  s = model::separation({{0.04, 0.1, 0.2, 0.4}}, {"proto:LL"}, {true}, {0.1, -0.1, 0.1, -0.1}, 1);
  CHECK(s.at("proto:LL").log_se == doctest::Approx(0.25102).epsilon(1e-4));
  CHECK(s.at("proto:LL").votes());
}

TEST_CASE("separation: a column of another length is refused") {
  CHECK_THROWS(model::separation({{1, 2}}, {"proto:LL"}, {true}, {0.0, 0.0, 0.0}, 1));
}
