#!/usr/bin/env bash
# Downloads the source tarballs the build takes from outside the system's packages into .deps/
# (git-ignored), each pinned by its SHA-256, so that a machine without network can build with them:
# carry .deps/ beside the checkout. Today one: Google Benchmark 1.7.1, Debian's own upstream tarball
# of the version Debian packages, which cmake/Dependencies.cmake builds in Release when the system's
# libbenchmark is a debug build (Debian's is). Exits 1 when a file could not be had; what is already
# there with the right hash is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${LAYERBENCH_DEPS_DIR:-.deps}"

# name  sha256  url   (the hash is the one in Debian's benchmark_1.7.1-1.dsc)
deps=(
  "benchmark_1.7.1.orig.tar.gz 6430e4092653380d9dc4ccb45a1e2dc9259d581f4866dc0759713126056bc1d7 http://deb.debian.org/debian/pool/main/b/benchmark/benchmark_1.7.1.orig.tar.gz"
)

sha256() { sha256sum "$1" | cut -d' ' -f1; }
mkdir -p "$dir"
status=0
for dep in "${deps[@]}"; do
  read -r name hash url <<<"$dep"
  if [ -f "$dir/$name" ] && [ "$(sha256 "$dir/$name")" = "$hash" ]; then
    continue
  fi
  if ! command -v curl >/dev/null; then
    echo "fetch-deps: curl not found; cannot download $name" >&2
    status=1
    continue
  fi
  if ! curl -fsSL --connect-timeout 15 --max-time 300 --retry 2 -o "$dir/$name.part" "$url"; then
    rm -f "$dir/$name.part"
    echo "fetch-deps: could not download $url" >&2
    status=1
    continue
  fi
  got="$(sha256 "$dir/$name.part")"
  if [ "$got" != "$hash" ]; then
    rm -f "$dir/$name.part"
    echo "fetch-deps: $url has SHA-256 $got, not the pinned $hash; not kept" >&2
    status=1
    continue
  fi
  mv "$dir/$name.part" "$dir/$name"
  echo "fetch-deps: $dir/$name" >&2
done
exit "$status"
