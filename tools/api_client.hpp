#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <boost/json.hpp>
#include <httplib.h>

#include "tools/cli.hpp"

namespace stepwise::tools {

/// The answer to one API call, as the CLI needs it.
struct api_result {
  /// HTTP status; 0 when there was no answer.
  int status = 0;
  /// The parsed JSON body (null when there was none).
  boost::json::value body;
  /// Empty on success; otherwise what went wrong, ready to print.
  std::string error;

  bool ok() const {
    return error.empty();
  }
};

/// One server-sent event.
struct sse_event {
  std::string id;
  std::string type;
  std::string data;
};

/// A small client of the stepwise HTTP API for the CLI (and benchmarks):
/// one keep-alive connection, JSON in and out, errors as text.
class api_client {
public:
  /// `url` is `http[s]://HOST:PORT`; the flags add a token and, for https,
  /// how to trust the server.
  explicit api_client(const client_flags& flags);

  api_result get(const std::string& target);

  api_result post(const std::string& target, const std::string& body);

  api_result put(const std::string& target, const std::string& body);

  api_result del(const std::string& target);

  /// Reads the event stream from after `last_id` until the connection ends
  /// or `fn` returns false. Returns the error that ended it, if any.
  api_result stream(const std::string& target, int64_t last_id,
                    const std::function<bool(const sse_event&)>& fn);

  const std::string& url() const {
    return url_;
  }

private:
  api_result finish(const httplib::Result& r);

  std::string url_;
  std::unique_ptr<httplib::Client> cli_;
};

} // namespace stepwise::tools
