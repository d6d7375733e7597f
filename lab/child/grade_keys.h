// The keys a grade's inputs are drawn from, each derived from the grade's secret by a keyed one-way
// function (HMAC-SHA256, OpenSSL's), so that a kernel that recovers one key from the values it read
// (a float shows 25 of a draw's 64 bits; every step of random_draw.h's mix is invertible) learns
// nothing about any other key, nor the secret (docs/labs.md, "What grading guards against").
//
// The secret stays in the parent: it derives the keys a child's mode needs and hands them to the
// child on its standard input (never its argv or environment, which any code in the child can read
// from /proc), which the child reads to its end before it loads the student's code.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lb::lab {

struct LabSpec;
enum class ChildMode;  // lab/child/child_mode.h

// HMAC-SHA256 of `message` under the 8 bytes of `key`, its first 8 bytes as a number.
std::uint64_t keyed_hash(std::uint64_t key, std::string_view message);

struct GradeKeys {
  std::vector<std::uint64_t> check;    // one per check size, in lab.json's order (check mode)
  std::vector<std::uint64_t> judge;    // one per benchmark size: its untimed first run, ours beside it
  std::vector<std::uint64_t> samples;  // one per benchmark size: what its timed samples' keys derive from

  // The parent: the keys `mode` uses (check: check; time: judge and samples; profile: the first
  // benchmark size's judge), from the grade's secret and the lab's name and sizes.
  static GradeKeys derive(std::uint64_t secret, const LabSpec& spec, ChildMode mode);
  // Timed sample `index`'s key, from its size's samples key.
  static std::uint64_t sample_key(std::uint64_t samples_key, std::size_t index);

  // As the parent writes them to the child's standard input, and the child reads them back:
  // three lines ("check K...", "judge K...", "samples K...": hexadecimal). from_text throws
  // std::runtime_error naming what is wrong.
  std::string to_text() const;
  static GradeKeys from_text(const std::string& text);
};

// The key at `index` of `keys`, or std::runtime_error saying which (`what`) the parent did not hand over.
std::uint64_t key_at(const std::vector<std::uint64_t>& keys, std::size_t index, const char* what);

}  // namespace lb::lab
