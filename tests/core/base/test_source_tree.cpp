// The source tree keeps its files and functions to a size a reader takes in: no C++ or CUDA
// file of the product (core, app, ui, cuda, bench) over 900 lines, no function over 120.
#include <catch2/catch.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

/// The product's C++ and CUDA sources.
std::vector<fs::path> productSources() {
  const fs::path root = QF_SOURCE_DIR;
  std::vector<fs::path> files;
  for (const char* dir : {"core", "app", "ui", "cuda", "bench"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& f : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = f.path().extension().string();
      if (f.is_regular_file() && (ext == ".cpp" || ext == ".hpp" || ext == ".cu" || ext == ".cuh"))
        files.push_back(f.path());
    }
  }
  return files;
}

/// `text` with comments, string and character literals and preprocessor lines blanked (line
/// breaks kept), so that braces and parentheses are the code's own.
std::string codeOnly(const std::string& text) {
  std::string out = text;
  enum class In { Code, Line, Block, Str, Chr, Raw } in = In::Code;
  std::string rawEnd;
  bool lineStart = true;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    const char next = i + 1 < out.size() ? out[i + 1] : '\0';
    auto blank = [&](std::size_t at) {
      if (at < out.size() && out[at] != '\n') out[at] = ' ';
    };
    switch (in) {
      case In::Code:
        if (lineStart && c == '#') {
          // A preprocessor line, with its continuations.
          // (The original text tells a continuation: its backslash is blanked already here.)
          while (i < out.size() && !(out[i] == '\n' && (i == 0 || text[i - 1] != '\\'))) blank(i++);
          lineStart = true;
          continue;
        }
        if (c == '/' && next == '/') {
          in = In::Line;
          blank(i);
        } else if (c == '/' && next == '*') {
          in = In::Block;
          blank(i);
        } else if (c == 'R' && next == '"' &&
                   (i == 0 || !std::isalnum(static_cast<unsigned char>(out[i - 1])) ||
                    out[i - 1] == 'L' || out[i - 1] == 'u' || out[i - 1] == 'U' ||
                    (i >= 2 && out[i - 1] == '8' && out[i - 2] == 'u'))) {
          const std::size_t open = out.find('(', i + 2);
          rawEnd = ")" + out.substr(i + 2, open - (i + 2)) + "\"";
          in = In::Raw;
          blank(i);
        } else if (c == '"') {
          in = In::Str;
          blank(i);
        } else if (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(out[i - 1])))) {
          in = In::Chr;  // not a digit separator (0x9E37'79B9)
          blank(i);
        }
        break;
      case In::Line:
        if (c == '\n') in = In::Code;
        blank(i);
        break;
      case In::Block:
        if (c == '*' && next == '/') {
          blank(i++);
          in = In::Code;
        }
        blank(i);
        break;
      case In::Str:
      case In::Chr:
        if (c == '\\') {
          blank(i++);
        } else if (c == (in == In::Str ? '"' : '\'')) {
          in = In::Code;
        }
        blank(i);
        break;
      case In::Raw:
        if (out.compare(i, rawEnd.size(), rawEnd) == 0) {
          for (std::size_t k = 0; k + 1 < rawEnd.size(); ++k) blank(i++);
          in = In::Code;
        }
        blank(i);
        break;
    }
    if (c == '\n') {
      lineStart = true;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      lineStart = false;
    }
  }
  return out;
}

/// A function definition's body, in lines from its declaration's first line to its closing
/// brace.
struct FunctionSpan {
  std::string head;  ///< the declaration, whitespace folded
  int firstLine = 0, lines = 0;
};

