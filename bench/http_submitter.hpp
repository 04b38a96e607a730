#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace stepwise::bench {

/// What one submitted request came back with.
struct submit_answer {
  /// 0 when the connection failed.
  int status = 0;
  /// The `Location` header (the created operation's path), or empty.
  std::string location;
  /// The body, or why the connection failed.
  std::string body;
};

/// POSTs `n` JSON bodies (`body(i)`) to `path` of the plain-HTTP server at
/// `host`:`port` over `connections` keep-alive connections, each sending its
/// next request when the last one was answered, all driven by one thread
/// (epoll): the load generator spends little of the cores it shares with
/// the server, where a blocking client's thread per connection spends a
/// wake-up per request. Calls `before(i)` just before request `i` is sent
/// and `done(i, answer)` when it is answered, both on that thread. Returns
/// when every request was answered or failed.
void submit_all(const std::string& host, unsigned short port, const std::string& token,
                const std::string& path, size_t n, size_t connections,
                const std::function<std::string(size_t)>& body,
                const std::function<void(size_t)>& before,
                const std::function<void(size_t, const submit_answer&)>& done);

} // namespace stepwise::bench
