"""scrubber: find personal data in text, mask it per a privacy-dial policy."""

from scrubber.dial import Policy
from scrubber.engine import Scrubber, ScrubError, ScrubResult
from scrubber.findings import Finding

__all__ = ["Finding", "Policy", "ScrubError", "ScrubResult", "Scrubber"]
__version__ = "0.1.0"
