// Text helpers: what reaches a title, a table or a report is printable.
#include <catch2/catch.hpp>

#include <quantfront/core/base/text.hpp>

TEST_CASE("printableText drops control characters and terminal escapes", "[base][text]") {
  using qf::printableText;
  CHECK(printableText("Llama 3 review") == "Llama 3 review");
  CHECK(printableText("line one\nline two\r\n") == "line one line two");
  CHECK(printableText("\x1b[31mred\x1b[0m title") == "red title");
  CHECK(printableText("bell\x07\x07"
                      "and\x7f del") == "bell and del");
  CHECK(printableText(std::string("nul\0byte", 8)) == "nul byte");
  CHECK(printableText("  \t\n ") == "");
  CHECK(printableText("Qualität — 8 GPUs") == "Qualität — 8 GPUs");  // UTF-8 kept
}
