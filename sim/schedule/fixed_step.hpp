// An addition to Schedule::step_fixed's contract (sim/schedule/schedule.hpp), shared only by the schedules that
// use it and the engine: a schedule may add kLastFixedStep to a step's action count when the rank has no step
// after this one. The engine then ends the rank when that step ends, without asking once more for a step only
// to be told there is none (a third of the calls in a binomial broadcast). Without the mark it asks, as always.
#pragma once

namespace ccsim::schedule {

inline constexpr int kLastFixedStep = 1 << 20; // far above Schedule::kFixedActions

} // namespace ccsim::schedule
