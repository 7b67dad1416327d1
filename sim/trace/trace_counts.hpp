// Consistency of an nccl-tests table's size, count and bandwidth columns (used by parse_trace).
#pragma once
#include <string>
#include <vector>

#include "sim/trace/nccl_tests_trace.hpp"

namespace ccsim::trace::counts {

// Bytes of one element of an nccl-tests type name; 0 when unknown.
Bytes elt_bytes(const std::string& type);

// The rank count the printed busbw/algbw ratio implies, `hint` (the --ranks given) preferred when the print
// allows it; 0 when it names no whole count.
int ranks_from_busbw(const Trace& t, int hint);

// True when the rows' times are ms, not us: on every half with algbw >= 1 GB/s, size / (algbw x time) is
// near 1e6 B (GB/s x ms) and never near 1e3 B (GB/s x us). nccl-tests printed ms until 2019 (cbe7f65).
bool times_in_ms(const std::vector<MeasuredRow>& rows);

// size = algbw x time within the printed precision, for every half the row has (and at least one).
bool size_confirmed_by_row(const MeasuredRow& r);

// Rows whose count column contradicts the op's definition while time x algbw confirm the size: the count
// is recomputed from the size and a note says so; without that confirmation, one error line.
void read_size_where_count_contradicts(Trace& t, const std::vector<Bytes>& elt_of, const std::vector<int>& ratio_of,
                                       const std::string& origin);

} // namespace ccsim::trace::counts
