#include "http/request_metrics.hpp"

namespace stepwise::http {

namespace {

// Keeps the label set bounded: methods nobody serves are one value.
std::string_view method_label(std::string_view m) {
  for (auto known : {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"})
    if (m == known)
      return m;
  return "other";
}

} // namespace

void request_metrics::record(std::string_view method, std::string_view route, int status,
                             std::optional<double> seconds) {
  std::lock_guard<std::mutex> guard{mtx_};
  ++counts_[std::make_tuple(std::string(method_label(method)), std::string(route), status)];
  if (seconds) {
    auto i = durations_.find(route);
    if (i == durations_.end())
      i = durations_
            .try_emplace(std::string(route),
                         std::array<double, 11>{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                0.1, 0.5, 1, 10})
            .first;
    i->second.observe(*seconds);
  }
}

void request_metrics::render(prometheus_writer& out) const {
  std::lock_guard<std::mutex> guard{mtx_};
  out.family("stepwise_http_requests_total", "counter",
             "HTTP requests answered, by method, route pattern and status.");
  for (auto& [key, n] : counts_) {
    auto status = std::to_string(std::get<2>(key));
    out.sample("stepwise_http_requests_total",
               {{"method", std::get<0>(key)}, {"route", std::get<1>(key)}, {"status", status}},
               static_cast<double>(n));
  }
  out.family("stepwise_http_request_duration_seconds", "histogram",
             "Time from routing an HTTP request to writing its answer.");
  for (auto& [route, h] : durations_)
    out.histogram("stepwise_http_request_duration_seconds", {{"route", route}}, h);
}

uint64_t request_metrics::count(std::string_view method, std::string_view route, int status) const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = counts_.find(std::make_tuple(std::string(method), std::string(route), status));
  return i == counts_.end() ? 0 : i->second;
}

} // namespace stepwise::http
