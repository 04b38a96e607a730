// Commands between processes sharing a store (engine/command_store.hpp):
// this process reads the commands others stored for the operations it
// drives and carries them out as its own clients' requests. One read at a
// time, and the next only once the commands it found are answered: by
// then the checkpoint that carried a command out has deleted it, so no
// command is read, and carried out, twice.
#include <caf/send.hpp>

#include "actors/dispatcher.hpp"
#include "actors/take.hpp"
#include "actors/command_payload.hpp"
#include "engine/errc.hpp"
#include "engine/log.hpp"

namespace stepwise {

namespace {

/// Most commands read at once (more: read again when these are done).
constexpr uint64_t read_limit = 256;

/// How soon a command that found its operation between two actors (being
/// handed off, loaded, claimed) is read again: at first, and at most
/// (doubling while such commands are left).
constexpr auto read_again_first = std::chrono::milliseconds(50);
constexpr auto read_again_most = std::chrono::milliseconds(1000);

void read_commands(dispatcher_ptr self);

/// Reads again if asked to meanwhile, once nothing is under way.
void read_if_wanted(dispatcher_ptr self) {
  auto& cs = self->state.commands;
  if (!cs.reading && cs.applying == 0 && cs.again)
    read_commands(self);
}

/// What became of a command read: carried out (its checkpoint deleted
/// it), spent without a change (`refused`, a `repeat`: deleted here), or
/// not carried out now (its operation is between two actors: read again
/// soon).
struct apply_result {
  std::optional<command_outcome> dropped;
  bool later = false;
};

const apply_result carried{};
const apply_result not_now{std::nullopt, true};

/// Ends the carrying out of command `seq`.
void applied(dispatcher_ptr self, int64_t seq, apply_result res) {
  auto& st = self->state;
  if (res.later && !st.commands.retry_armed) {
    auto& delay = st.commands.retry_delay;
    delay = delay == duration::zero()
              ? std::chrono::duration_cast<duration>(read_again_first)
              : std::min(delay * 2, std::chrono::duration_cast<duration>(read_again_most));
    st.commands.retry_armed = true;
    send_in(self, delay, commands_poll_atom::value);
  }
  if (auto why = res.dropped) {
    self
      ->request(st.rt->reader(), caf::infinite, drop_command_atom::value, seq,
                static_cast<uint8_t>(*why))
      .then([](bool) {},
            [self, seq](caf::error& err) {
              // Kept: carried out again (refused again) by a later read.
              write_log(self->state.rt->cfg.log, log_level::warn,
                        "stored command " + std::to_string(seq)
                          + " was refused, but not deleted: " + message_of(err));
            });
  }
  --st.commands.applying;
  read_if_wanted(self);
}

/// A refusal by the operation's state (the command is spent); anything
/// else (the actor went away, the lease was lost, the store failed) leaves
/// the command for the next read.
apply_result refused_or_later(const caf::error& err) {
  if (code_of(err) == errc::invalid_state)
    return {command_outcome::refused};
  return not_now;
}

template <class T, class... Ts>
void ask(dispatcher_ptr self, const operation_actor& a, int64_t seq, const Ts&... xs) {
  self->request(a, caf::infinite, xs...)
    .then(
      [=](T& answer) {
        auto res = carried;
        if constexpr (std::is_same_v<T, signal_result>)
          if (answer.duplicate)
            res.dropped = command_outcome::repeat;
        applied(self, seq, res);
      },
      [=](caf::error& err) { applied(self, seq, refused_or_later(err)); });
}

void carry_out(dispatcher_ptr self, stored_command& cmd) {
  auto& st = self->state;
  ++st.commands.applying;
  auto id = cmd.operation_id;
  if (st.sleepers.contains(id))
    wake(self, id);
  auto absent = [self, seq = cmd.seq, id] {
    // No actor here: an operation that ended (the command is refused by
    // that) or is gone; else one this process has not resumed yet (the
    // command waits for the next read).
    self->request(self->state.rt->reader(), caf::infinite, load_atom::value, id)
      .then(
        [=](maybe_op& res) {
          bool spent = !res.err && (!res.value || is_terminal(res.value->state));
          applied(self, seq, spent ? apply_result{command_outcome::refused} : not_now);
        },
        [=](caf::error&) { applied(self, seq, not_now); });
  };
  auto forward = [self, cmd = std::move(cmd)](const operation_actor& a) {
    if (cmd.is_signal) {
      ask<signal_result>(self, a, cmd.seq, signal_atom::value,
                         signal_request{cmd.signal_name, cmd.payload, cmd.signal_id, cmd.by},
                         cmd.seq);
    } else if (auto req = stored_request(cmd, self->state.rt->cfg.secret_keys.get()))
      ask<operation>(self, a, cmd.seq, command_atom::value, *req, cmd.seq);
    else {
      // Its input patch cannot be opened here (a key this process lacks):
      // it can never be carried out here.
      write_log(self->state.rt->cfg.log, log_level::warn,
                "stored command " + std::to_string(cmd.seq) + " for operation " + cmd.operation_id
                  + " is refused: " + message_of(req.error()));
      applied(self, cmd.seq, apply_result{command_outcome::refused});
    }
  };
  route(self, id, forward, absent);
}

void read_commands(dispatcher_ptr self) {
  auto& st = self->state;
  st.commands.reading = true;
  st.commands.again = false;
  self
    ->request(st.rt->reader(), caf::infinite, take_commands_atom::value, st.rt->lease->owner(),
              read_limit)
    .then(
      [self](stored_commands& got) {
        auto& st = self->state;
        st.commands.reading = false;
        if (got.items.size() >= read_limit)
          st.commands.again = true;
        if (got.items.empty())
          st.commands.retry_delay = duration::zero();
        st.rt->stats.commands_read.fetch_add(got.items.size(), std::memory_order_relaxed);
        for (auto& cmd : got.items)
          carry_out(self, cmd);
        read_if_wanted(self);
      },
      [self](caf::error& err) {
        // The next tick (or notification) reads again.
        self->state.commands.reading = false;
        write_log(self->state.rt->cfg.log, log_level::warn,
                  "reading the commands stored for this process failed: " + message_of(err));
      });
}

} // namespace

void command_store_begins(dispatcher_ptr self) {
  ++self->state.commands.storing;
}

void command_store_ends(dispatcher_ptr self) {
  auto& cs = self->state.commands;
  if (--cs.storing == 0) {
    cs.early.clear();
    cs.early_order.clear();
  }
}

void await_command(dispatcher_ptr self, int64_t seq,
                   std::function<void(std::optional<command_outcome>)> fn) {
  auto& cs = self->state.commands;
  if (auto heard = take(cs.early, seq)) {
    fn(static_cast<command_outcome>(*heard));
    return;
  }
  cs.awaiting.emplace(seq, std::move(fn));
  send_in(self, self->state.rt->cfg.command_wait, command_due_atom::value, seq);
}

void on_command_done(dispatcher_ptr self, int64_t seq, uint8_t outcome) {
  auto& cs = self->state.commands;
  if (auto fn = take(cs.awaiting, seq)) {
    (*fn)(static_cast<command_outcome>(outcome));
    return;
  }
  // Mostly other processes' commands; while a store of ours is under way,
  // possibly its own, heard first: kept for a while.
  if (cs.storing == 0)
    return;
  cs.early.emplace(seq, outcome);
  cs.early_order.push_back(seq);
  while (cs.early_order.size() > dispatcher_state::early_outcomes_kept) {
    cs.early.erase(cs.early_order.front());
    cs.early_order.pop_front();
  }
}

void on_command_due(dispatcher_ptr self, int64_t seq) {
  if (auto fn = take(self->state.commands.awaiting, seq))
    (*fn)(std::nullopt);
}

void on_commands_poll(dispatcher_ptr self) {
  auto& st = self->state;
  st.commands.retry_armed = false;
  if (!st.rt->lease || st.stopping || st.recovering)
    return;
  st.commands.again = true;
  read_if_wanted(self);
}

} // namespace stepwise
