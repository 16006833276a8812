// SHA-256 against the FIPS 180-4 / NIST example vectors, and the streamed file digest.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>

#include <quantfront/core/base/hash.hpp>

using namespace qf;

TEST_CASE("sha256 of the standard test vectors", "[hash]") {
  CHECK(sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // The 448-bit message: padding spills into a second block.
  CHECK(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // The 896-bit message.
  CHECK(sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                  "klmnopqrlmnopqrsmnopqrstnopqrstu") ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  // One million 'a'.
  CHECK(sha256Hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("the portable SHA-256 gives the standard vectors whatever backend the build uses",
          "[hash]") {
  // A build without OpenSSL's headers (cuda/'s standalone build on a bare GPU box) hashes with
  // this implementation; a build with them still checks it here.
  const std::pair<std::string, const char*> vectors[] = {
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
       "klmnopqrlmnopqrsmnopqrstnopqrstu",
       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
      {std::string(1000000, 'a'),
       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
      {std::string(55, 'a'), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {std::string(56, 'a'), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {std::string(64, 'a'), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
  };
  for (const auto& [bytes, digest] : vectors) {
    INFO(bytes.size() << " bytes");
    CHECK(detail::sha256HexPortable(bytes) == digest);
  }
  // Every length across three blocks agrees with the build's backend.
  std::string bytes;
  for (int n = 0; n < 200; ++n) {
    CHECK(detail::sha256HexPortable(bytes) == sha256Hex(bytes));
    bytes.push_back(static_cast<char>((n * 37 + 11) & 0xff));
  }
  const std::string backend = sha256Backend();
  CHECK((backend == "openssl" || backend == "portable"));
}

TEST_CASE("sha256 at the padding boundaries matches for 55, 56 and 64 bytes", "[hash]") {
  // 55 bytes: length fits in the same block; 56: it does not; 64: exactly one block of data.
  CHECK(sha256Hex(std::string(55, 'a')) ==
        "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  CHECK(sha256Hex(std::string(56, 'a')) ==
        "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  CHECK(sha256Hex(std::string(64, 'a')) ==
        "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST_CASE("sha256File streams a file and agrees with sha256Hex", "[hash]") {
  const auto dir = std::filesystem::temp_directory_path() / "qf_test_hash";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "data.bin").string();
  // Longer than the 64 KiB read buffer and not a multiple of 64 bytes.
  std::string content;
  for (int i = 0; i < 70001; ++i) content.push_back(static_cast<char>((i * 131 + 7) & 0xff));
  {
    std::ofstream out(path, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
  }
  const auto digest = sha256File(path);
  REQUIRE(digest.has_value());
  CHECK(*digest == sha256Hex(content));
  CHECK(digest->size() == 64);

  std::ofstream(dir / "abc.txt", std::ios::binary) << "abc";
  CHECK(sha256File((dir / "abc.txt").string()) ==
        std::optional<std::string>(
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));

  CHECK_FALSE(sha256File((dir / "missing.bin").string()).has_value());
  CHECK_FALSE(sha256File(dir.string()).has_value());  // a directory is not a file
  std::filesystem::remove_all(dir);
}

TEST_CASE("a file streamed in chunks hashes as its bytes do", "[hash]") {
  // 200,000 bytes: the file is read in 64 KiB chunks, so updates split mid-block.
  std::string bytes;
  for (int i = 0; i < 200000; ++i) bytes.push_back(static_cast<char>((i * 7919 + 13) & 0xff));
  const auto dir = std::filesystem::temp_directory_path() / "qf_hash_chunks";
  std::filesystem::create_directories(dir);
  const auto file = dir / "bytes.bin";
  std::ofstream(file, std::ios::binary) << bytes;
  CHECK(sha256File(file.string()) == std::optional<std::string>(sha256Hex(bytes)));
  CHECK(sha256Hex(bytes) != sha256Hex(bytes.substr(1)));
  std::filesystem::remove_all(dir);
}
