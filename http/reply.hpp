#pragma once

#include <boost/json.hpp>
#include <httplib.h>

namespace stepwise::http {

/// Sets `res` to `status` with `body` serialized as JSON.
inline void write_json(httplib::Response& res, int status, const boost::json::value& body) {
  res.status = status;
  res.set_content(boost::json::serialize(body), "application/json");
}

} // namespace stepwise::http
