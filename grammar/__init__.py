"""The rule files (YAML), shipped as package data of ``scrubber.grammar``; see README.md here."""
