#pragma once

#include <string>

#include <boost/json.hpp>

#include "http/server_response.hpp"

namespace stepwise::http {

/// Sets `res` to `status` with `body` serialized as JSON.
inline void write_json(server_response& res, int status, const boost::json::value& body) {
  res.status = status;
  res.set_content(boost::json::serialize(body), "application/json");
}

/// Sets `res` to `status` with `body`, JSON text already written.
inline void write_json_text(server_response& res, int status, std::string body) {
  res.status = status;
  res.set_content(std::move(body), "application/json");
}

} // namespace stepwise::http
