"""Names of people (PERSON) from the contexts that announce them: grammar/names.yaml.

No dictionary and no parser: a greeting, a title, a closing line, "my name is", a name field,
an e-mail display name, a relation ("my mother, ..."), or a record ("Lee Huang, SSN ...") says
that the capitalised words after it are a name. Measured against the parser's NER on the
devset this finds more names, far fewer false ones, and costs a few regular expressions.

The parts, each a module: ``lexicon`` loads the word lists and compiles them with
``patterns``; ``triggers`` finds their phrases; ``anchors`` runs the contexts those phrases
announce; ``layout`` (signatures, transcripts, chat labels, address blocks), ``replies``
(answers to "who am I speaking with?", "... wrote:") and ``records`` (records, lists, keys,
XML, SQL) read the shape of the message; ``shapes`` says what a name looks like, ``lines``
where a message's lines are. ``detector`` puts them together.

``model`` finds the names no context announces (a logistic model over word statistics and the
line around a word, grammar/name_model.yaml); ``build`` makes its lexicon and fits its weights.
"""

from scrubber.detectors.names.detector import SCORE, NameDetector
from scrubber.detectors.names.lexicon import NameLexicon, load_names

__all__ = ["SCORE", "NameDetector", "NameLexicon", "load_names"]
