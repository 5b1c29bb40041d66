#!/usr/bin/env python3
"""Packages a `make dist` binary for the two clients' package managers, into OUT:

- the Python platform wheel, `superwall_bridge-<version>-py3-none-<platform>.whl`: the client,
  the executable as `superwall_bridge/bin/superwall-bridge`, the in-process library as
  `superwall_bridge/lib/libsuperwall_bridge.so`, and a `superwall-bridge` command;
- the npm package, `superwall-bridge-<version>.tgz` (`npm pack`): the built TypeScript client,
  the executable as `bin/superwall-bridge` (its `bin` entry), the library as
  `lib/libsuperwall_bridge.so`, no runtime dependencies.

The executable is the launcher (embedding/launcher), which runs the command line inside the
library it finds in ../lib: the bridge's code ships once. The clients find both with no path
given, and never search anywhere else but `PATH`. A package over its size limit (the wheel
30 MB, the npm package 32 MB) fails the build.
The platform tag is the oldest manylinux the binary's and the library's glibc symbols allow. The wheel is built by
pip (setuptools) and retagged by `wheel tags`; its members are then recompressed at zlib's
highest level, which pip reads as any wheel.

Usage: package.py --binary BIN --library LIB --typescript-build DIR --out OUT
  (run with an interpreter that has setuptools and wheel; DIR is `tsc`'s output, holding src/)
"""
import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WHEEL_LIMIT_MB = 30
NPM_LIMIT_MB = 32


def glibc_floor(*files: Path) -> tuple[int, int]:
    """The newest glibc symbol version the files need."""
    versions: set[tuple[int, ...]] = set()
    for file in files:
        symbols = subprocess.run(["objdump", "-T", str(file)], capture_output=True, text=True, check=True).stdout
        versions |= {tuple(int(part) for part in found.split(".")[:2])
                     for found in re.findall(r"GLIBC_(\d+\.\d+)", symbols)}
    major, minor = max(versions)
    return major, minor


def build_wheel(binary: Path, library: Path, out: Path, version: str) -> Path:
    with tempfile.TemporaryDirectory(prefix="superwall-wheel-") as folder:
        stage = Path(folder, "python")
        shutil.copytree(ROOT / "clients/python", stage,
                        ignore=shutil.ignore_patterns("tests", "__pycache__", "*.egg-info", "build", ".mypy_cache"))
        bundled = stage / "superwall_bridge/bin/superwall-bridge"
        bundled.parent.mkdir()
        shutil.copy2(binary, bundled)
        bundled.chmod(0o755)
        shipped_library = stage / "superwall_bridge/lib/libsuperwall_bridge.so"
        shipped_library.parent.mkdir()
        shutil.copy2(library, shipped_library)
        pyproject = stage / "pyproject.toml"
        text = pyproject.read_text()
        text = text.replace('superwall_bridge = ["py.typed"]',
                            'superwall_bridge = ["py.typed", "bin/superwall-bridge", "lib/libsuperwall_bridge.so"]')
        text += '\n[project.scripts]\nsuperwall-bridge = "superwall_bridge._command:main"\n'
        pyproject.write_text(text)
        built = Path(folder, "built")
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(built),
                        str(stage)], check=True)
        (wheel,) = built.glob("*.whl")
        major, minor = glibc_floor(binary, library)
        subprocess.run([sys.executable, "-m", "wheel", "tags", "--remove", "--python-tag", "py3", "--abi-tag", "none",
                        "--platform-tag", f"manylinux_{major}_{minor}_x86_64", str(wheel)], check=True,
                       stdout=subprocess.DEVNULL)
        (tagged,) = built.glob("*.whl")
        target = out / tagged.name
        recompress(tagged, target)
    expected = f"superwall_bridge-{version}-py3-none-manylinux_{major}_{minor}_x86_64.whl"
    if target.name != expected:
        sys.exit(f"the wheel is {target.name}, expected {expected}")
    return target


def recompress(source: Path, target: Path) -> None:
    """The same members, in the same order with the same attributes, deflated at level 9."""
    with zipfile.ZipFile(source) as reading, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as writing:
        for member in reading.infolist():
            writing.writestr(member, reading.read(member), compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)


def build_npm_package(binary: Path, library: Path, typescript_build: Path, out: Path, version: str) -> Path:
    with tempfile.TemporaryDirectory(prefix="superwall-npm-") as folder:
        stage = Path(folder, "package")
        stage.mkdir()
        shutil.copytree(typescript_build / "src", stage / "dist/src")
        shutil.copy2(ROOT / "clients/typescript/README.md", stage / "README.md")
        (stage / "bin").mkdir()
        shutil.copy2(binary, stage / "bin/superwall-bridge")
        (stage / "bin/superwall-bridge").chmod(0o755)
        (stage / "lib").mkdir()
        shutil.copy2(library, stage / "lib/libsuperwall_bridge.so")
        manifest = json.loads((ROOT / "clients/typescript/package.json").read_text())
        manifest["bin"] = {"superwall-bridge": "bin/superwall-bridge"}
        manifest["files"] = ["dist/src", "bin", "lib"]
        manifest["os"] = ["linux"]
        manifest["cpu"] = ["x64"]
        manifest.pop("scripts", None)
        (stage / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
        subprocess.run(["npm", "pack", "--silent", "--pack-destination", str(out.resolve())], cwd=stage, check=True,
                       stdout=subprocess.DEVNULL)
    target = out / f"superwall-bridge-{version}.tgz"
    if not target.is_file():
        sys.exit(f"npm pack left no {target.name}")
    return target


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True, type=Path)
    parser.add_argument("--library", required=True, type=Path)
    parser.add_argument("--typescript-build", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    arguments = parser.parse_args()
    version = (ROOT / "VERSION").read_text().strip()
    arguments.out.mkdir(parents=True, exist_ok=True)
    for old in [*arguments.out.glob("superwall_bridge-*.whl"), *arguments.out.glob("superwall-bridge-*.tgz")]:
        old.unlink()
    wheel = build_wheel(arguments.binary, arguments.library, arguments.out, version)
    package = build_npm_package(arguments.binary, arguments.library, arguments.typescript_build, arguments.out, version)
    for path in (arguments.binary, arguments.library, wheel, package):
        print(f"{path.name}: {path.stat().st_size / 1e6:.1f} MB ({path.stat().st_size / 2**20:.1f} MiB)")
    too_large = [f"{path.name} is {path.stat().st_size / 1e6:.1f} MB, over {limit} MB"
                 for path, limit in ((wheel, WHEEL_LIMIT_MB), (package, NPM_LIMIT_MB))
                 if path.stat().st_size > limit * 1e6]
    if too_large:
        sys.exit("package: " + "; ".join(too_large))
    return 0


if __name__ == "__main__":
    sys.exit(main())
