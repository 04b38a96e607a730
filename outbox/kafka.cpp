#include "outbox/kafka.hpp"

#include <atomic>
#include <cstring>

#include <librdkafka/rdkafka.h>

#include "engine/errc.hpp"
#include "engine/redact.hpp"
#include "outbox/message.hpp"

namespace stepwise::outbox {

namespace {

caf::error failure(const std::string& sink, const std::string& what,
                   const std::vector<std::string>& secrets) {
  return make_error(errc::delivery_failed, "kafka sink '" + sink + "': " + scrub(what, secrets));
}

/// One batch in flight: counts its messages' delivery reports down.
struct batch_state {
  batch_state(size_t n, delivery_callback cb) : remaining(n), done(std::move(cb)) {
    // nop
  }

  /// `n` messages are settled, with `err` (or none). The last report
  /// answers the batch and frees it.
  void settle(size_t n, caf::error err) {
    if (err) {
      std::lock_guard<std::mutex> guard{mtx};
      if (!first_error)
        first_error = std::move(err);
    }
    if (remaining.fetch_sub(n) != n)
      return;
    caf::error out;
    {
      std::lock_guard<std::mutex> guard{mtx};
      out = std::move(first_error);
    }
    done(std::move(out));
    delete this;
  }

  std::atomic<size_t> remaining;
  delivery_callback done;
  std::mutex mtx;
  caf::error first_error;
};

} // namespace

/// What librdkafka's callbacks get as the producer's opaque pointer. Not
/// in the anonymous namespace: `producer` below, declared in the header,
/// holds one.
struct producer_opaque {
  std::string sink;
  std::vector<std::string> secrets;
  std::function<void(const std::string&)> warn;
};

/// One librdkafka producer. Destroyed on whatever thread drops it last:
/// the pool or `stop`, never a CAF thread (sends hold it only briefly and
/// drop it before a rebuild can, see `send`).
struct kafka_destination::producer {
  rd_kafka_t* rk = nullptr;
  std::shared_ptr<blocking_pool> pool;
  std::weak_ptr<producer> weak;
  std::atomic<bool> drain_posted{false};
  producer_opaque info;

  ~producer() {
    if (rk == nullptr)
      return;
    // Every message gets its report before the handle goes, so that each
    // batch is answered (with an error) and freed.
    rd_kafka_purge(rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_flush(rk, 5000);
    while (rd_kafka_poll(rk, 0) > 0) {
      // drain
    }
    rd_kafka_destroy(rk);
  }

  bool fatal() const {
    return rd_kafka_fatal_error(rk, nullptr, 0) != RD_KAFKA_RESP_ERR_NO_ERROR;
  }

  /// Serves the delivery reports waiting now, without waiting for more.
  void drain() {
    drain_posted.store(false);
    while (rd_kafka_poll(rk, 0) > 0) {
      // each call runs the reports' callbacks
    }
  }

  /// librdkafka's thread: its queue got its first item.
  static void on_queue(rd_kafka_t*, void* opaque) {
    auto* self = static_cast<producer*>(opaque);
    if (self->drain_posted.exchange(true))
      return;
    if (auto p = self->weak.lock())
      p->pool->post([p] { p->drain(); });
  }

  static void on_delivery(rd_kafka_t* rk, const rd_kafka_message_t* m, void*) {
    auto* b = static_cast<batch_state*>(m->_private);
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR)
      return b->settle(1, caf::error{});
    auto* info = static_cast<producer_opaque*>(rd_kafka_opaque(rk));
    b->settle(1, failure(info->sink,
                         std::string{"delivery to "} + rd_kafka_topic_name(m->rkt)
                           + " failed: " + rd_kafka_err2str(m->err),
                         info->secrets));
  }

