#!/bin/sh
# Runs a test on the GPU ctest gave it: ctest, given a resource spec file (scripts/test.sh writes
# one with a "gpus" entry per device found), sets CTEST_RESOURCE_GROUP_0_GPUS="id:gpuK,slots:S" for a
# test with RESOURCE_GROUPS "gpus:S" (tests/test_properties.cmake); this makes the test's CUDA
# devices that one: CUDA_VISIBLE_DEVICES=K, or the K-th entry of a CUDA_VISIBLE_DEVICES already set
# (scripts/test.sh numbers the devices it was given). Without that variable (plain `ctest`, no spec
# file, no GPU) the test runs as it is. Every gtest executable's tests run through it (their
# CROSSCOMPILING_EMULATOR, tests/CMakeLists.txt), as do the pytest files.
set -eu
group="${CTEST_RESOURCE_GROUP_0_GPUS:-}"
if [ -n "$group" ]; then
  id="${group#id:}"
  id="${id%%,*}"
  index="${id#gpu}"
  case "$id:$index" in
    gpu*:*[!0-9]* | *: | "$index:$index")
      echo "gpu_slot.sh: CTEST_RESOURCE_GROUP_0_GPUS=$group: expected an id gpuK" >&2
      exit 2
      ;;
  esac
  if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
    device="$(echo "$CUDA_VISIBLE_DEVICES" | awk -F, -v i=$((index + 1)) '{ print $i }')"
    if [ -z "$device" ]; then
      echo "gpu_slot.sh: $id: CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES has no entry $index" >&2
      exit 2
    fi
  else
    device="$index"
  fi
  CUDA_VISIBLE_DEVICES="$device"
  export CUDA_VISIBLE_DEVICES
fi
exec "$@"
