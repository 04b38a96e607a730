#pragma once

#include <memory>
#include <string>

#include "net/http_client.hpp"
#include "outbox/destination.hpp"
#include "outbox/sink_config.hpp"

namespace stepwise::outbox {

/// Header names of a webhook POST.
inline constexpr const char* message_id_header = "X-Stepwise-Message-Id";
inline constexpr const char* signature_header_name = "X-Stepwise-Signature";
inline constexpr const char* sink_header = "X-Stepwise-Sink";

/// POSTs batches to a URL through the outbox's asynchronous HTTP client:
/// one request in flight at a time, so a receiver sees events in log
/// order. Headers: `X-Stepwise-Message-Id` (the event's message id; for a
/// batch `FIRST-LAST`, the seqs of its first and last event: receivers of
/// batches drop duplicates by each item's `seq`, or `request_id` of
/// infrastructure completions), `X-Stepwise-Sink` (the sink's name) and,
/// with a secret, `X-Stepwise-Signature: sha256=<hex>`, HMAC-SHA256 of the
/// body. A 2xx answer acknowledges the batch; any other answer, no answer
/// within the timeout or a connection failure fails it.
class webhook_destination final : public destination {
public:
  /// `secret` is the HMAC key (empty: unsigned).
  webhook_destination(std::shared_ptr<net::http_client> client, std::string sink,
                      webhook_settings settings, std::string secret);

  size_t window() const override {
    return 1;
  }

  size_t max_batch() const override {
    return settings_.batch;
  }

  void send(event_batch_ptr batch, delivery_callback done) override;

  /// The client belongs to the outbox, which stops it.
  void stop() override {
    // nop
  }

private:
  std::shared_ptr<net::http_client> client_;
  std::string sink_;
  webhook_settings settings_;
  std::string secret_;
  /// The URL as errors may show it.
  std::string shown_;
};

} // namespace stepwise::outbox
