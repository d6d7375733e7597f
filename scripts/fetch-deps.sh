#!/usr/bin/env bash
# Puts into .deps/ (git-ignored) what the build takes from outside the system's installed packages,
# through the distribution's own client (apt) and this machine's configured sources: no host is
# named here. Carry .deps/ beside the checkout to a machine without a package registry (the lent
# GPU machines, which have no Google Benchmark, nlohmann-json, CLI11 or GoogleTest):
#   - benchmark_1.7.1.orig.tar.gz (and Debian's .dsc), Google Benchmark's source, by
#     `apt-get source --download-only benchmark=1.7.1-1` (Debian 12's version; apt checks it
#     against the signed source index, and this against the SHA-256 that cmake/Dependencies.cmake
#     pins). CMake builds it in Release where the system's libbenchmark is a debug build (Debian's)
#     or where there is none. apt-get source needs deb-src entries: when the configured sources have
#     none, a private copy of them with deb-src in place of deb is used (the system's are untouched);
#   - nlohmann-json3-dev, libcli11-dev (headers) and googletest (GoogleTest's source), by
#     `apt-get download`: packages of no architecture, which CMake unpacks into the build folder
#     where the system lacks the library.
# Exits 1 when a file could not be had (no apt, no registry); what is already there is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${LAYERBENCH_DEPS_DIR:-.deps}"
say() { echo "fetch-deps: $*" >&2; }

benchmark=benchmark_1.7.1.orig.tar.gz
benchmark_version=1.7.1-1
benchmark_sha256=6430e4092653380d9dc4ccb45a1e2dc9259d581f4866dc0759713126056bc1d7  # Debian's .dsc
packages=(nlohmann-json3-dev libcli11-dev googletest)

sha256() { sha256sum "$1" | cut -d' ' -f1; }
mkdir -p "$dir"
need_source=1
[ -f "$dir/$benchmark" ] && [ "$(sha256 "$dir/$benchmark")" = "$benchmark_sha256" ] && need_source=0
need_debs=()
for p in "${packages[@]}"; do compgen -G "$dir/${p}_*.deb" >/dev/null || need_debs+=("$p"); done
[ "$need_source" = 0 ] && [ ${#need_debs[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null; then
  say "no apt-get here: cannot get ${need_debs[*]} ${benchmark} (run this on a Debian or Ubuntu machine and carry $dir/)"
  exit 1
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/fetch-deps.XXXXXX")"
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"  # apt's download user (_apt) writes into it
# Capped, so that where no registry can be reached this fails within the minute.
apt_opts=(-qq -o Acquire::Retries=0 -o Acquire::http::Timeout=20)
status=0

if [ ${#need_debs[@]} -gt 0 ]; then
  got=0
  for attempt in 1 2; do
    if (cd "$work" && timeout 120 apt-get "${apt_opts[@]}" download "${need_debs[@]}" >/dev/null 2>&1); then
      got=1
      break
    fi
    # The package lists may be missing or stale: update them once and try again.
    [ "$attempt" = 1 ] && { timeout 120 apt-get "${apt_opts[@]}" update >/dev/null 2>&1 || break; }
  done
  if [ "$got" = 1 ]; then
    mv "$work"/*.deb "$dir"/
    say "$(cd "$dir" && for p in "${need_debs[@]}"; do ls ${p}_*.deb; done | tr '\n' ' ')into $dir/"
  else
    say "apt-get download ${need_debs[*]} failed (no package registry here?)"
    status=1
  fi
fi

if [ "$need_source" = 1 ]; then
  # A private apt configuration whose sources are the configured ones as deb-src, with its own
  # package lists: the system's sources and lists stay as they are.
  mkdir -p "$work/parts" "$work/lists/partial" "$work/src"
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    if [ -f "$f" ]; then sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f"; fi
  done >"$work/parts/src.list"
  for f in /etc/apt/sources.list.d/*.sources; do
    if [ -f "$f" ]; then sed 's/^Types:.*$/Types: deb-src/' "$f" >"$work/parts/$(basename "$f")"; fi
  done
  src_opts=("${apt_opts[@]}" -o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/parts"
            -o "Dir::State::Lists=$work/lists")
  # update may fail for one of several sources (one without source packages) and still have what
  # is needed, so its status is not the test: the download's is.
  timeout 120 apt-get "${src_opts[@]}" update >/dev/null 2>&1 || true
  if (cd "$work/src" && timeout 120 apt-get "${src_opts[@]}" source --download-only "benchmark=$benchmark_version" >/dev/null 2>&1) &&
     [ -f "$work/src/$benchmark" ]; then
    got="$(sha256 "$work/src/$benchmark")"
    if [ "$got" = "$benchmark_sha256" ]; then
      mv "$work/src/$benchmark" "$work"/src/benchmark_*.dsc "$dir"/
      say "$benchmark (apt-get source benchmark=$benchmark_version) into $dir/"
    else
      say "apt-get source gave $benchmark with SHA-256 $got, not the pinned $benchmark_sha256; not kept"
      status=1
    fi
  else
    say "apt-get source --download-only benchmark=$benchmark_version failed (no package registry here, or sources without Debian 12's benchmark)"
    status=1
  fi
fi
exit "$status"
