#include "lab/child/grade_keys.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstring>
#include <sstream>
#include <stdexcept>

#include "lab/child/child_mode.h"
#include "lab/spec/lab_spec.h"

namespace lb::lab {

std::uint64_t keyed_hash(std::uint64_t key, std::string_view message) {
  unsigned char key_bytes[sizeof key];
  std::memcpy(key_bytes, &key, sizeof key);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!HMAC(EVP_sha256(), key_bytes, sizeof key_bytes, reinterpret_cast<const unsigned char*>(message.data()),
            message.size(), digest, &length) ||
      length < sizeof(std::uint64_t))
    throw std::runtime_error("HMAC-SHA256 (OpenSSL) failed");
  std::uint64_t value = 0;
  std::memcpy(&value, digest, sizeof value);
  return value;
}

GradeKeys GradeKeys::derive(std::uint64_t secret, const LabSpec& spec, ChildMode mode) {
  // Each message names the lab, the purpose and the size as lab.json writes it: no two keys of a
  // grade share a message, and a key says nothing of another (HMAC is a pseudo-random function).
  const auto key = [&](const std::string& purpose, const std::string& size) {
    return keyed_hash(secret, spec.name + "\n" + purpose + "\n" + size);
  };
  GradeKeys keys;
  if (mode == ChildMode::kCheck)
    for (const std::string& size : spec.check_size_texts) keys.check.push_back(key("check", size));
  const std::size_t timed = mode == ChildMode::kTime ? spec.benchmark_sizes.size() : mode == ChildMode::kProfile ? 1 : 0;
  for (std::size_t i = 0; i < timed; ++i) {
    const std::string size = spec.workload->size_label(spec.benchmark_sizes[i]);
    keys.judge.push_back(key("judge", size));
    if (mode == ChildMode::kTime) keys.samples.push_back(key("samples", size));
  }
  return keys;
}

std::uint64_t GradeKeys::sample_key(std::uint64_t samples_key, std::size_t index) {
  return keyed_hash(samples_key, "sample " + std::to_string(index));
}

namespace {

void write_line(std::ostringstream& out, const char* name, const std::vector<std::uint64_t>& keys) {
  out << name;
  for (std::uint64_t k : keys) out << ' ' << std::hex << k;
  out << '\n';
}

}  // namespace

std::string GradeKeys::to_text() const {
  std::ostringstream out;
  write_line(out, "check", check);
  write_line(out, "judge", judge);
  write_line(out, "samples", samples);
  return out.str();
}

GradeKeys GradeKeys::from_text(const std::string& text) {
  GradeKeys keys;
  std::istringstream lines(text);
  std::vector<std::uint64_t>* const slots[] = {&keys.check, &keys.judge, &keys.samples};
  const char* const names[] = {"check", "judge", "samples"};
  for (int i = 0; i < 3; ++i) {
    std::string line;
    if (!std::getline(lines, line)) throw std::runtime_error(std::string("the grade's keys: no '") + names[i] + "' line");
    std::istringstream words(line);
    std::string name;
    words >> name;
    if (name != names[i])
      throw std::runtime_error(std::string("the grade's keys: expected '") + names[i] + "', got '" + name + "'");
    for (std::string word; words >> word;) {
      std::size_t used = 0;
      std::uint64_t value = 0;
      try {
        value = std::stoull(word, &used, 16);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != word.size()) throw std::runtime_error("the grade's keys: '" + word + "' is not a key");
      slots[i]->push_back(value);
    }
  }
  return keys;
}

std::uint64_t key_at(const std::vector<std::uint64_t>& keys, std::size_t index, const char* what) {
  if (index >= keys.size())
    throw std::runtime_error(std::string("the parent handed over no ") + what + " key " + std::to_string(index + 1));
  return keys[index];
}

}  // namespace lb::lab
