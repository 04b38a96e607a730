#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "engine/metrics.hpp"
#include "http/prometheus.hpp"

namespace stepwise::http {

/// Counts HTTP requests by method, route pattern and status, and times them
/// by route. Labels come from the router (patterns, not raw paths), so their
/// number stays bounded whatever clients send. Thread-safe.
class request_metrics {
public:
  using duration_histogram = stepwise::histogram<11>;

  /// Records one answered request; `seconds` is empty when the request
  /// failed before timing started.
  void record(std::string_view method, std::string_view route, int status,
              std::optional<double> seconds);

  /// Appends the `stepwise_http_*` families to `out`.
  void render(prometheus_writer& out) const;

  /// Returns how many requests were counted with these labels (for tests).
  uint64_t count(std::string_view method, std::string_view route, int status) const;

private:
  mutable std::mutex mtx_;
  std::map<std::tuple<std::string, std::string, int>, uint64_t> counts_;
  std::map<std::string, duration_histogram, std::less<>> durations_;
};

} // namespace stepwise::http
