#include <cstdio>
#include <exception>

#include "harness/cli.h"

int main(int argc, char** argv) {
  try {
    return lb::run_cli(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "layerbench: error: %s\n", e.what());
    return 1;
  }
}