/// The functions (and lambdas outside any function) defined in `code` (codeOnly's text):
/// a brace whose declaration has a parameter list and is no control statement, outside any
/// other function; namespaces and classes are scopes, brace initialisers are not functions.
std::vector<FunctionSpan> functionsIn(const std::string& code) {
  // Init: a brace inside a declaration's head (a default argument's {}, a constructor's
  // member initialiser m_{x}), which the head goes on after.
  enum class Scope { Namespace, Class, Function, Other, Init };
  std::vector<Scope> scopes;
  std::vector<FunctionSpan> open, done;
  std::size_t headStart = 0;  // where the current declaration starts
  int line = 1;
  auto insideFunctionOrValue = [&] {
    for (Scope s : scopes)
      if (s == Scope::Function || s == Scope::Other) return true;
    return false;
  };
  auto lineAt = [&](std::size_t at) {
    int l = 1;
    for (std::size_t k = 0; k < at; ++k) l += code[k] == '\n';
    return l;
  };
  int parens = 0;  // open parentheses of the current head
  for (std::size_t i = 0; i < code.size(); ++i) {
    const char c = code[i];
    if (c == '\n') ++line;
    if (c == ';') {
      headStart = i + 1;
      if (!insideFunctionOrValue()) parens = 0;
    }
    if (!insideFunctionOrValue()) parens += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (c == '}' && !scopes.empty() && scopes.back() == Scope::Init) {
      scopes.pop_back();  // the head goes on
      continue;
    }
    if (c == '}') {
      parens = 0;
      if (!scopes.empty()) {
        if (scopes.back() == Scope::Function) {
          FunctionSpan f = open.back();
          open.pop_back();
          f.lines = line - f.firstLine + 1;
          done.push_back(f);
        }
        scopes.pop_back();
      }
      headStart = i + 1;
    }
    if (c != '{') continue;
    if (insideFunctionOrValue()) {
      scopes.push_back(Scope::Other);
      headStart = i + 1;
      continue;
    }
    if (!scopes.empty() && scopes.back() == Scope::Init) {
      scopes.push_back(Scope::Init);
      continue;
    }
    std::string head;
    for (std::size_t k = headStart; k < i; ++k) {
      const char h = code[k];
      if (std::isspace(static_cast<unsigned char>(h))) {
        if (!head.empty() && head.back() != ' ') head += ' ';
      } else {
        head += h;
      }
    }
    while (!head.empty() && head.back() == ' ') head.pop_back();
    // A label before the declaration ("public:", "private:") is no part of it.
    for (const char* label : {"public:", "private:", "protected:"})
      if (head.rfind(label, 0) == 0) head = head.substr(std::string(label).size());
    // Nor is a template head, whose "class T" names no class.
    std::string decl = head;
    if (decl.rfind("template", 0) == 0) {
      int depth = 0;
      for (std::size_t k = 0; k < decl.size(); ++k) {
        depth += decl[k] == '<' ? 1 : decl[k] == '>' ? -1 : 0;
        if (decl[k] == '>' && depth == 0) {
          decl = decl.substr(k + 1);
          break;
        }
      }
    }
    // A brace inside the parameters (a default argument) or after a member initialiser's name
    // (": m_{x}") belongs to the head.
    const char before = head.empty() ? ' ' : head.back();
    const bool initialiserList =
        decl.find(") :") != std::string::npos || decl.find("):") != std::string::npos;
    if (parens > 0 || (initialiserList && (std::isalnum(static_cast<unsigned char>(before)) ||
                                           before == '_' || before == '>'))) {
      scopes.push_back(Scope::Init);
      continue;
    }
    Scope kind = Scope::Other;
    const auto paren = decl.find('(');
    auto declHasWord = [&](const char* w) {
      std::istringstream words(decl);
      for (std::string t; words >> t;)
        if (t == w) return true;
      return false;
    };
    if (declHasWord("namespace") || decl == "extern") {
      kind = Scope::Namespace;
    } else if ((declHasWord("class") || declHasWord("struct") || declHasWord("union") ||
                declHasWord("enum")) &&
               (paren == std::string::npos || decl.find("class") < paren ||
                decl.find("struct") < paren)) {
      kind = Scope::Class;
    } else if (paren != std::string::npos && !decl.empty() && decl.back() != '=' &&
               decl.back() != ',') {
      kind = Scope::Function;
      std::size_t first = headStart;
      while (first < i && std::isspace(static_cast<unsigned char>(code[first]))) ++first;
      open.push_back({head.substr(0, 100), lineAt(first), 0});
    }
    scopes.push_back(kind);
    headStart = i + 1;
  }
  return done;
}

}  // namespace

