#pragma once

#include <caf/typed_event_based_actor.hpp>

#include "actors/protocols.hpp"
#include "actors/runtime.hpp"

namespace stepwise {

/// The admission keeper. Operations of workflows with a serialization key
/// or a limit are created queued; the store's admission rounds (run by the
/// commit writer, one at a time across processes) decide which may start.
/// Anything that frees or takes a slot asks for a round at once
/// (`commit_writer::request_admission`, which coalesces); the keeper asks
/// for one now and then besides (`engine_config::admission_poll`): another
/// process may have admitted one of ours, or one was between two actors
/// when its round came. The rounds go to the dispatcher, which starts the
/// admitted operations it drives, answers the creates that waited for a
/// round and keeps each workflow's figures (for /metrics).
///
/// Spawned by `launch_runtime` when any workflow takes part in admission,
/// or once one does (`start_admission_keeper`); its first
/// `admission_poll_atom` starts the polls.
inline admission_keeper_actor::behavior_type admission_keeper(admission_keeper_actor::pointer self,
                                                              runtime_ptr rt) {
  return {
    [=](admission_poll_atom) {
      rt->writer->request_admission();
      rt->clk->send_at(rt->clk->now() + rt->cfg.admission_poll, self, admission_poll_atom::value);
    },
  };
}

/// Spawns the admission keeper unless one runs (a workflow defined as data
/// may be the first to take part, while the engine runs).
inline void start_admission_keeper(caf::actor_system& sys, const runtime_ptr& rt) {
  std::lock_guard<std::mutex> guard{rt->admission_mtx};
  if (rt->admission)
    return;
  rt->admission = sys.spawn(admission_keeper, rt);
  caf::anon_send(rt->admission, admission_poll_atom::value);
}

} // namespace stepwise
