#include "outbox/webhook.hpp"

#include "engine/errc.hpp"
#include "engine/redact.hpp"
#include "outbox/message.hpp"
#include "outbox/signature.hpp"

namespace stepwise::outbox {

webhook_destination::webhook_destination(std::shared_ptr<net::http_client> client, std::string sink,
                                         webhook_settings settings, std::string secret)
  : client_(std::move(client)),
    sink_(std::move(sink)),
    settings_(std::move(settings)),
    secret_(std::move(secret)),
    shown_(redact_url(settings_.url)) {
  // nop
}

void webhook_destination::send(event_batch_ptr batch, delivery_callback done) {
  net::http_request req;
  req.method = net::http_method::post;
  req.url = settings_.url;
  req.timeout = settings_.timeout;
  req.body = webhook_body(*batch, settings_.batch > 1);
  auto id = batch->size() == 1 && settings_.batch == 1
              ? message_id(batch->front())
              : std::to_string(batch->front().seq) + "-" + std::to_string(batch->back().seq);
  req.headers = {
    {"Content-Type", "application/json"}, {message_id_header, std::move(id)}, {sink_header, sink_}};
  if (!secret_.empty())
    req.headers.emplace_back(signature_header_name, signature_header(secret_, req.body));
  // The callback runs on the client's I/O thread: it only builds the
  // outcome and hands it on.
  client_->send(std::move(req), [done = std::move(done), shown = shown_, url = settings_.url,
                                 secret = secret_](net::http_result res) {
    if (auto* r = std::get_if<net::http_response>(&res)) {
      if (r->status >= 200 && r->status < 300)
        return done(caf::error{});
      return done(make_error(errc::delivery_failed,
                             "webhook " + shown + " answered " + std::to_string(r->status)));
    }
    auto& e = std::get<net::http_error>(res);
    auto msg = e.message;
    for (auto pos = msg.find(url); pos != std::string::npos;
         pos = msg.find(url, pos + shown.size()))
      msg.replace(pos, url.size(), shown);
    done(make_error(errc::delivery_failed, "webhook " + shown + ": "
                                             + std::string{to_string(e.kind)} + ": "
                                             + scrub(msg, {secret})));
  });
}

} // namespace stepwise::outbox
