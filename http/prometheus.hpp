#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/metrics.hpp"

namespace stepwise::http {

/// Label pairs of one sample, e.g. `{{"state", "failed"}}`.
using labels = std::vector<std::pair<std::string_view, std::string_view>>;

/// Writes the Prometheus text exposition format (version 0.0.4): one
/// `# HELP` and `# TYPE` line per family, then its samples.
class prometheus_writer {
public:
  /// Starts a family; `type` is `counter`, `gauge` or `histogram`.
  void family(std::string_view name, std::string_view type, std::string_view help);

  /// Writes one sample of the current family.
  void sample(std::string_view name, const labels& ls, double value);

  /// Writes the `_bucket` (cumulative, with `le`), `_sum` and `_count`
  /// samples of a histogram.
  template <size_t N>
  void histogram(std::string_view name, const labels& ls, const stepwise::histogram<N>& h) {
    std::vector<double> bounds(h.bounds.begin(), h.bounds.end());
    std::vector<uint64_t> counts;
    for (auto& b : h.buckets)
      counts.push_back(b.load(std::memory_order_relaxed));
    buckets(name, ls, bounds, counts,
            static_cast<double>(h.sum_micro.load(std::memory_order_relaxed)) / 1e6);
  }

  /// The same from a copy: `counts` per bucket (not cumulative), one more
  /// than `bounds` (the last is +Inf).
  void histogram(std::string_view name, const labels& ls, const std::vector<double>& bounds,
                 const std::vector<uint64_t>& counts, double sum) {
    buckets(name, ls, bounds, counts, sum);
  }

  const std::string& text() const {
    return out_;
  }

private:
  void buckets(std::string_view name, const labels& ls, const std::vector<double>& bounds,
               const std::vector<uint64_t>& counts, double sum);

  std::string out_;
};

/// Returns `v` escaped for a label value (backslash, quote, newline).
std::string escape_label(std::string_view v);

} // namespace stepwise::http
