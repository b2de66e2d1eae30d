"""The one thing pyproject.toml cannot say: the package list, plus grammar/ shipped as scrubber/grammar/."""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["scrubber", "scrubber.*"]), "scrubber.grammar"])