  static void on_log(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
    auto* info = static_cast<producer_opaque*>(rd_kafka_opaque(rk));
    // The gap-less guarantee is experimental and says so at every start.
    if (info == nullptr || level > 4
        || (std::strcmp(fac, "CONFWARN") == 0 && std::strstr(buf, "gapless")))
      return;
    info->warn("kafka sink '" + info->sink + "': " + scrub(buf, info->secrets));
  }
};

kafka_destination::kafka_destination(std::string sink, kafka_settings settings,
                                     std::string password, std::shared_ptr<blocking_pool> pool,
                                     std::function<void(const std::string&)> warn)
  : sink_(std::move(sink)),
    settings_(std::move(settings)),
    password_(std::move(password)),
    pool_(std::move(pool)),
    warn_(std::move(warn)) {
  // nop
}

kafka_destination::~kafka_destination() {
  stop();
}

caf::expected<std::shared_ptr<kafka_destination>> kafka_destination::make(
  std::string sink, kafka_settings settings, std::string password,
  std::shared_ptr<blocking_pool> pool, std::function<void(const std::string&)> warn) {
  std::shared_ptr<kafka_destination> d{new kafka_destination(
    std::move(sink), std::move(settings), std::move(password), std::move(pool), std::move(warn))};
  // The producer is made at the first send: an idempotent producer made
  // with nothing to send waits about a second for its producer id once
  // messages come (librdkafka 2.0), one made with messages at hand does not.
  auto conf = d->make_conf();
  if (!conf)
    return std::move(conf.error());
  rd_kafka_conf_destroy(*conf);
  return d;
}

std::vector<std::string> kafka_destination::secrets() const {
  if (password_.empty())
    return {};
  return {password_};
}

caf::expected<rd_kafka_conf_t*> kafka_destination::make_conf() const {
  char err[512];
  auto* conf = rd_kafka_conf_new();
  std::pair<const char*, std::string> props[] = {
    {"bootstrap.servers", settings_.brokers},
    {"client.id", "stepwise-" + sink_},
    {"enable.idempotence", "true"},
    {"enable.gapless.guarantee", "true"},
    // One request per broker at a time: a request that fails cannot be
    // overtaken by the next one (a broker that does not check sequence
    // numbers, like the mock cluster, would accept it and leave a gap).
    {"max.in.flight.requests.per.connection", "1"},
    {"linger.ms", "5"},
    {"message.timeout.ms", std::to_string(settings_.timeout.count())},
    {"security.protocol", settings_.security_protocol},
    {"sasl.mechanisms", settings_.sasl_mechanism},
    {"sasl.username", settings_.sasl_username},
    {"sasl.password", password_},
    {"ssl.ca.location", settings_.ca_file},
  };
  for (auto& [key, value] : props) {
    if (value.empty())
      continue;
    if (rd_kafka_conf_set(conf, key, value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return failure(sink_, std::string{key} + ": " + err, secrets());
    }
  }
  return conf;
}

caf::expected<std::shared_ptr<kafka_destination::producer>> kafka_destination::make_producer()
  const {
  auto made = make_conf();
  if (!made)
    return std::move(made.error());
  auto* conf = *made;
  char err[512];
  auto p = std::make_shared<producer>();
  p->pool = pool_;
  p->weak = p;
  p->info = producer_opaque{sink_, secrets(), warn_};
  rd_kafka_conf_set_opaque(conf, &p->info);
  rd_kafka_conf_set_dr_msg_cb(conf, &producer::on_delivery);
  rd_kafka_conf_set_log_cb(conf, &producer::on_log);
  // On success rd_kafka_new owns `conf`.
  p->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (p->rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return failure(sink_, std::string{"cannot make the producer: "} + err, secrets());
  }
  auto* queue = rd_kafka_queue_get_main(p->rk);
  rd_kafka_queue_cb_event_enable(queue, &producer::on_queue, p.get());
  rd_kafka_queue_destroy(queue);
  // The wake-up comes only when the queue turns non-empty: serve what it
  // may have received before it was enabled.
  producer::on_queue(p->rk, p.get());
  return p;
}

void kafka_destination::send(event_batch_ptr batch, delivery_callback done) {
  std::shared_ptr<producer> p;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (stopped_)
      return done(failure(sink_, "stopped", {}));
    if (rebuilding_) {
      deferred_.emplace_back(std::move(batch), std::move(done));
      return;
    }
    p = current_;
  }
  if (p == nullptr || p->fatal())
    return rebuild(std::move(batch), std::move(done));
  produce(*p, batch, std::move(done));
}

void kafka_destination::produce(producer& p, const event_batch_ptr& batch,
                                delivery_callback done) const {
  auto n = batch->size();
  auto* b = new batch_state(n, std::move(done));
  for (size_t i = 0; i < n; ++i) {
    auto& e = (*batch)[i];
    auto value = kafka_value(e);
    auto id = message_id(e);
    auto type = std::string{to_string(e.type)};
    // produceva, not producev: the latter's macros are GNU statement
    // expressions, which -Wpedantic rejects.
    rd_kafka_vu_t vus[7] = {};
    vus[0].vtype = RD_KAFKA_VTYPE_TOPIC;
    vus[0].u.cstr = settings_.topic.c_str();
    vus[1].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
    vus[1].u.i = RD_KAFKA_MSG_F_COPY;
    vus[2].vtype = RD_KAFKA_VTYPE_KEY;
    vus[2].u.mem = {const_cast<char*>(e.operation_id.data()), e.operation_id.size()};
    vus[3].vtype = RD_KAFKA_VTYPE_VALUE;
    vus[3].u.mem = {value.data(), value.size()};
    vus[4].vtype = RD_KAFKA_VTYPE_HEADER;
    vus[4].u.header = {"message_id", id.data(), static_cast<ssize_t>(id.size())};
    vus[5].vtype = RD_KAFKA_VTYPE_HEADER;
    vus[5].u.header = {"type", type.data(), static_cast<ssize_t>(type.size())};
    vus[6].vtype = RD_KAFKA_VTYPE_OPAQUE;
    vus[6].u.ptr = b;
    if (auto* err = rd_kafka_produceva(p.rk, vus, 7)) {
      auto what = std::string{"produce: "} + rd_kafka_error_string(err);
      rd_kafka_error_destroy(err);
      // The rest of the batch is not produced: it fails as a whole.
      b->settle(n - i, failure(sink_, std::move(what), {}));
      return;
    }
  }
}

void kafka_destination::rebuild(event_batch_ptr batch, delivery_callback done) {
  std::shared_ptr<producer> old;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    deferred_.emplace_back(std::move(batch), std::move(done));
    if (rebuilding_)
      return;
    rebuilding_ = true;
    old = std::move(current_);
  }
  if (old && old->fatal()) {
    char why[512] = "";
    rd_kafka_fatal_error(old->rk, why, sizeof why);
    warn_("kafka sink '" + sink_ + "': producer stopped, making a new one: " + std::string{why});
  }
  pool_->post([self = shared_from_this(), old = std::move(old)]() mutable {
    old.reset(); // blocks until librdkafka's threads are gone
    auto fresh = self->make_producer();
    // Sends keep waiting until every deferred batch is produced: a batch
    // sent meanwhile must not overtake them.
    for (;;) {
      std::deque<std::pair<event_batch_ptr, delivery_callback>> waiting;
      bool live = false;
      {
        std::lock_guard<std::mutex> guard{self->mtx_};
        live = fresh && !self->stopped_;
        if (self->deferred_.empty()) {
          self->rebuilding_ = false;
          if (live)
            self->current_ = *fresh;
          return;
        }
        waiting.swap(self->deferred_);
      }
      for (auto& [b, cb] : waiting) {
        if (live)
          self->produce(**fresh, b, std::move(cb));
        else
          cb(fresh ? failure(self->sink_, "stopped", {}) : fresh.error());
      }
    }
  });
}

void kafka_destination::stop() {
  std::shared_ptr<producer> p;
  std::deque<std::pair<event_batch_ptr, delivery_callback>> waiting;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (stopped_)
      return;
    stopped_ = true;
    p = std::move(current_);
    waiting.swap(deferred_);
  }
  for (auto& [b, cb] : waiting)
    cb(failure(sink_, "stopped", {}));
  p.reset();
}

} // namespace stepwise::outbox
