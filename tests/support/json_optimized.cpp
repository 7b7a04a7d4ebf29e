// nlohmann::json's parser and serializer for the tests, compiled at -O1 (the sanitizer build only: tests/CMakeLists.txt).
//
// The tests' own files compile at -O0, and a template both they and src/ instantiate is linked from whichever object
// comes first on the link line — a test's. So every report a test read was parsed by -O0 code, character by character
// through non-inlined calls: 77% of integration_tests' own CPU time in the corpus roofline test, and what src/'s code
// parsed inside the unit tests too. These explicit instantiations come first on both test programs' link lines, so
// their copies are the ones linked. (The ordered_json variants src/ writes reports with saved 3% of the unit tests and
// cost 5 s more compile here: left out.)
#include <nlohmann/json.hpp>

#include <string>

namespace nd = nlohmann::detail;
using StringInput = nd::iterator_input_adapter<std::string::const_iterator>;  // what json::parse(std::string) reads

template class nd::lexer<nlohmann::json, StringInput>;
template class nd::parser<nlohmann::json, StringInput>;
template class nd::json_sax_dom_parser<nlohmann::json>;
template class nd::json_sax_dom_callback_parser<nlohmann::json>;
template class nd::serializer<nlohmann::json>;
