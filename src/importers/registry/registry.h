#pragma once
// The importers rooflens knows, one line each in registry.cpp, and how files find theirs.
#include <string>
#include <vector>

#include "importers/importer.h"

namespace rooflens::importers {

const std::vector<const Importer*>& all_importers();

// By FORMAT name; UsageError listing the formats otherwise.
const Importer& find_importer(const std::string& format);

// The one importer every file belongs to, from the files' content (FORMAT auto). UserError naming the file that
// no importer recognises, or the two files that belong to different formats.
const Importer& detect_importer(const std::vector<InputFile>& files);

}  // namespace rooflens::importers
