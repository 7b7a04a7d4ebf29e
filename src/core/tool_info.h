#pragma once
// Who wrote a file: rooflens' name, version and command line, the commit it was built from and the libraries it
// linked. Every file rooflens writes carries it (the report, bench results, score results), so it lives apart from
// the report it is one section of.
#include <string>
#include <vector>

namespace rooflens {

struct Component {                // a library or runtime rooflens used, and its version
  std::string name, version;
};

struct ToolInfo {
  std::string name = "rooflens";
  std::string version;
  std::string command;
  // Written only when known (reports before them round-trip unchanged): the commit rooflens was built from and the
  // libraries it linked (core/build_info.h).
  std::string commit;
  std::vector<Component> built_with;
};

}  // namespace rooflens
