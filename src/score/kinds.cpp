#include "core/errors.h"
#include "score/kind.h"
#include "score/kinds_list.h"

namespace rooflens::score {

const WorkloadKind& kind_of(const std::string& name) {
  // One line per kind.
  if (name == "served") return served_kind();
  if (name == "decoder") return decoder_kind();
  throw UserError("score: no workload kind '" + name + "' (known: served, decoder)");
}

}  // namespace rooflens::score
