// Where the bundled files come from: compiled in for a build tree, the installed data folder
// for PREFIX/bin/NAME, QUANTFRONT_DATA_DIR over both; a broken install is named.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <quantfront/core/base/resources.hpp>

namespace fs = std::filesystem;

namespace {

/// Sets QUANTFRONT_DATA_DIR for one test and restores it.
struct DataDirEnv {
  explicit DataDirEnv(const std::string& dir) { ::setenv(qf::kDataDirEnv, dir.c_str(), 1); }
  ~DataDirEnv() { ::unsetenv(qf::kDataDirEnv); }
  DataDirEnv(const DataDirEnv&) = delete;
  DataDirEnv& operator=(const DataDirEnv&) = delete;
};

fs::path freshDir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("qf-resources-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// A complete data folder: every compiled-in file written out.
void writeAll(const fs::path& dir) {
  for (const auto& f : qf::embedded::files()) {
    fs::create_directories((dir / f.path).parent_path());
    std::ofstream(dir / f.path, std::ios::binary).write(f.data, static_cast<long>(f.sizeBytes));
  }
}

}  // namespace

TEST_CASE("an installed program reads PREFIX/share/quantfront, a build tree its compiled copy") {
  const auto installed = qf::resourceLocationFor("/opt/qf/bin/qfront", std::nullopt);
  CHECK(installed.dir == "/opt/qf/share/quantfront");
  CHECK(installed.reason == "the program is installed as /opt/qf/bin/qfront");
  CHECK(qf::resourceLocationFor("/usr/bin/quantfront", std::nullopt).dir ==
        "/usr/share/quantfront");
  // The build tree: build/app/qfront, build/tests/qf_tests.
  CHECK(qf::resourceLocationFor("/src/build/app/qfront", std::nullopt).dir.empty());
  CHECK(qf::resourceLocationFor("/src/build/tests/qf_tests", std::nullopt).dir.empty());
  CHECK(qf::resourceLocationFor("", std::nullopt).dir.empty());
  // The variable wins over both; an empty one is no setting.
  const auto env = qf::resourceLocationFor("/usr/bin/qfront", std::string("/data/qf"));
  CHECK(env.dir == "/data/qf");
  CHECK(env.reason == "QUANTFRONT_DATA_DIR");
  CHECK(qf::resourceLocationFor("/usr/bin/qfront", std::string()).dir == "/usr/share/quantfront");
  // This test binary lives in a build tree: nothing to be missing.
  CHECK_FALSE(qf::missingResource());
  REQUIRE(qf::bundledFile("catalog/gpus.json"));
}

TEST_CASE("a data folder's files are read instead of the compiled-in ones, and its models listed") {
  const fs::path dir = freshDir("override");
  writeAll(dir);
  // A site's edit of the installed catalog, and a model config it added.
  std::ofstream(dir / "catalog/use_cases.json") << R"({"edited": true})";
  std::ofstream(dir / "catalog/models/site-model.json") << "{}";
  const DataDirEnv env(dir.string());
  CHECK_FALSE(qf::missingResource());
  const auto text = qf::bundledFile("catalog/use_cases.json");
  REQUIRE(text);
  CHECK(*text == R"({"edited": true})");
  const auto models = qf::bundledFilesUnder("catalog/models/");
  CHECK(std::find(models.begin(), models.end(), "catalog/models/site-model.json") != models.end());
  CHECK(models.size() == qf::bundledFilesUnder("catalog/models/").size());
  CHECK_FALSE(qf::bundledFile("catalog/no-such-file.json"));
  fs::remove_all(dir);
}

TEST_CASE("a broken install names the missing file, the folder and why that folder") {
  const fs::path dir = freshDir("broken");
  writeAll(dir);
  fs::remove(dir / "catalog/schemes.json");
  {
    const DataDirEnv env(dir.string());
    const auto missing = qf::missingResource();
    REQUIRE(missing);
    CHECK_THAT(*missing, Catch::Contains((dir / "catalog/schemes.json").string()));
    CHECK_THAT(*missing, Catch::Contains("missing from the data folder " + dir.string()));
    CHECK_THAT(*missing, Catch::Contains("QUANTFRONT_DATA_DIR"));
  }
  {
    const DataDirEnv env((dir / "nowhere").string());
    const auto missing = qf::missingResource();
    REQUIRE(missing);
    CHECK_THAT(*missing,
               Catch::StartsWith((dir / "nowhere").string() + ": the data folder is missing"));
  }
  fs::remove_all(dir);
}
