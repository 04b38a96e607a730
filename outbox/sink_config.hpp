#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "engine/event.hpp"
#include "engine/sink_store.hpp"

namespace stepwise::outbox {

/// Which events a sink delivers. An empty list matches everything.
struct sink_filter {
  std::vector<event_type> types;
  std::vector<std::string> workflows;

  /// Returns whether the sink delivers `e` of an operation of `workflow`.
  bool matches(const event& e, const std::string& workflow) const;
};

enum class sink_kind : uint8_t { webhook, kafka };

/// Returns `"webhook"` or `"kafka"`.
const char* to_string(sink_kind x);

/// Where a webhook sink POSTs.
struct webhook_settings {
  /// `http://` or `https://`.
  std::string url;
  /// File holding the HMAC-SHA256 key of `X-Stepwise-Signature`; empty:
  /// requests are not signed.
  std::string secret_file;
  /// Bound on one POST, answer included.
  std::chrono::milliseconds timeout{10000};
  /// Most events per POST; above 1 the body is always a JSON array.
  size_t batch = 1;
};

/// Where a Kafka sink produces.
struct kafka_settings {
  /// `host:port`, comma-separated.
  std::string brokers;
  std::string topic;
  /// librdkafka's `security.protocol`; empty: plaintext.
  std::string security_protocol;
  std::string sasl_mechanism;
  std::string sasl_username;
  /// File holding the SASL password.
  std::string sasl_password_file;
  /// PEM file of the CAs for TLS; empty: the system's.
  std::string ca_file;
  /// librdkafka's `message.timeout.ms`: how long it retries one message.
  std::chrono::milliseconds timeout{30000};
};

/// One sink: a named destination plus a filter. The name keys its cursor in
/// the store, so renaming a sink starts a new cursor.
struct sink_config {
  std::string name;
  sink_kind kind = sink_kind::webhook;
  sink_filter filter;
  /// Where a sink new to the store starts.
  sink_start start = sink_start::beginning;
  webhook_settings webhook;
  kafka_settings kafka;
};

/// Parses one `--sink` value:
/// `NAME=webhook:URL[,secret-file=PATH][,timeout-ms=N][,batch=N]` or
/// `NAME=kafka:BROKERS/TOPIC[,security-protocol=P][,sasl-mechanism=M]
/// [,sasl-username=U][,sasl-password-file=PATH][,ca-file=PATH][,timeout-ms=N]`,
/// each with `[,events=a|b][,workflows=x|y][,from=start|end]`. A comma not
/// followed by a known option belongs to the destination (broker lists).
/// Errors name the sink and the option, never a secret.
[[nodiscard]] caf::expected<sink_config> parse_sink(const std::string& spec);

/// Returns where the sink delivers, safe to print: a URL without user
/// information and query, or `BROKERS/TOPIC`.
std::string describe_destination(const sink_config& cfg);

/// Returns `url` without user information and with `?***` for a query.
std::string redact_url(const std::string& url);

} // namespace stepwise::outbox
