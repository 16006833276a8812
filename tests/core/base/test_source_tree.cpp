// The source tree keeps its files to a size a reader takes in: no C++ or CUDA file of the
// product (core, app, ui, cuda, bench) over 900 lines.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

TEST_CASE("no source file of the product is over 900 lines", "[source]") {
  const fs::path root = QF_SOURCE_DIR;
  std::vector<std::string> over;
  int files = 0;
  for (const char* dir : {"core", "app", "ui", "cuda", "bench"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& f : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = f.path().extension().string();
      if (!f.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".cu" && ext != ".cuh"))
        continue;
      ++files;
      std::ifstream in(f.path());
      int lines = 0;
      for (std::string line; std::getline(in, line);) ++lines;
      if (lines > 900)
        over.push_back(fs::relative(f.path(), root).string() + ": " + std::to_string(lines) +
                       " lines");
    }
  }
  CHECK(files > 100);  // the tree was found
  INFO("over 900 lines: " << [&] {
    std::string s;
    for (const auto& o : over) s += "\n  " + o;
    return s;
  }());
  CHECK(over.empty());
}
