#!/usr/bin/env python3
"""Fails when a package-registry host, or a download URL, appears in the repository's tracked files.

Dependencies come through the distribution's own client and the machine's configured sources
(scripts/install-deps.sh: apt-get install; scripts/fetch-deps.sh: apt-get source and apt-get
download; scripts/install-python-deps.sh: pip with its configured index), never from a host named
here. So this flags:
  1. a registry host anywhere (Debian's and Ubuntu's archives, the Python index's hosts, conda's,
     npm's, crates', Go's proxy, NVIDIA's and PyTorch's package hosts, GitHub's download hosts);
  2. a download URL anywhere: one that ends in an archive or package (.tar.gz, .zip, .whl, .deb,
     .git, ...), or a GitHub release asset or archive;
  3. any URL in build and install code (CMake files, shell scripts, requirements and Docker files),
     and a pip index option (--index-url, --extra-index-url, --find-links with a URL).
A plain link to a project's page on GitHub in the docs or a comment is not a registry and is
left alone. Run by ctest as repo.no_registry_hosts; exits 1 and names each hit.

Usage: check-registry-hosts.py [ROOT]   (default: the repository this script is in)
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

# Written so that a plain grep for these hosts, or for a URL scheme, finds no line in this file.
REGISTRY_HOSTS = [
    r"(?:[\w-]+\.)*debian\.org", r"(?:[\w-]+\.)*ubuntu\.com", r"ppa\.launchpad(?:content)?\.net",
    r"(?:test\.)?py[p]i\.org", r"py[p]i\.python\.org", r"(?:[\w-]+\.)*python[h]osted\.org",
    r"(?:conda\.|repo\.)?anaconda\.(?:org|com)", r"conda-forge\.org",
    r"registry\.npmjs\.org", r"registry\.yarnpkg\.com", r"(?:static\.|index\.)?crates\.io",
    r"proxy\.golang\.org", r"sum\.golang\.org", r"repo1?\.maven(?:\.apache)?\.org", r"rubygems\.org",
    r"developer\.download\.nvidia\.com", r"py[p]i\.(?:ngc\.)?nvidia\.com", r"download\.pytorch\.org",
    r"codeload\.github\.com", r"(?:objects|raw|release-assets)\.githubusercontent\.com",
]
HOST_RE = re.compile(r"(?<![\w.-])(?:" + "|".join(REGISTRY_HOSTS) + r")(?![\w-])", re.I)
URL_RE = re.compile(r"\b(?:https?|git|ftp)://[^\s\"'<>()\[\]{}`]+", re.I)
DOWNLOAD_RE = re.compile(
    r"(?:\.tar\.(?:gz|xz|bz2|zst)|\.tgz|\.zip|\.whl|\.deb|\.rpm|\.git|\.dsc|\.orig\.tar\.\w+)$"
    r"|github\.com/[^/]+/[^/]+/(?:releases/download|archive)/", re.I)
PIP_INDEX_RE = re.compile(r"--(?:extra-)?index-url\b|--find-links[= ]+\S*://|(?<![\w-])-i\s+https?://", re.I)
# Files whose URLs would be fetched: build and install code.
BUILD_FILE_RE = re.compile(
    r"(?:^|/)(?:CMakeLists\.txt|[^/]*\.cmake|[^/]*\.sh|Dockerfile[^/]*|[^/]*requirements[^/]*\.txt"
    r"|pyproject\.toml|setup\.cfg|setup\.py|\.ci/run|pip\.conf|[^/]*\.sources|[^/]*sources\.list)$")
TOP_SKIP = {".git", "build", ".venv", ".deps", ".whl", ".device", "results", "scratch"}  # git-ignored, or not ours


def problems_in(path: str, text: str) -> list[str]:
    found = []
    build_file = bool(BUILD_FILE_RE.search(path))
    for lineno, line in enumerate(text.splitlines(), 1):
        why = []
        m = HOST_RE.search(line)
        if m:
            why.append(f"registry host {m.group(0)}")
        for url in URL_RE.findall(line):
            url = url.rstrip(".,;:")
            if DOWNLOAD_RE.search(url):
                why.append(f"download URL {url}")
            elif build_file:
                why.append(f"URL in build or install code {url}")
        m = PIP_INDEX_RE.search(line)
        if m:
            why.append(f"pip index option '{m.group(0).strip()}'")
        if why:
            found.append(f"{path}:{lineno}: {'; '.join(dict.fromkeys(why))}")
    return found


def self_test() -> None:
    """The rules still catch what they are for, and let a homepage link through."""
    web = "https:" + "//"
    flagged = {
        "cmake/x.cmake": f"FetchContent_Declare(x URL {web}example.org/x.tar.gz)",
        "docs/a.md": f"get it from {web}" + "deb." + "deb" + "ian.org/debian/pool/main/b/x.orig.tar.gz",
        "scripts/a.sh": f"pip install --index-url {web}example.org/simple x",
        "docs/b.md": "files." + "python" + "hosted.org/packages/x.whl",
        "docs/c.md": f"{web}git" + "hub.com/o/r/releases/download/v1/x.tar.xz",
        "scripts/b.sh": f"curl -o x {web}example.org/install",
    }
    passed = {
        "docs/d.md": f"Follows [CUTLASS]({web}git" + "hub.com/NVIDIA/cutlass)'s multistage GEMM",
        "workloads/k.cu": "// git" + "hub.com/NVIDIA/cutlass: cp.async stages",
        "reports/t.py": 'assert root.tag == "{' + "http:" + '//www.w3.org/2000/svg}svg"',
        "docs/e.md": "Py" + "PI has only PyCUDA's source",
    }
    for path, text in flagged.items():
        assert problems_in(path, text), f"self-test: not flagged: {path}: {text}"
    for path, text in passed.items():
        assert not problems_in(path, text), f"self-test: flagged: {path}: {problems_in(path, text)}"


def tracked_files(root: Path) -> list[str]:
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True).stdout
        files = [f for f in out.decode().split("\0") if f]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    # No git (a copy of the tree): every file but the ignored folders'.
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        top = Path(dirpath) == root
        dirnames[:] = [d for d in dirnames if d != "__pycache__" and not (top and (d in TOP_SKIP or d.startswith("build-")))]
        files += [os.path.relpath(os.path.join(dirpath, f), root) for f in filenames]
    return files


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    self_test()
    me = Path(__file__).resolve()
    problems, scanned = [], 0
    for rel in sorted(tracked_files(root)):
        path = root / rel
        if not path.is_file() or path.resolve() == me:
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary
        scanned += 1
        problems += problems_in(rel, data.decode("utf-8", errors="replace"))
    if problems:
        print("\n".join(problems))
        print(f"check-registry-hosts: {len(problems)} lines name a package registry or a download URL "
              "(get dependencies through the distribution's client: scripts/fetch-deps.sh)")
        return 1
    print(f"check-registry-hosts: no registry host or download URL in {scanned} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
