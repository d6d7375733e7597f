#!/usr/bin/env bash
# Quick start 1: installs what is missing, builds, and runs the default suite, which writes
# results/latest.json. Arguments go to `layerbench run` (see `build/layerbench run --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
exec build/layerbench run "$@"
