// Parsing of --size values (workloads/sizes.h: the one size parser) and byte counts for messages.
#pragma once
#include <string>

#include "workloads/sizes.h"

namespace lb {

std::string human_bytes(double bytes);  // "12.0 GiB"

}  // namespace lb
