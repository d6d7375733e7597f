#include <cstdio>
#include <exception>

#include "app/cli.h"
#include "harness/sizes.h"

int main(int argc, char** argv) {
  try {
    return lb::run_cli(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "layerbench: error: %s\n", lb::one_line(e.what()).c_str());
    return 1;
  }
}
