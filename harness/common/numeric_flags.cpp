#include "harness/common/numeric_flags.hpp"

#include "harness/common/request_limits.hpp"
#include "harness/common/timing.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>

namespace collbench {
namespace {

std::string bound(long double v) {
  char buf[48];
  if (std::fabs(v) < 1e15L && v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%.0Lf", v);
  else
    std::snprintf(buf, sizeof buf, "%Lg", v);
  return buf;
}

std::string range_text(const char* kind, long double lo, long double hi) {
  return std::string("must be ") + kind + " from " + bound(lo) + " to " + bound(hi);
}

}  // namespace

CLI::Validator whole_in(long double lo, long double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        const std::string why = range_text("a whole number", lo, hi) + ", not '" + text + "'";
        std::size_t i = text.size() > 1 && text[0] == '-' ? 1 : 0;
        if (i == text.size()) return why;
        long double value = 0;
        for (std::size_t j = i; j < text.size(); ++j) {
          if (text[j] < '0' || text[j] > '9') return why;
          value = value * 10 + (text[j] - '0');
          if (value > 1e30L) return why;  // far past any bound: stop before precision goes
        }
        if (i) value = -value;
        return value >= lo && value <= hi ? "" : why;
      },
      bound(lo) + ".." + bound(hi));
}

CLI::Validator number_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        std::size_t used = 0;
        double value = NAN;
        try {
          value = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == text.size() && std::isfinite(value) && value >= lo && value <= hi) return "";
        return range_text("a number", lo, hi) + ", not '" + text + "'";
      },
      bound(lo) + ".." + bound(hi));
}

int parse_count_or_auto(const std::string& text, const char* flag, int least) {
  if (text == "auto") return Repetitions::kAuto;
  std::size_t used = 0;
  long long value = -1;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < least || value > static_cast<long long>(kMaxCalls))
    throw std::invalid_argument(std::string(flag) + " must be auto or a whole number from " + std::to_string(least) +
                                " to " + std::to_string(static_cast<long long>(kMaxCalls)) + ", not '" + text + "'");
  return static_cast<int>(value);
}

}  // namespace collbench
