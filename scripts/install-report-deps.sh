#!/usr/bin/env bash
# Installs what the report tool (python/layerbench/reports/) needs and this machine lacks:
#   - matplotlib and pytest: nothing to do when the system python3 imports them; else a virtual
#     environment in .venv (python3 -m venv) with python/requirements.txt installed into it.
#     `layerbench report|compare|csv` and the report tests use .venv/bin/python3 when it exists.
#     When that cannot be done it says so in one line and goes on (exit status 0).
#   - jsonschema (the lab autograder tests): into that .venv, or Debian's package for python3.
#   - with --chromium only (scripts/test.sh passes it; running layerbench never needs a browser):
#     Debian's chromium, for the tests that open report.html and a class leaderboard in a headless browser
#     (tests/reports/test_chromium.py). When it cannot be installed (no apt, no root or sudo, no
#     package registry) this prints one line and goes on; that test then skips and says why.
# On a machine whose python3 already has matplotlib and pytest and that has no package registry
# (the lent GPU machines), it changes nothing and succeeds (the apt attempts for jsonschema and
# chromium are capped at 45 seconds; LAYERBENCH_SKIP_CHROMIUM=1 skips chromium's).
set -euo pipefail
cd "$(dirname "$0")/.."
with_chromium=0
[ "${1:-}" = --chromium ] && with_chromium=1

say() { echo "install-report-deps: $*" >&2; }

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo="none"; fi
fi
apt_updated=0
apt_install() {  # apt_install PACKAGE...: 0 when installed
  [ "$sudo" != none ] && command -v apt-get >/dev/null || return 1
  if [ $apt_updated -eq 0 ]; then
    # Capped: where no package registry can be reached this fails within the minute, not later.
    timeout 45 $sudo apt-get -o Acquire::Retries=0 -o Acquire::http::Timeout=10 update -qq >/dev/null 2>&1 || return 1
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1
}

# 1. matplotlib and pytest
if python3 -c 'import matplotlib, pytest' 2>/dev/null; then
  :   # the system python3 has them: nothing to install
elif [ -x .venv/bin/python3 ] && .venv/bin/python3 -c 'import matplotlib, pytest' 2>/dev/null; then
  :   # installed by an earlier run
else
  # Failures here are reported in one line but do not stop the caller: the C++ build does not
  # need Python; `layerbench report` and the report tests then say what is missing.
  if ! python3 -m venv .venv >/dev/null 2>&1; then
    rm -rf .venv  # Debian's python3 needs python3-venv for `-m venv`
    if ! { apt_install python3-venv && python3 -m venv .venv >/dev/null 2>&1; }; then
      rm -rf .venv
      say "cannot create .venv (python3 -m venv failed; install python3-venv); the report tool needs matplotlib and pytest"
    fi
  fi
  if [ -x .venv/bin/python3 ]; then
    say "installing python/requirements.txt into .venv"
    if ! .venv/bin/python3 -m pip install -q --disable-pip-version-check -r python/requirements.txt; then
      say "pip could not install python/requirements.txt into .venv (no package registry?); the report tool needs matplotlib and pytest"
    fi
  fi
fi

# 1b. jsonschema, for the lab autograder tests only (tests/lab_autograder: without it they skip,
#     saying so): into .venv where the report tool uses it, else Debian's python3-jsonschema.
if [ -x .venv/bin/python3 ]; then
  .venv/bin/python3 -c 'import jsonschema' 2>/dev/null ||
    .venv/bin/python3 -m pip install -q --disable-pip-version-check "$(grep -E '^jsonschema' python/requirements.txt)" ||
    say "pip could not install jsonschema into .venv; the lab autograder schema tests will skip"
elif ! python3 -c 'import jsonschema' 2>/dev/null; then
  apt_install python3-jsonschema ||
    say "could not install Debian's python3-jsonschema; the lab autograder schema tests will skip"
fi

# 1c. mypy (python/requirements-check.txt), for the package's type check only (tests/api/test_typing.py:
#     without it that test skips, saying so): into .venv where there is one.
if [ -x .venv/bin/python3 ]; then
  pin=$(grep -E '^mypy==' python/requirements-check.txt)
  [ "$(.venv/bin/python3 -m mypy --version 2>/dev/null | cut -d' ' -f2)" = "${pin#mypy==}" ] ||
    .venv/bin/python3 -m pip install -q --disable-pip-version-check "$pin" ||
    say "pip could not install $pin into .venv; the package's type check will skip"
fi

# 2. chromium (with --chromium: only the headless-browser test uses it; LAYERBENCH_SKIP_CHROMIUM=1 skips it)
have_chromium() { command -v chromium >/dev/null || command -v chromium-browser >/dev/null; }
if [ "$with_chromium" = 0 ]; then
  :   # not asked for: running layerbench and building its reports need no browser
elif [ "${LAYERBENCH_SKIP_CHROMIUM:-0}" = 1 ]; then
  have_chromium || say "LAYERBENCH_SKIP_CHROMIUM=1: not installing chromium; the report's browser test will skip"
elif ! have_chromium; then
  if apt_install chromium && have_chromium; then
    say "installed chromium"
  else
    say "could not install Debian's chromium (needs apt, root or sudo, and a package registry); the report's browser test will skip"
  fi
fi
exit 0
