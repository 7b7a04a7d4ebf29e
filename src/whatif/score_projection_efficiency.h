#pragma once
// What `score --project` knows about efficiency (docs/score.md, "Projected scores"). A measured score decomposes
// every figure as roof ratio × efficiency, the efficiency being how much of its roofs the runtime reached on that
// machine against the reference's share. That share depends on which kernels run, and on x86 ONNX Runtime's kernels
// differ by CPU class (hw::isa_class: fp32 by vector width, int8 by VNNI): so a projection onto a machine of a class
// takes each figure's efficiency from measured scores of that class stored in the results database —
//   the figure's own efficiency (workload × metric), else its category's, as a geometric mean within each machine
//   and then across machines; 1 (the reference's, assumed) when no stored score of the class has it.
// Never from the run a projection predicts: a stored score of the target machine in the projection's own suite and
// mode is left out (its quick score may teach its full projection: a separate, shorter run).
#include <string>
#include <vector>

#include "core/score.h"

namespace rooflens {

struct EfficiencyEvidence {
  std::string machine;             // the stored score's machine fingerprint id (core/history.h)
  ScoreResult result;              // a stored score (only measured ones teach)
};

// Who the projection is for.
struct EfficiencyTarget {
  std::string suite;               // the projection's suite version (evidence of other suites never teaches)
  bool quick = false;              // the projection's mode
  std::string isa_class;           // hw::isa_class of the target CPU; "" (a datasheet device): nothing is learned
  std::string machine;             // the target machine's fingerprint id ("" for a datasheet device)
};

struct LearnedEfficiency {
  double factor = 1;
  bool learned = false;
  std::string source;              // "2 measured scores of avx2 machines (AMD EPYC 7551 full, ...)" or why assumed
};

class EfficiencyTable {
 public:
  EfficiencyTable(const std::vector<EfficiencyEvidence>& stored, const EfficiencyTarget& target);

  // The efficiency of one figure of the suite.
  LearnedEfficiency of(const std::string& workload, const std::string& metric, const std::string& category) const;

  // One line: what efficiencies were learned from ("learned from 2 measured scores of avx2 machines: ...", or
  // "assumed equal to the reference's: no stored measured score of an avx2 machine").
  std::string summary() const;

  size_t evidence() const { return kept_.size(); }

 private:
  // The geometric mean, within each machine and then across machines, of what `pick` reads from each kept score
  // (a value <= 0: that score does not have it). 0 when none has it.
  template <class Pick>
  double learn(Pick pick) const;
  std::string sources() const;

  EfficiencyTarget target_;
  std::vector<const EfficiencyEvidence*> kept_;
};

// The ISA class of a machine (hw::isa_class of its recorded features; "other" when they do not parse).
std::string isa_class_of(const MachineDesc& m);

}  // namespace rooflens
