#pragma once

#include <memory>
#include <string>

#include "bench/embedded_driver.hpp"

namespace httplib {
class Client;
} // namespace httplib

namespace stepwise::bench {

/// The server the HTTP workloads talk to.
struct http_target {
  /// `http[s]://HOST:PORT`.
  std::string url;
  /// Bearer token of a server with `--auth-tokens` (empty: none).
  std::string token;
};

/// Splits `http://HOST:PORT` (the epoll clients speak plain HTTP only);
/// false for any other URL.
bool plain_http(const std::string& url, std::string& host, unsigned short& port);

/// Returns a keep-alive client of `target` (its token, no Nagle delay)
/// that waits at most `read_timeout_s` for an answer.
std::unique_ptr<httplib::Client> keep_alive_client(const http_target& target,
                                                   int read_timeout_s = 120);

/// Submits `n` operations of `workflow` through `POST /api/v1/operations` of
/// the server `target`, from `concurrency` keep-alive
/// connections, and sees each finish through one event stream
/// (`GET /api/v1/events/stream`). Latency runs from each submit call to the
/// moment its terminal event arrives. Waits at most `limit_s` seconds.
/// `input` defaults to `{"i": i}`.
///
/// `cpu_s` and the RSS fields are the server's, from its `/metrics`
/// (`process_cpu_seconds_total`, `stepwise_process_peak_resident_memory_bytes`).
run_result run_http(const http_target& target, const std::string& workflow, size_t n,
                    size_t concurrency, double limit_s, const input_fn& input = {});

/// Returns the sample `name` (no labels) of the server's `/metrics`, or -1.
double server_metric(const http_target& target, const std::string& name);

/// Returns the store backend of the server `target` (from `/readyz`), or
/// "unknown".
std::string http_store_backend(const http_target& target);

/// Returns the data of operation `id` from the server `target` (null on an
/// error), for the durable figures of the retry and timers workloads.
boost::json::value http_operation_data(const http_target& target, const std::string& id);

} // namespace stepwise::bench
