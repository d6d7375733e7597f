#include "lab/runners/nvrtc/kernel_text_rules.h"

#include <cctype>

namespace lb::lab {
namespace {

// Why each construct is out: the student reads these.
constexpr const char* kTextDirective =
    "is not allowed in a kernel file: it is compiled alone, from its own text, and reads no other file "
    "(allowed: #define, #undef, #if, #ifdef, #ifndef, #elif, #else, #endif, #error, #warning, #line, "
    "#pragma unroll, #pragma nounroll)";
constexpr const char* kTextHasFile =
    "not allowed in a kernel file: it asks whether a file of the machine that compiles it exists";
constexpr const char* kTextHiddenPragma =
    "not allowed in a kernel file: it is a #pragma that the text does not show (only #pragma unroll and "
    "#pragma nounroll are allowed)";
constexpr const char* kTextPaste =
    "token pasting (##) is not allowed in a kernel file: it builds names (_Pragma, __has_include) that the "
    "text does not show";
constexpr const char* kTextUcn =
    "universal character names (\\u, \\U) outside a literal are not allowed in a kernel file: they spell names "
    "that the text does not show";
constexpr const char* kTextRawString = "raw string literals are not allowed in a kernel file (no kernel needs one)";
constexpr const char* kTextTrigraph = "trigraphs (?\?=, ?\?/, ...) are not allowed in a kernel file";

// What may follow `#pragma unroll`: nothing, or a constant expression of numbers, names,
// parentheses and arithmetic (`#pragma unroll 4`, `#pragma unroll (TILE / 2)`).
bool unroll_count(std::string_view rest) {
  for (const char c : rest)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ' ' || c == '\t' || c == '\r' ||
          std::string_view("()+-*/%<>'").find(c) != std::string_view::npos))
      return false;
  return true;
}

// `#pragma unroll [constant]` and `#pragma nounroll` pass: empty; any other, the line saying so.
std::string kernel_pragma(std::string_view rest) {
  std::size_t k = 0;
  while (k < rest.size() && (rest[k] == ' ' || rest[k] == '\t')) ++k;
  std::size_t end = k;
  while (end < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[end])) || rest[end] == '_')) ++end;
  const std::string_view name = rest.substr(k, end - k);
  const std::string_view after = rest.substr(end);
  if (name == "unroll" && unroll_count(after)) return "";
  if (name == "nounroll" && after.find_first_not_of(" \t\r") == std::string_view::npos) return "";
  if (name == "unroll")
    return "#pragma unroll takes only a constant (a number, a name, parentheses and arithmetic) in a kernel file";
  return "#pragma " + (name.empty() ? std::string() : std::string(name) + " ") +
         "is not allowed in a kernel file (only #pragma unroll, with an optional constant, and #pragma nounroll)";
}

}  // namespace

const SourceDialect& kernel_text_dialect() {
  static const SourceDialect dialect = [] {
    SourceDialect d;
    d.directives = {"define", "undef",    "if",   "ifdef", "ifndef", "elif",    "elifdef",
                    "elifndef", "else", "endif", "error", "warning", "line"};
    d.other_directive = kTextDirective;  // #include, #include_next, #import, #embed, #ident, ...
    d.pragma = kernel_pragma;
    for (const char* word : {"__has_include", "__has_include_next", "__has_embed"}) d.identifiers[word] = kTextHasFile;
    for (const char* word : {"_Pragma", "__pragma"}) d.identifiers[word] = kTextHiddenPragma;
    d.paste = kTextPaste;
    d.ucn = kTextUcn;
    d.raw_string = kTextRawString;
    d.trigraph = kTextTrigraph;
    d.where_the_rules_are = "(a kernel file is device code compiled alone: docs/labs.md, \"What grading guards against\")";
    return d;
  }();
  return dialect;
}

std::vector<RuleViolation> kernel_text_rule_violations(std::string_view text) {
  return rule_violations(text, kernel_text_dialect());
}

std::string kernel_text_rules_message(const std::filesystem::path& file, const std::vector<RuleViolation>& violations) {
  return rules_message(file, violations, kernel_text_dialect());
}

}  // namespace lb::lab
