#pragma once
// Every numeric flag is range-checked as CLI11 parses it, with one message form:
//   --rounds: must be a whole number from 1 to 1000000, not '2000000000'
// so nothing wraps (-5 into a size_t), overflows or runs for ever unnoticed.
#include <string>

namespace CLI {
class Validator;
}

namespace collbench {

// A whole number (decimal digits, '-' only when lo < 0) within [lo, hi].
CLI::Validator whole_in(long double lo, long double hi);
// A finite number within [lo, hi].
CLI::Validator number_in(double lo, double hi);

// Shared upper bounds: far beyond any sensible run, far below overflow.
inline constexpr long double kMaxRepeats = 1e6;  // rounds, steps, warm-up steps, staleness
inline constexpr long double kMaxCalls = 1e9;    // -w / -n calls per round

// -w/-n: "auto" (Repetitions::kAuto) or a whole number >= least; throws std::invalid_argument.
int parse_count_or_auto(const std::string& text, const char* flag, int least);

}  // namespace collbench
