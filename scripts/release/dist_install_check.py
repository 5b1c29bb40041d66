#!/usr/bin/env python3
"""`make dist-check`: installs the packages `make dist` left as a user would, on a PATH with
no Swift toolchain, and runs each client's README quick start through the bundled binary with
no path given.

- The wheel goes into a fresh virtualenv with `pip install --no-index` (nothing is fetched);
- the npm package into an empty folder with `npm install --offline`;
- then each package's `superwall-bridge --version`, the wheel's quick start in-process through the
  library it ships, and the npm package's `bundledLibrary()`.

Usage: dist_install_check.py DIST_DIR, or dist_install_check.py --quick-start python|python-in-process
to print the Python quick start (scripts/release/debian11_check.sh runs it on Debian 11).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def quick_start(readme: Path, language: str) -> str:
    """The first `language` code block under the README's "## Quick start"."""
    text = readme.read_text()
    section = text[text.index("## Quick start"):]
    match = re.search(rf"```{language}\n(.*?)```", section, re.DOTALL)
    if match is None:
        sys.exit(f"{readme}: no {language} block under Quick start")
    return match.group(1)


def python_quick_start_in_process() -> str:
    """The Python quick start in-process, through the library the wheel ships, with no path."""
    script = quick_start(ROOT / "clients/python/README.md", "python")
    started = "Superwall.start(purchase_controller=Store())"
    if started not in script:
        sys.exit(f"dist-check: the Python quick start no longer holds {started}")
    return script.replace(started, "Superwall.start(in_process=True, purchase_controller=Store())")


def run(arguments: list[str], *, cwd: Path, environment: dict[str, str], expect: str | None = None) -> str:
    print("$", " ".join(arguments), flush=True)
    done = subprocess.run(arguments, cwd=cwd, env=environment, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    if done.returncode != 0 or (expect is not None and expect not in done.stdout):
        sys.exit(f"dist-check: {' '.join(arguments)} exited {done.returncode}"
                 f"{'' if expect is None else f', expected {expect!r} in its output'}:\n{output}")
    print("  " + done.stdout.strip().replace("\n", "\n  "))
    return done.stdout


def main() -> int:
    if sys.argv[1] == "--quick-start":
        print(python_quick_start_in_process() if sys.argv[2] == "python-in-process"
              else quick_start(ROOT / "clients/python/README.md", "python"), end="")
        return 0
    dist = Path(sys.argv[1]).resolve()
    (wheel,) = dist.glob("superwall_bridge-*.whl")
    (package,) = dist.glob("superwall-bridge-*.tgz")
    version = (ROOT / "VERSION").read_text().strip()
    with tempfile.TemporaryDirectory(prefix="superwall-dist-check-") as name:
        folder = Path(name)
        shutil.copy2(wheel, folder)
        shutil.copy2(package, folder)
        # Only the system's directories: no toolchain, no checkout's binary.
        path = "/usr/bin:/bin"
        bare = {"PATH": path, "HOME": str(folder), "LANG": "C.UTF-8"}
        if shutil.which("swift", path=path) is not None or shutil.which("superwall-bridge", path=path) is not None:
            sys.exit(f"dist-check: {path} holds swift or superwall-bridge; the check needs a PATH without them")

        interpreter = os.path.realpath(sys.executable)
        run([interpreter, "-m", "venv", str(folder / "venv")], cwd=folder, environment=bare)
        python = folder / "venv/bin/python"
        run([str(python), "-m", "pip", "install", "-q", "--no-index", str(folder / wheel.name)], cwd=folder,
            environment=bare)
        venv = {**bare, "PATH": f"{folder / 'venv/bin'}:{path}"}
        (folder / "quickstart.py").write_text(quick_start(ROOT / "clients/python/README.md", "python"))
        run([str(python), "quickstart.py"], cwd=folder, environment=venv, expect="run the feature")
        (folder / "quickstart_in_process.py").write_text(python_quick_start_in_process())
        run([str(python), "quickstart_in_process.py"], cwd=folder, environment=venv, expect="run the feature")
        run(["superwall-bridge", "--version"], cwd=folder, environment=venv, expect=version)

        app = folder / "app"
        app.mkdir()
        (app / "package.json").write_text('{"name": "app", "version": "1.0.0", "private": true}\n')
        run(["npm", "install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", str(folder / package.name)],
            cwd=app, environment=bare)
        script = quick_start(ROOT / "clients/typescript/README.md", "js").replace('"../dist/src/index.js"', '"superwall-bridge"')
        (app / "quickstart.mjs").write_text(script)
        run(["node", "quickstart.mjs"], cwd=app, environment=bare, expect="skipped true")
        run([str(app / "node_modules/.bin/superwall-bridge"), "--version"], cwd=app, environment=bare, expect=version)
        shipped = app / "node_modules/superwall-bridge/lib/libsuperwall_bridge.so"
        if not shipped.is_file():
            sys.exit(f"dist-check: the npm package does not ship {shipped.name}")
        run(["node", "-e", "const s = require('superwall-bridge'); console.log(s.bundledLibrary())"], cwd=app,
            environment=bare, expect=str(shipped))
    print(f"dist-check: {wheel.name} and {package.name} installed offline and ran their quick starts "
          "through the bundled binary (and the wheel's in-process library), with no Swift toolchain on PATH")
    return 0


if __name__ == "__main__":
    sys.exit(main())
