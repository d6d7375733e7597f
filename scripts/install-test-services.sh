#!/usr/bin/env bash
# Installs the real services the fleet and history tests start on localhost, and this machine lacks:
# Debian's slurm-wlm and munge (tests/slurm: a one-node Slurm cluster), postgresql (the results
# database's server test), and the PostgreSQL client library for Python (psycopg, pinned in
# python/requirements-db.txt) into the report tool's interpreter. scripts/test.sh calls it; running
# layerbench never needs it. Where something cannot be installed (no apt, no root or sudo, no package
# registry) it prints one line and goes on: the test that needs it then skips and says why.
set -uo pipefail
cd "$(dirname "$0")/.."
say() { echo "install-test-services: $*" >&2; }
[ "${LAYERBENCH_SKIP_TEST_SERVICES:-0}" = 1 ] && { say "skipped (LAYERBENCH_SKIP_TEST_SERVICES=1)"; exit 0; }

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo="none"; fi
fi
missing=()
command -v slurmctld >/dev/null || [ -x /usr/sbin/slurmctld ] || missing+=(slurm-wlm)
command -v munged >/dev/null || [ -x /usr/sbin/munged ] || missing+=(munge)
compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$sudo" != none ] && command -v apt-get >/dev/null &&
     timeout 60 $sudo apt-get -o Acquire::Retries=0 -o Acquire::http::Timeout=10 update -qq >/dev/null 2>&1 &&
     DEBIAN_FRONTEND=noninteractive timeout 600 $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" \
       >/dev/null 2>&1; then
    say "installed ${missing[*]}"
    # Debian's packages start their services where an init system runs; the tests start their own.
    for service in slurmctld slurmd munge postgresql; do
      command -v service >/dev/null && $sudo service "$service" stop >/dev/null 2>&1 || true
    done
  else
    say "could not install ${missing[*]} (needs apt, root or sudo, and a package registry); the tests that need them skip"
  fi
fi

python=python3
[ -x .venv/bin/python3 ] && python=.venv/bin/python3
if ! "$python" -c 'import psycopg' 2>/dev/null; then
  if "$python" -m pip install -q -r python/requirements-db.txt >/dev/null 2>&1; then
    say "installed python/requirements-db.txt into $python"
  else
    say "could not install python/requirements-db.txt into $python; the PostgreSQL tests skip"
  fi
fi
exit 0
