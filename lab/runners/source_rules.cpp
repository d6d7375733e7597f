#include "lab/runners/source_rules.h"

#include <algorithm>
#include <cctype>

namespace lb::lab {
namespace {

// One character after line splicing (translation phase 2), with the line it came from.
struct Char {
  char c;
  int line;
};

std::vector<Char> spliced(std::string_view text) {
  std::vector<Char> out;
  out.reserve(text.size());
  int line = 1;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\\') {  // a backslash ending a line joins it to the next
      std::size_t j = i + 1;
      if (j < text.size() && text[j] == '\r') ++j;
      if (j < text.size() && text[j] == '\n') {
        ++line;
        i = j + 1;
        continue;
      }
    }
    out.push_back({text[i], line});
    if (text[i] == '\n') ++line;
    ++i;
  }
  return out;
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); }
bool ident_char(char c) { return ident_start(c) || std::isdigit(static_cast<unsigned char>(c)); }
bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Reads the spliced text token by token, as far as the rules need: comments, literals, numbers,
// identifiers, directives and the few punctuators that matter.
class Scanner {
 public:
  Scanner(std::string_view text, const SourceDialect& dialect) : s_(spliced(text)), dialect_(dialect) {}

  std::vector<RuleViolation> run() {
    bool line_start = true;  // only blanks and comments since the last newline: a # here is a directive
    while (i_ < s_.size()) {
      const char c = at(i_);
      if (c == '\n') {
        line_start = true;
        ++i_;
      } else if (blank(c)) {
        ++i_;
      } else if (c == '/' && (at(i_ + 1) == '/' || at(i_ + 1) == '*')) {
        i_ = after_comment(i_);
      } else if (const std::size_t hash = hash_length(i_)) {
        const std::size_t next = i_ + hash;
        if (const std::size_t second = hash_length(next)) {
          if (!dialect_.paste.empty()) flag(i_, dialect_.paste);
          i_ = next + second;
        } else {
          i_ = line_start ? directive(i_, next) : next;
        }
        line_start = false;
      } else {
        line_start = false;
        token(c);
      }
    }
    return std::move(out_);
  }

 private:
  char at(std::size_t k) const { return k < s_.size() ? s_[k].c : '\0'; }
  void flag(std::size_t k, std::string what) {
    out_.push_back({k < s_.size() ? s_[k].line : (s_.empty() ? 1 : s_.back().line), std::move(what)});
  }
  // '#' or the digraph '%:'; 0 when neither starts at k.
  std::size_t hash_length(std::size_t k) const {
    if (at(k) == '#') return 1;
    return at(k) == '%' && at(k + 1) == ':' ? 2 : 0;
  }
  std::size_t after_comment(std::size_t k) const {
    if (at(k + 1) == '/') {
      while (k < s_.size() && at(k) != '\n') ++k;
      return k;
    }
    for (k += 2; k < s_.size(); ++k)
      if (at(k) == '*' && at(k + 1) == '/') return k + 2;
    return s_.size();
  }
  // Blanks and comments (and newlines when `newlines`), from k.
  std::size_t skip_blank(std::size_t k, bool newlines) const {
    while (k < s_.size()) {
      if (blank(at(k)) || (newlines && at(k) == '\n')) ++k;
      else if (at(k) == '/' && (at(k + 1) == '/' || at(k + 1) == '*')) k = after_comment(k);
      else break;
    }
    return k;
  }
  std::size_t after_quoted(std::size_t k) const {
    const char quote = at(k);
    for (++k; k < s_.size(); ++k) {
      if (at(k) == '\\') ++k;
      else if (at(k) == quote) return k + 1;
      else if (at(k) == '\n') return k;  // unterminated: the compiler says so
    }
    return s_.size();
  }
  std::size_t after_number(std::size_t k) const {
    for (++k; k < s_.size(); ++k) {
      const char c = at(k);
      if (ident_char(c) || c == '.') continue;
      if (c == '\'' && ident_char(at(k + 1))) continue;  // a digit separator: 1'000'000
      if ((c == '+' || c == '-') && std::string_view("eEpP").find(at(k - 1)) != std::string_view::npos) continue;
      break;
    }
    return k;
  }
  // A raw string R"delim(...)delim", from its opening quote at k.
  std::size_t after_raw_string(std::size_t k) const {
    std::string closing = ")";
    for (++k; k < s_.size() && at(k) != '(' && at(k) != '\n' && closing.size() <= 17; ++k) closing += at(k);
    closing += '"';
    for (++k; k + closing.size() <= s_.size(); ++k) {
      bool match = true;
      for (std::size_t m = 0; m < closing.size() && match; ++m) match = at(k + m) == closing[m];
      if (match) return k + closing.size();
    }
    return s_.size();
  }

