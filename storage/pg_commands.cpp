// The command_store side of pg_store: control requests between processes
// (engine/command_store.hpp), on the pooled connections, one autocommit
// statement each. The owner learns of a new command by a notification on
// `stepwise_commands` (its payload: the owner's id), sent by the insert's
// own transaction, so it is never told before the command is there.
#include <boost/json.hpp>

#include "engine/errc.hpp"
#include "storage/pg_connection.hpp"
#include "storage/pg_read_pool.hpp"
#include "storage/pg_store.hpp"

namespace stepwise {

namespace {

// A signal id taken already (here) inserts nothing and returns no row.
constexpr auto put_sql =
  "WITH ins AS (INSERT INTO operation_commands (operation_id, kind, signal_name, signal_id, "
  "payload, created_at, requested_by) VALUES ($1, $2, $3, $4, $5, $6, $7) "
  "ON CONFLICT (operation_id, signal_id) WHERE signal_id <> '' DO NOTHING "
  "RETURNING seq, operation_id) "
  "SELECT ins.seq, pg_notify('stepwise_commands', COALESCE(o.owner, '')) "
  "FROM ins LEFT JOIN operations o ON o.id = ins.operation_id";

// Commands of an operation that ended are the business of any process:
// whoever reads them finds them refused by that end and drops them, so
// that one left by an owner that died is not kept forever.
constexpr auto for_owner_sql =
  "SELECT c.seq, c.operation_id, c.kind, c.signal_name, c.signal_id, c.payload, c.created_at, "
  "c.requested_by FROM operation_commands c JOIN operations o ON o.id = c.operation_id "
  "WHERE o.owner = $1 OR o.ended_at IS NOT NULL ORDER BY c.seq LIMIT $2";

constexpr auto drop_sql = "WITH d AS (DELETE FROM operation_commands WHERE seq = $1 RETURNING seq) "
                          "SELECT pg_notify('stepwise_applied', $2 || ' ' || d.seq) FROM d";

caf::expected<stored_command> read_command(const pg_result& r, int row) {
  stored_command c;
  c.seq = r.int64(row, 0);
  c.operation_id = std::string{r.text(row, 1)};
  auto kind = r.text(row, 2);
  c.is_signal = kind == "signal";
  if (!c.is_signal) {
    auto cmd = parse_command(kind);
    if (!cmd)
      return make_error(errc::store_failure, "pg: stored command " + std::to_string(c.seq)
                                               + " has an unknown kind '" + std::string{kind}
                                               + "'");
    c.cmd = *cmd;
  }
  c.signal_name = std::string{r.text(row, 3)};
  c.signal_id = std::string{r.text(row, 4)};
  boost::system::error_code ec;
  c.payload = boost::json::parse(r.text(row, 5), ec);
  if (ec)
    return make_error(errc::store_failure, "pg: stored command " + std::to_string(c.seq)
                                             + " has a malformed payload: " + ec.message());
  c.by = std::string{r.text(row, 7)};
  // A command stored before migration 15 kept who asked in its payload.
  if (c.by.empty() && !c.is_signal)
    if (auto* obj = c.payload.if_object())
      if (auto* by = obj->if_contains("by"); by && by->is_string())
        c.by = std::string{by->get_string()};
  c.created_at = from_micros(r.int64(row, 6));
  return c;
}

} // namespace

caf::expected<int64_t> pg_store::put(const stored_command& cmd) {
  return readers_->run([&](pg_connection& c) -> caf::expected<int64_t> {
    pg_params p{7};
    p.add(cmd.operation_id);
    p.add(cmd.is_signal ? std::string_view{"signal"} : to_string(cmd.cmd));
    p.add(cmd.signal_name);
    p.add(cmd.signal_id);
    p.add(boost::json::serialize(cmd.payload));
    p.add(to_micros(cmd.created_at));
    // Who asked, so that the owner's events name them.
    p.add(cmd.by);
    auto r = c.exec(put_sql, p, "store a command");
    if (!r)
      return std::move(r.error());
    return r->rows() == 1 ? r->int64(0, 0) : int64_t{0};
  });
}

caf::expected<std::vector<stored_command>> pg_store::for_owner(const std::string& owner,
                                                               size_t limit) {
  using result = caf::expected<std::vector<stored_command>>;
  return readers_->run([&](pg_connection& c) -> result {
    pg_params p{2};
    p.add(owner);
    p.add(static_cast<int64_t>(std::min<size_t>(limit, INT32_MAX)));
    auto r = c.exec(for_owner_sql, p, "read commands");
    if (!r)
      return std::move(r.error());
    std::vector<stored_command> out;
    for (int row = 0; row < r->rows(); ++row) {
      auto cmd = read_command(*r, row);
      if (!cmd)
        return std::move(cmd.error());
      out.push_back(std::move(*cmd));
    }
    return out;
  });
}

caf::error pg_store::drop(int64_t seq, command_outcome why) {
  return readers_->run([&](pg_connection& c) -> caf::error {
    pg_params p{2};
    p.add(seq);
    p.add(to_string(why));
    if (auto r = c.exec(drop_sql, p, "drop a command"); !r)
      return std::move(r.error());
    return caf::none;
  });
}

} // namespace stepwise
