// The creates of a step's children: ordinary creates, answered together
// in one message. (Counting the ends of a waiting parent's children and
// canceling those of a canceled parent: actors/children_keeper.cpp.)
#include <caf/send.hpp>

#include "actors/dispatcher.hpp"

namespace stepwise {

/// The creates of one step's children and their answers.
struct child_batch {
  children_started_receiver reply_to;
  children_started answer;
  size_t left = 0;
};

void fill_child(child_batch& batch, size_t slot, std::string id, caf::error err) {
  auto& c = batch.answer.children[slot];
  c.id = std::move(id);
  c.err = std::move(err);
  if (--batch.left == 0)
    caf::anon_send(batch.reply_to, std::move(batch.answer));
}

bool create_answer::takes_replay() {
  if (!batch_)
    return false;
  // The parent reads its children to find the ids of these: one read for
  // all of them, rather than one per child.
  batch_->answer.children[slot_].replayed = true;
  fill_child(*batch_, slot_, {}, caf::error{});
  return true;
}

void on_start_children(dispatcher_ptr self, children_start& req) {
  auto batch = std::make_shared<child_batch>();
  batch->reply_to = std::move(req.reply_to);
  batch->answer.seq = req.seq;
  batch->answer.children.resize(req.starts.size());
  batch->left = req.starts.size();
  if (req.starts.empty()) {
    caf::anon_send(batch->reply_to, std::move(batch->answer));
    return;
  }
  for (size_t i = 0; i < req.starts.size(); ++i) {
    auto& [key, start] = req.starts[i];
    batch->answer.children[i].key = key;
    create_answer answer{batch, i};
    if (auto err = begin_create(self, start, answer))
      answer.deliver(std::move(err));
  }
}

} // namespace stepwise