  void token(char c) {
    if (c == '"' || c == '\'') {
      i_ = after_quoted(i_);
    } else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(at(i_ + 1))))) {
      i_ = after_number(i_);
    } else if (c == '\\' && (at(i_ + 1) == 'u' || at(i_ + 1) == 'U')) {
      if (!dialect_.ucn.empty()) flag(i_, dialect_.ucn);
      i_ += 2;
    } else if (ident_start(c)) {
      identifier();
    } else if (c == '[' || (c == '<' && at(i_ + 1) == ':')) {  // '<:' is the digraph of '['
      const std::size_t width = c == '[' ? 1 : 2;
      const std::size_t k = skip_blank(i_ + width, true);
      if ((at(k) == '[' || (at(k) == '<' && at(k + 1) == ':')) && !dialect_.attribute.empty())
        flag(i_, "[[...]] " + dialect_.attribute);
      i_ += width;
    } else {
      ++i_;
    }
  }

  void identifier() {
    const std::size_t start = i_;
    std::string word;
    while (i_ < s_.size() && ident_char(at(i_))) word += at(i_++);
    if (at(i_) == '"' && (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR")) {
      if (!dialect_.raw_string.empty()) flag(start, dialect_.raw_string);
      i_ = after_raw_string(i_);
      return;
    }
    if (const auto out = dialect_.identifiers.find(word); out != dialect_.identifiers.end()) {
      flag(start, word + ": " + out->second);
    } else if (word == "extern" && !dialect_.extern_not_c.empty()) {
      const std::size_t k = skip_blank(i_, true);
      if (!(at(k) == '"' && at(k + 1) == 'C' && at(k + 2) == '"')) flag(start, dialect_.extern_not_c);
    } else {
      for (const auto& [prefix, why] : dialect_.identifier_prefixes)
        if (word.starts_with(prefix)) {
          flag(start, word + ": " + why);
          break;
        }
    }
  }

  // A directive whose '#' is at `hash` and whose name may start at `next`; returns where scanning
  // goes on (the rest of the line is code to the rules: a #define's body too).
  std::size_t directive(std::size_t hash, std::size_t next) {
    std::size_t k = skip_blank(next, false);
    if (at(k) == '\n' || k >= s_.size()) return k;  // the null directive
    if (std::isdigit(static_cast<unsigned char>(at(k)))) {  // a line marker (# 12 "file"), as #line
      if (!dialect_.line_marker.empty()) flag(hash, dialect_.line_marker);
      return k;
    }
    if (!ident_start(at(k))) return k;  // not a directive the compiler knows: it says so
    std::string name;
    while (k < s_.size() && ident_char(at(k))) name += at(k++);
    if (name == "include" && !dialect_.headers.empty()) return include(hash, k);
    if (name == "pragma" && dialect_.pragma) {
      if (std::string why = dialect_.pragma(rest_of_line(k)); !why.empty()) flag(hash, std::move(why));
    } else if (!dialect_.directives.contains(name)) {
      flag(hash, "#" + name + " " + dialect_.other_directive);
    }
    return k;  // the rest of the line is code to the rules
  }

  // The directive's words from k to the end of its line, comments as one blank each.
  std::string rest_of_line(std::size_t k) const {
    std::string rest;
    while (k < s_.size() && at(k) != '\n') {
      if (at(k) == '/' && (at(k + 1) == '/' || at(k + 1) == '*')) {
        k = after_comment(k);
        rest += ' ';
      } else {
        rest += at(k++);
      }
    }
    return rest;
  }

  std::size_t include(std::size_t hash, std::size_t k) {
    k = skip_blank(k, false);
    if (at(k) == '<') {
      std::string header;
      std::size_t end = k + 1;
      while (end < s_.size() && at(end) != '>' && at(end) != '\n') header += at(end++);
      if (at(end) == '>') {
        if (!dialect_.headers.contains(header))
          flag(hash, "#include <" + header + ">: " + dialect_.include_refused);
        return end + 1;
      }
    }
    flag(hash, dialect_.include_other);
    while (k < s_.size() && at(k) != '\n') ++k;
    return k;
  }

  std::vector<Char> s_;
  const SourceDialect& dialect_;
  std::size_t i_ = 0;
  std::vector<RuleViolation> out_;
};

// Trigraphs are read on the text before anything else (phase 1, where a compiler still replaces
// them), so one in a comment or a literal could change where the compiler's comment or string ends.
std::vector<RuleViolation> trigraphs(std::string_view text, const std::string& why) {
  std::vector<RuleViolation> out;
  int line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') ++line;
    if (text[i] == '?' && i + 2 < text.size() && text[i + 1] == '?' &&
        std::string_view("=/'()!<>-").find(text[i + 2]) != std::string_view::npos)
      out.push_back({line, why});
  }
  return out;
}

}  // namespace

std::vector<RuleViolation> rule_violations(std::string_view text, const SourceDialect& dialect) {
  std::vector<RuleViolation> out;
  if (!dialect.trigraph.empty()) out = trigraphs(text, dialect.trigraph);
  for (RuleViolation& v : Scanner(text, dialect).run()) out.push_back(std::move(v));
  std::stable_sort(out.begin(), out.end(), [](const RuleViolation& a, const RuleViolation& b) { return a.line < b.line; });
  return out;
}

std::string rules_message(const std::filesystem::path& file, const std::vector<RuleViolation>& violations,
                          const SourceDialect& dialect) {
  if (violations.empty()) return "";
  constexpr std::size_t kMaxLines = 20;
  std::string text;
  for (std::size_t i = 0; i < violations.size() && i < kMaxLines; ++i)
    text += file.string() + ":" + std::to_string(violations[i].line) + ": " + violations[i].what + "\n";
  if (violations.size() > kMaxLines) text += "... and " + std::to_string(violations.size() - kMaxLines) + " more\n";
  return text + dialect.where_the_rules_are;
}

}  // namespace lb::lab
