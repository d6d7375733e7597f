#include "lab/child/key_holder.h"

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace lb::lab {

void make_key_holder_undumpable() {
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
    throw std::runtime_error(std::string("prctl(PR_SET_DUMPABLE, 0) failed: ") + std::strerror(errno));
}

bool give_up_every_capability() noexcept {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  // Ambient capabilities (Linux 4.3 on): EINVAL on an older kernel, which has none to clear.
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) return false;
  // The bounding set, one capability at a time up to the first the kernel does not know (EINVAL).
  // Dropping needs CAP_SETPCAP; a process without it (not root, or a root without it) keeps what is
  // there, which matters only to a root process: its exec would get the bounding set back.
  const bool root = geteuid() == 0 || getuid() == 0;
  for (int cap = 0; cap < 64; ++cap) {
    if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0) break;  // EINVAL: past the last capability
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && root && prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1) return false;
  }
  // Permitted, effective and inheritable: empty, now.
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  return syscall(SYS_capset, &header, data) == 0;
}

}  // namespace lb::lab
