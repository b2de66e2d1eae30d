"""What pyproject.toml cannot say: the package list, grammar/ shipped as scrubber/grammar/, and
the modules a release build compiles with mypyc (``SCRUBBER_MYPYC=1``, see build_backend/)."""

import atexit
import os
import shutil
import tempfile

from setuptools import find_packages, setup

# The modules where the engine's time goes (load/results/engine-dense-prose-20261127.txt),
# compiled as they are; load/results/mypyc-20261127.txt has what they gain. Left out:
# - scrubber/engine.py: its ScrubResult is public and must pickle, and a frozen dataclass
#   compiled by mypyc does not unpickle (FrozenInstanceError); it is ~4 % of the time.
# - scrubber/detectors/__init__.py: its Detector base classes are subclassed by modules that
#   stay pure Python, and an interpreted class cannot subclass a compiled one.
# - scrubber/detectors/grammar/rules.py: mypyc rejects it (a dataclass field's default read
#   through the class); it is not where the time goes.
# - the rest of scrubber/detectors (addresses, tables, pattern_rules, vendors, validators/*, the
#   other names/ modules, grammar/known): compiled with these, the dense lines ran slower than
#   with these alone (1.03x against 1.30x over pure, one alternating run).
MYPYC_MODULES = [
    "scrubber/detectors/cues.py",
    "scrubber/detectors/patterns.py",
    "scrubber/detectors/tokens.py",
    "scrubber/detectors/grammar/sentences.py",
    "scrubber/detectors/names/anchors.py",
    "scrubber/detectors/names/layout.py",
    "scrubber/detectors/names/model.py",
]


def compiled() -> dict[str, object]:
    """setup()'s arguments for the compiled build: none unless SCRUBBER_MYPYC=1."""
    # The backend (build_backend/scrubber_build.py) has checked the variable's value, removed it
    # for an editable install, and asked for mypy: the import only runs when it is there.
    if os.environ.get("SCRUBBER_MYPYC") != "1":
        return {}
    from mypyc.build import mypycify

    # A fresh build directory: a module dropped from the list must not ship as a stale .so left
    # in ./build by an earlier compiled build.
    base = tempfile.mkdtemp(prefix="scrubber-mypyc-")
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    # One shared library for all of them (scrubber__mypyc.*.so beside the package), so calls
    # between compiled modules stay native calls.
    modules = mypycify(MYPYC_MODULES, opt_level="3", group_name="scrubber", target_dir=base)
    return {"ext_modules": modules, "options": {"build": {"build_base": base}}}


setup(packages=[*find_packages(include=["scrubber", "scrubber.*"]), "scrubber.grammar"], **compiled())
