// Proof by execution: run a schedule on real (integer) data and compare every rank's buffer with
// the collective's definition. Used by the tests for every algorithm and by `--verify`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/schedule/schedule.hpp"

namespace ccsim::verify {

enum class RedOp { Sum, Prod, Min, Max };

using Buffers = std::vector<std::vector<std::int64_t>>;

// Replays the steps: sends and copies read the buffer as it was when the step began; a step ends
// when every message it receives is in (matched in order per sender); then receives are written
// (or reduced) and copies applied. Throws Error on deadlock, out-of-range access, or unreceived messages.
void execute(const schedule::Schedule& s, Buffers& buffers, RedOp op);

// Fills inputs, executes, and checks the op's definition. Returns "" when correct, else what differs.
std::string check(const schedule::Schedule& s, RedOp op);

} // namespace ccsim::verify
