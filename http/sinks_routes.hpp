#pragma once

#include <functional>
#include <vector>

#include <boost/json.hpp>
#include <caf/expected.hpp>

#include "outbox/sink_status.hpp"

namespace stepwise::http {

class prometheus_writer;
struct route_context;

/// Reads the outbox's sinks (blocking: a store read); empty: no outbox.
using sinks_source = std::function<caf::expected<std::vector<outbox::sink_status>>()>;

/// Returns `{"items": [...]}` as `GET /api/v1/sinks` answers.
boost::json::object sinks_json(const std::vector<outbox::sink_status>& sinks);

/// Writes the sinks' figures to `/metrics`: delivered, failed and lag per
/// sink (label `sink`). Nothing without an outbox or when the store does
/// not answer.
void render_sink_metrics(prometheus_writer& w, const route_context& ctx);

} // namespace stepwise::http
