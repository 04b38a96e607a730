// `pg_store::listen`: a connection of its own that LISTENs, waited on with
// poll(2) so that a wait ends when a notification comes or the time is up.
#include <poll.h>

#include <algorithm>

#include <libpq-fe.h>

#include "engine/errc.hpp"
#include "engine/notices.hpp"
#include "storage/pg_connection.hpp"
#include "storage/pg_store.hpp"

namespace stepwise {

namespace {

class pg_listener final : public notice_listener {
public:
  pg_listener(std::string uri, std::vector<std::string> channels)
    : uri_(std::move(uri)), channels_(std::move(channels)) {
    // nop
  }

  caf::expected<notices> wait(duration timeout) override {
    notices out;
    if (!conn_ || conn_->broken()) {
      if (auto err = connect())
        return err;
      out.reconnected = connected_before_;
      connected_before_ = true;
    }
    auto* c = conn_->get();
    take(c, out);
    if (!out.items.empty())
      return out;
    pollfd fd{PQsocket(c), POLLIN, 0};
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count();
    auto n = ::poll(&fd, 1, static_cast<int>(std::clamp<int64_t>(ms, 0, INT32_MAX)));
    if (n < 0 && errno != EINTR)
      return drop("pg: listen: poll failed");
    if (n > 0 && PQconsumeInput(c) == 0) {
      // libpq's message spans lines; `fail` makes it one, as logs need.
      auto err = conn_->fail("listen");
      conn_.reset();
      return err;
    }
    take(c, out);
    return out;
  }

private:
  caf::error connect() {
    conn_.reset();
    auto c = pg_connection::open(uri_);
    if (!c)
      return std::move(c.error());
    for (auto& ch : channels_) {
      auto sql = "LISTEN \"" + ch + "\"";
      if (auto r = (*c)->exec(sql.c_str(), "listen"); !r)
        return std::move(r.error());
    }
    conn_ = std::move(*c);
    return caf::none;
  }

  caf::error drop(std::string why) {
    conn_.reset();
    return make_error(errc::store_failure, std::move(why));
  }

  static void take(PGconn* c, notices& out) {
    while (auto* n = PQnotifies(c)) {
      out.items.push_back(notice{n->relname, n->extra});
      PQfreemem(n);
    }
  }

  std::string uri_;
  std::vector<std::string> channels_;
  std::unique_ptr<pg_connection> conn_;
  bool connected_before_ = false;
};

} // namespace

std::unique_ptr<notice_listener> pg_store::listen(std::vector<std::string> channels) {
  return std::make_unique<pg_listener>(uri_, std::move(channels));
}

} // namespace stepwise
