#include "outbox/outbox.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <set>

#include <caf/actor_system.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include "engine/errc.hpp"
#include "engine/log.hpp"
#include "engine/random_hex.hpp"
#include "outbox/kafka.hpp"
#include "outbox/messages.hpp"
#include "outbox/webhook.hpp"

namespace stepwise::outbox {

namespace {

std::string make_holder() {
  char host[256] = "";
  ::gethostname(host, sizeof host - 1);
  return std::string{host} + ":" + std::to_string(::getpid()) + ":" + random_hex(8);
}

// Reads a secret from `path` (none: empty); the error names the file,
// never its content.
caf::expected<std::string> read_secret(const sink_config& c, const char* what,
                                       const std::string& path) {
  if (path.empty())
    return std::string{};
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return make_error(errc::invalid_argument,
                      "sink '" + c.name + "': cannot read " + what + " '" + path + "'");
  std::string s{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.pop_back();
  if (s.empty())
    return make_error(errc::invalid_argument,
                      "sink '" + c.name + "': " + what + " '" + path + "' is empty");
  return s;
}

// The password of a URL's user information, if any: scrubbed from errors.
std::string url_password(const std::string& url) {
  auto scheme = url.find("://");
  if (scheme == std::string::npos)
    return {};
  auto end = url.find_first_of("/?#", scheme + 3);
  auto authority =
    url.substr(scheme + 3, end == std::string::npos ? std::string::npos : end - scheme - 3);
  auto at = authority.rfind('@');
  auto colon = authority.find(':');
  if (at == std::string::npos || colon == std::string::npos || colon > at)
    return {};
  return authority.substr(colon + 1, at - colon - 1);
}

// Passes each committed batch on to every sink as a wake-up (its last seq):
// the sinks read the events from the store.
event_listener::behavior_type feed_sinks(event_listener::pointer, std::vector<sink_actor> sinks) {
  return {
    [sinks](const event_batch& b) {
      if (b.events.empty())
        return;
      auto seq = b.events.back().seq;
      for (auto& s : sinks)
        caf::anon_send(s, ob_wake_atom::value, seq);
    },
  };
}

} // namespace

outbox::outbox(caf::actor_system& sys, store_ptr st, sink_store* sinks)
  : sys_(sys), store_(std::move(st)), sinks_(sinks), holder_(make_holder()) {
  // nop
}

caf::expected<std::unique_ptr<outbox>> outbox::start(caf::actor_system& sys, engine& eng,
                                                     store_ptr st, outbox_config cfg) {
  auto* sinks = st->sinks();
  if (sinks == nullptr)
    return make_error(errc::invalid_argument,
                      "the " + st->backend() + " store keeps no sink cursors");
  std::set<std::string> names;
  for (auto& c : cfg.sinks)
    if (!names.insert(c.name).second)
      return make_error(errc::invalid_argument, "sink '" + c.name + "' is configured twice");
  std::unique_ptr<outbox> ob{new outbox(sys, st, sinks)};
  ob->warn_ =
    cfg.warn ? cfg.warn : [](const std::string& msg) { write_log(nullptr, log_level::warn, msg); };
  ob->pool_ = std::make_shared<blocking_pool>(cfg.store_threads);
  // A store serving one process: whoever held a sink before is this
  // process's dead predecessor; a shared one is read for others' events.
  auto shared = !eng.owner().empty();
  auto timing = cfg.timing;
  if (timing.poll.count() == 0)
    timing.poll = shared ? std::chrono::milliseconds(200) : std::chrono::seconds(1);
  std::vector<sink_actor> actors;
  for (auto& c : cfg.sinks) {
    auto ctx = std::make_shared<sink_context>();
    ctx->cfg = c;
    auto webhook = c.kind == sink_kind::webhook;
    auto secret = webhook ? read_secret(c, "secret-file", c.webhook.secret_file)
                          : read_secret(c, "sasl-password-file", c.kafka.sasl_password_file);
    if (!secret)
      return std::move(secret.error());
    if (!secret->empty())
      ctx->secrets.push_back(*secret);
    if (webhook) {
      if (auto pw = url_password(c.webhook.url); !pw.empty())
        ctx->secrets.push_back(pw);
      if (!ob->http_)
        ob->http_ = std::make_shared<net::http_client>(cfg.http);
      ctx->dest = std::make_shared<webhook_destination>(ob->http_, c.name, c.webhook, *secret);
    } else {
      auto k = kafka_destination::make(c.name, c.kafka, *secret, ob->pool_, ob->warn_);
      if (!k)
        return std::move(k.error());
      ctx->dest = std::move(*k);
    }
    ctx->st = st;
    ctx->sinks = sinks;
    ctx->pool = ob->pool_;
    ctx->clock = &eng.clock();
    ctx->holder = ob->holder_;
    ctx->steal = !shared;
    ctx->timing = timing;
    ctx->stats = std::make_shared<sink_stats>();
    if (cfg.keep_lags)
      ctx->stats->keep_lags();
    ctx->warn = ob->warn_;
    ob->items_.push_back(sink{c, ctx->dest, ctx->stats, sink_actor{}});
    ob->items_.back().actor = spawn_sink(sys, std::move(ctx));
    actors.push_back(ob->items_.back().actor);
  }
  ob->feeder_ = sys.spawn(feed_sinks, std::move(actors));
  eng.subscribe(ob->feeder_);
  return ob;
}

outbox::~outbox() {
  stop();
}

void outbox::stop() {
  if (stopped_)
    return;
  stopped_ = true;
  caf::anon_send_exit(feeder_, caf::exit_reason::user_shutdown);
  caf::scoped_actor self{sys_};
  for (auto& s : items_) {
    // A sink whose store does not answer gives up after this long: its
    // cursor then trails, and a few events are delivered again.
    self->request(s.actor, std::chrono::seconds(5), ob_stop_atom::value)
      .receive([](bool) {},
               [&](caf::error&) { caf::anon_send_exit(s.actor, caf::exit_reason::user_shutdown); });
  }
  for (auto& s : items_)
    s.dest->stop();
  if (http_)
    http_->stop();
  pool_->stop();
}

std::vector<std::pair<std::string, std::shared_ptr<const sink_stats>>> outbox::stats() const {
  std::vector<std::pair<std::string, std::shared_ptr<const sink_stats>>> out;
  for (auto& s : items_)
    out.emplace_back(s.cfg.name, s.stats);
  return out;
}

caf::expected<std::vector<sink_status>> outbox::status() const {
  auto records = sinks_->sink_records();
  if (!records)
    return std::move(records.error());
  auto last = store_->last_seq();
  if (!last)
    return std::move(last.error());
  std::vector<sink_status> out;
  for (auto& s : items_) {
    sink_status x;
    x.name = s.cfg.name;
    x.kind = to_string(s.cfg.kind);
    x.destination = describe_destination(s.cfg);
    for (auto t : s.cfg.filter.types)
      x.events.emplace_back(to_string(t));
    x.workflows = s.cfg.filter.workflows;
    auto& st = *s.stats;
    x.delivered = st.delivered.load(std::memory_order_relaxed);
    x.failed = st.failed.load(std::memory_order_relaxed);
    x.held_here = st.held.load(std::memory_order_relaxed);
    x.lag_bounds.assign(st.lag_seconds.bounds.begin(), st.lag_seconds.bounds.end());
    for (auto& b : st.lag_seconds.buckets)
      x.lag_counts.push_back(b.load(std::memory_order_relaxed));
    x.lag_sum_s =
      static_cast<double>(st.lag_seconds.sum_micro.load(std::memory_order_relaxed)) / 1e6;
    auto rec = std::find_if(records->begin(), records->end(),
                            [&](const sink_record& r) { return r.name == x.name; });
    if (rec != records->end()) {
      x.cursor = rec->cursor;
      x.holder = rec->holder;
      x.last_error = rec->last_error;
      x.last_delivery_at = rec->delivered_at;
    }
    if (x.held_here) {
      // This process knows more than it wrote (cursor writes are paced).
      x.cursor = std::max(x.cursor, st.confirmed.load(std::memory_order_relaxed));
      x.last_error = st.last_error();
      if (auto t = st.last_delivery(); t && (!x.last_delivery_at || *t > *x.last_delivery_at))
        x.last_delivery_at = t;
    }
    x.lag = std::max<int64_t>(0, *last - x.cursor);
    out.push_back(std::move(x));
  }
  return out;
}

} // namespace stepwise::outbox