TEST_CASE("no source file of the product is over 900 lines", "[source]") {
  const fs::path root = QF_SOURCE_DIR;
  std::vector<std::string> over;
  int files = 0;
  for (const fs::path& f : productSources()) {
    ++files;
    std::ifstream in(f);
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    if (lines > 900)
      over.push_back(fs::relative(f, root).string() + ": " + std::to_string(lines) + " lines");
  }
  CHECK(files > 100);  // the tree was found
  INFO("over 900 lines: " << [&] {
    std::string s;
    for (const auto& o : over) s += "\n  " + o;
    return s;
  }());
  CHECK(over.empty());
}

TEST_CASE("the function scanner finds definitions and their lengths", "[source]") {
  // Hand-made source: what the scanner must find, and what it must not take for a function.
  const std::string text =
      "// a comment with a brace {\n"                           // 1
      "#define BRACE {\n"                                       // 2
      "namespace qf {\n"                                        // 3
      "struct S {\n"                                            // 4
      "  int f(int x) const {\n"                                // 5
      "    if (x) { return 1; }\n"                              // 6
      "    return 0;\n"                                         // 7
      "  }\n"                                                   // 8
      "};\n"                                                    // 9
      "constexpr int kTable[] = {1, 2};\n"                      // 10
      "std::string g(const char* s = \"}{\") {\n"               // 11
      "  auto h = [](char c) { return c == '{'; };\n"           // 12
      "  return s;\n"                                           // 13
      "}\n"                                                     // 14
      "template <class T, class F>\n"                           // 15
      "T apply(T t, F f) {\n"                                   // 16
      "  return f(t);\n"                                        // 17
      "}\n"                                                     // 18
      "#define BLOCK(x) \\\n"                                   // 19
      "  do { x; \\\n"                                          // 20
      "  } while (0)\n"                                         // 21
      "S::S(int a, std::vector<int> v = {}) : a_{a}, b_{} {\n"  // 22
      "  v.clear();\n"                                          // 23
      "}\n"                                                     // 24
      "const char* r = u8R\"x(})x\";\n"                         // 25
      "}  // namespace qf\n";                                   // 26
  const auto found = functionsIn(codeOnly(text));
  REQUIRE(found.size() == 4);
  CHECK(found[0].firstLine == 5);
  CHECK(found[0].lines == 4);
  CHECK(found[0].head.find("int f(int x) const") != std::string::npos);
  CHECK(found[1].firstLine == 11);
  CHECK(found[1].lines == 4);
  // A template's "class T" names no class: the body is the function's.
  CHECK(found[2].firstLine == 15);
  CHECK(found[2].lines == 4);
  // A macro's continued lines are no code; a default argument's and a member initialiser's
  // braces belong to the head.
  CHECK(found[3].firstLine == 22);
  CHECK(found[3].lines == 3);
}

TEST_CASE("no function of the product is over 120 lines", "[source]") {
  const fs::path root = QF_SOURCE_DIR;
  std::vector<std::string> over;
  int functions = 0;
  for (const fs::path& f : productSources()) {
    std::ifstream in(f);
    std::stringstream text;
    text << in.rdbuf();
    for (const FunctionSpan& fn : functionsIn(codeOnly(text.str()))) {
      ++functions;
      if (fn.lines > 120) {
        over.push_back(fs::relative(f, root).string() + ":" + std::to_string(fn.firstLine) + ": " +
                       std::to_string(fn.lines) + " lines: " + fn.head);
      }
    }
  }
  CHECK(functions > 2000);  // the scanner found the tree's functions
  INFO("over 120 lines: " << [&] {
    std::string s;
    for (const auto& o : over) s += "\n  " + o;
    return s;
  }());
  CHECK(over.empty());
}
