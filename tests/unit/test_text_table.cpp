#include <gtest/gtest.h>

#include "core/text_table.h"
#include "core/units.h"

using namespace rooflens;

TEST(TextTable, AlignsClipsAndEscapes) {
  TextTable t;
  t.columns = {{"name", false, 6}, {"n", true}};
  t.rows = {{"short", "1"}, {"a_very_long_name", "1234"}, {"x|y,\"z\"", "5"}};
  std::string text = t.render();
  EXPECT_NE(text.find("short      1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("a_ver…  1234\n"), std::string::npos) << text;
  EXPECT_NE(t.csv().find("\"x|y,\"\"z\"\"\",5\n"), std::string::npos) << t.csv();
  EXPECT_NE(t.markdown().find("| x\\|y,\"z\" | 5 |"), std::string::npos) << t.markdown();
}

TEST(Units, HumanReadable) {
  EXPECT_EQ(si(4089184256.0), "4.09G");
  EXPECT_EQ(si(512), "512");
  EXPECT_EQ(si(1500), "1.50K");
  EXPECT_EQ(with_commas(25557032), "25,557,032");
  EXPECT_EQ(si_bytes(553433881.0), "553.43MB");
}
