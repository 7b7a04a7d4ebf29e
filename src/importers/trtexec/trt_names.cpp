#include "importers/trtexec/trt_names.h"

#include <cctype>

namespace rooflens::importers::trt {
namespace {

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }
bool ends_with(const std::string& s, const std::string& p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

// Splits at `sep` where no bracket is open. Depth is capped so hostile names cannot cost more than a scan.
std::vector<std::string> split_top(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    else if (depth == 0 && s.compare(i, sep.size(), sep) == 0) {
      out.push_back(s.substr(start, i - start));
      start = i + sep.size();
      i = start - 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

// Position after the digits at `i` (i itself when there are none). No std::regex here: libstdc++'s recursion
// per character overflows the stack on long hostile names.
size_t skip_digits(const std::string& s, size_t i) {
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

// Strips "<prefix><digits>" at the end of s; true when it did.
bool strip_numbered(std::string& s, const std::string& prefix) {
  size_t e = s.size();
  size_t b = e;
  while (b > 0 && std::isdigit(static_cast<unsigned char>(s[b - 1]))) --b;
  if (b == e || b < prefix.size() || s.compare(b - prefix.size(), prefix.size(), prefix) != 0) return false;
  s.resize(b - prefix.size());
  return true;
}

// TensorRT's suffixes on the user's names: " [profile N]", "_mylN_M", "_quantize_scale_node".
std::string undo_suffixes(std::string s) {
  if (ends_with(s, "]")) {
    size_t open = s.rfind(" [profile ");
    if (open != std::string::npos && skip_digits(s, open + 10) == s.size() - 1 && open + 10 < s.size() - 1) s.resize(open);
  }
  std::string t = s;
  if (strip_numbered(t, "_") && strip_numbered(t, "_myl")) s = t;
  for (const char* q : {"_quantize_scale_node", "_dequantize_scale_node"})
    if (ends_with(s, q)) s.resize(s.size() - std::char_traits<char>::length(q));
  return s;
}

// The layer a reformatter or copy serves ("Reformatting CopyNode for Input Tensor 0 to X" -> X), else "".
std::string served(const std::string& name) {
  for (const char* lead : {"Reformatting CopyNode for Input Tensor ", "Reformatting CopyNode for Output Tensor "}) {
    std::string p = lead;
    if (!starts_with(name, p)) continue;
    size_t d = skip_digits(name, p.size());
    if (d > p.size() && name.compare(d, 4, " to ") == 0 && d + 4 < name.size()) return name.substr(d + 4);
  }
  for (const char* dir : {" input reformatter ", " output reformatter "}) {
    size_t at = name.rfind(dir);
    size_t n = std::char_traits<char>::length(dir);
    if (at != std::string::npos && at > 0 && at + n < name.size() && skip_digits(name, at + n) == name.size())
      return name.substr(0, at);
  }
  if (ends_with(name, " copy") && name.size() > 5) return name.substr(0, name.size() - 5);
  return "";
}

void collect(const std::string& raw, std::vector<std::string>& out, int depth) {
  std::string s = raw;
  while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  if (s.empty() || depth > 32) return;
  if (starts_with(s, "{ForeignNode[") && ends_with(s, "]}")) {
    out.push_back(s.substr(13, s.size() - 15));  // "first...last" (or one name)
    return;
  }
  if (starts_with(s, "PWN(") && ends_with(s, ")")) {
    for (const auto& p : split_top(s.substr(4, s.size() - 5), ",")) collect(p, out, depth + 1);
    return;
  }
  if (s.front() == '{' && s.back() == '}') {  // a DLA subgraph "{a,b,c}"
    for (const auto& p : split_top(s.substr(1, s.size() - 2), ",")) collect(p, out, depth + 1);
    return;
  }
  std::vector<std::string> plus = split_top(s, " + ");
  if (plus.size() > 1) {
    for (const auto& p : plus) collect(p, out, depth + 1);
    return;
  }
  if (starts_with(s, "(Unnamed Layer*")) return;  // TensorRT's own layers name no user node
  out.push_back(undo_suffixes(s));
}

class TrtMappingRules : public MappingRules {
 public:
  // A reformatter is named after the layer it serves, whose last part is the node it carries a tensor for;
  // other layers after their parts (the last is where the fused layer ends).
  std::vector<std::string> name_candidates(const std::string& name) const override {
    std::string target = served(name);
    std::vector<std::string> parts = name_parts(target.empty() ? name : target);
    std::vector<std::string> out{name};
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      size_t dots = it->find("...");
      out.push_back(dots == std::string::npos ? *it : it->substr(dots + 3));
    }
    return out;
  }

  NamedNodes nodes_in_name(const std::string& name) const override {
    NamedNodes n;
    if (!served(name).empty()) return n;
    for (const auto& p : name_parts(name)) {
      size_t dots = p.find("...");
      if (dots == std::string::npos) n.nodes.push_back(p);
      else n.spans.emplace_back(p.substr(0, dots), p.substr(dots + 3));
    }
    return n;
  }
};

}  // namespace

std::vector<std::string> name_parts(const std::string& layer_name) {
  std::vector<std::string> out;
  collect(layer_name, out, 0);
  return out;
}

std::string inserted_for(const std::string& name) {
  if (ends_with(name, " copy")) return "copy";
  return served(name).empty() ? "" : "reformat";
}

const MappingRules& mapping_rules() {
  static const TrtMappingRules rules;
  return rules;
}

}  // namespace rooflens::importers::trt
