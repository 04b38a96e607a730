#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/error.hpp>
#include <caf/typed_actor.hpp>

#include "engine/children.hpp"
#include "engine/requests.hpp"

/// The messages of child operations between operation actors, the
/// dispatcher and the readers (actors/README.md, "Children"). Every answer
/// is a message, never a response handler: a parent may start thousands of
/// children at once, and CAF 0.17 looks pending responses up linearly.
namespace stepwise {

/// Operation actor -> dispatcher: (start_children_atom, children_start),
/// the children a completed step asked for; answered with one
/// `children_started` once each is written (or its slot was taken).
using start_children_atom = caf::atom_constant<caf::atom("sw_kstart")>;
/// Operation actor -> dispatcher: (children_watch_atom, parent_id,
/// children_watch), a children wait (re)opens: the dispatcher counts the
/// parent's children that end from now on, and has a reader list them.
using children_watch_atom = caf::atom_constant<caf::atom("sw_kwatch")>;
/// Operation actor -> dispatcher: (children_arm_atom, parent_id, seq,
/// need, fail_fast): once `need` children ended since the watch opened
/// (or, with `fail_fast`, one that did not succeed), nudge the parent:
/// wake it if it sleeps.
using children_arm_atom = caf::atom_constant<caf::atom("sw_karm")>;
/// Operation actor -> dispatcher: (children_unwatch_atom, parent_id), the
/// parent left its children wait.
using children_unwatch_atom = caf::atom_constant<caf::atom("sw_kunwat")>;
/// Dispatcher (or the parent's own timer) -> operation actor:
/// (children_nudge_atom, seq), look at the children again.
using children_nudge_atom = caf::atom_constant<caf::atom("sw_knudge")>;
/// Notice pump -> children keeper: (child_ended_atom, parent, state, key),
/// a child ended in another process (engine/child_notice.hpp).
using child_ended_atom = caf::atom_constant<caf::atom("sw_kended")>;
/// -> reader: (children_atom, parent_id, seq, reply_to), list every child
/// of the parent; answered with a `children_read` to `reply_to`.
using children_atom = caf::atom_constant<caf::atom("sw_kread")>;

/// How the start of one child went: its id, its slot taken before (the
/// step ran again: the id is read from the store), or why it failed.
struct child_started {
  std::string key;
  std::string id;
  bool replayed = false;
  caf::error err;
};

/// Dispatcher -> operation actor: every child of a `children_start`.
struct children_started {
  uint64_t seq = 0;
  std::vector<child_started> children;
};

/// Reader -> whoever asked: the children of `parent_id` as stored now, or
/// why they could not be read.
struct children_read {
  std::string parent_id;
  uint64_t seq = 0;
  std::vector<child_summary> children;
  caf::error err;
};

using children_started_receiver = caf::typed_actor<caf::reacts_to<children_started>>;
using children_read_receiver = caf::typed_actor<caf::reacts_to<children_read>>;

/// The children a step of `parent_id` asked for: (key, request) each.
struct children_start {
  std::string parent_id;
  uint64_t seq = 0;
  std::vector<std::pair<std::string, start_request>> starts;
  children_started_receiver reply_to;
};

/// A children wait opens: what it watches, and where the reader's list goes.
struct children_watch {
  uint64_t seq = 0;
  /// Only children of this step count (empty: all).
  std::string of_step;
  children_read_receiver reply_to;
};

} // namespace stepwise

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::children_started)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::children_read)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::children_start)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::children_watch)
