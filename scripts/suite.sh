#!/usr/bin/env bash
# Quick start 1: installs what running needs and is missing, builds (scripts/build.sh says what it
# does, stage by stage, on standard error; its whole log is build/build.log), and runs the default
# suite, which writes results/latest.json. Arguments go to `layerbench run` (see
# `build/layerbench run --help`). Test-only tools (Chromium) are scripts/test.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
exec build/layerbench run "$@"
