#include "actors/admission_keeper.hpp"

namespace stepwise {

admission_keeper_actor::behavior_type admission_keeper(admission_keeper_actor::pointer self,
                                                       runtime_ptr rt) {
  return {
    [=](admission_poll_atom) {
      rt->writer->request_admission();
      rt->clk->send_at(rt->clk->now() + rt->cfg.admission_poll, self, admission_poll_atom::value);
    },
  };
}

} // namespace stepwise
