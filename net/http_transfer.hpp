#pragma once

#include <atomic>
#include <cstdint>
#include <optional>

#include <curl/curl.h>

#include "net/http_client.hpp"

// Internal to `http_client`: one request on its way through libcurl.

namespace stepwise::net::detail {

/// The counters behind `http_client_stats`, written by the client.
struct http_counters {
  std::atomic<uint64_t> queued{0};
  std::atomic<uint64_t> in_flight{0};
  std::atomic<uint64_t> completed{0};
  std::atomic<uint64_t> failed{0};
};

/// One request, from `send` to its callback: the request, the easy handle
/// and everything libcurl points into while the transfer runs (header list,
/// body, error buffer), and the response as it arrives. Created on any
/// thread; `prepare`, `finish` and `answer` run on the I/O thread. Counts
/// itself in `queued` from construction until it is sent, then in
/// `in_flight` until answered.
class http_transfer {
public:
  http_transfer(uint64_t id, http_request req, http_callback cb, http_counters& counters);

  /// The id `http_client::send` gave the request.
  uint64_t id() const {
    return id_;
  }

  /// Releases the easy handle (the caller removed it from the multi handle).
  ~http_transfer();

  http_transfer(const http_transfer&) = delete;
  http_transfer& operator=(const http_transfer&) = delete;

  /// Configures an easy handle, bounded by `timeout` (zero: none): `spare`
  /// (a finished transfer's, reset here) or a new one; an error if the
  /// request is invalid or libcurl refuses it.
  std::optional<http_error> prepare(const http_client_options& opts,
                                    std::chrono::milliseconds timeout, CURL* spare = nullptr);

  /// Gives up the easy handle (removed from the multi handle) for the next
  /// transfer to reuse.
  CURL* release_handle() {
    auto* e = easy_;
    easy_ = nullptr;
    return e;
  }

  const http_request& request() const {
    return req_;
  }

  /// The easy handle (null before `prepare`).
  CURL* handle() const {
    return easy_;
  }

  /// Returns the result of the finished transfer from libcurl's code.
  http_result finish(CURLcode code);

  /// Hands `r` to the callback (once; later calls do nothing) and counts it;
  /// sets an error's `request_sent`.
  void answer(http_result r);

private:
  // -- libcurl callbacks ------------------------------------------------------

  static size_t on_body(char* data, size_t size, size_t n, void* self);
  static size_t on_header(char* data, size_t size, size_t n, void* self);
  static int on_prereq(void* self, char* remote_ip, char* local_ip, int remote_port,
                       int local_port);
  static int on_resolve(void* resolver, void* reserved, void* self);
  static int on_socket(void* self, curl_socket_t fd, curlsocktype purpose);

  // -- set-up -----------------------------------------------------------------

  std::optional<http_error> set_headers();
  bool set_method();

  uint64_t id_;
  http_request req_;
  http_callback cb_;
  http_counters& counters_;
  CURL* easy_ = nullptr;
  curl_slist* header_list_ = nullptr;
  http_response resp_;
  size_t max_body_ = 0;
  /// The transfer began to set up a connection of its own (DNS or socket).
  bool connecting_ = false;
  /// The request was handed to a connection (the pre-request callback ran).
  bool sent_ = false;
  bool too_large_ = false;
  bool answered_ = false;
  char errbuf_[CURL_ERROR_SIZE] = {};
};

} // namespace stepwise::net::detail
