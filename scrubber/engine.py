"""The engine: text in, scrubbed text and findings out. Pure, synchronous, no I/O after start."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import regex

from scrubber import invisible
from scrubber.detectors import REGEX_TIMEOUT, BatchDetector, Detector, MessageContext, TimeBudgetExceeded
from scrubber.detectors.patterns import RegexTimeout
from scrubber.detectors.tokens import number_like, tokenize, values
from scrubber.detectors.validators.base import digits_of
from scrubber.detectors.validators.ip import IpPolicy
from scrubber.dial import ALLOW_PATTERN, ENTITIES, Policy, ip_networks
from scrubber.findings import Finding, rank, resolve
from scrubber.masking import fixed_replacement, placeholders, replacement
from scrubber.textsearch import FIND_BUDGET, occurrences_indexed

DEFAULT_MAX_CHARS = 4 * 1024 * 1024
# A value found once is masked wherever else it stands in the same message, but only values
# long enough that a repeat is not a coincidence.
MIN_REPEAT_CHARS = 4
# A value of these kinds is its digits: said back in part on one of the next few lines ("my
# number is 312 555 0186" / "so that's three one two, five five five, and it ends 0186?"), its first
# or last digits are the value too (_echoes): five at least, or the last four after a word that
# says so ("ending 0186", "last four 0186"): four digits alone agree by chance too often.
ECHO_LAST = frozenset({"ending", "ends", "end", "in", "last", "four", "4"})
ECHO_ENTITIES = frozenset({"PHONE_NUMBER", "CREDIT_CARD", "US_SSN", "BANK_ACCOUNT"})
ECHO_WHOLE_DIGITS = 7
ECHO_LINES = 4
ECHO_LINE_CHARS = 300
_YEAR = regex.compile(r"(?:19|20)\d\d")
# A message through every detector family, the grammar's parser included (its last sentence has
# a value no cue next to it explains): what detectors load on first use, warm_up loads.
# Its last sentence needs the parser: no cue stands right by 6789, and the cue is more words
# before it than the grammar reads without the tree (sentences._ANNOUNCED_WORDS).
WARM_UP = (
    "Hi, my name is Jane Roe; call 415-555-0142 or mail jane@example.com. "
    "The last four digits of the social security number that I gave you yesterday afternoon were 6789."
)


class ScrubError(Exception):
    """A message that cannot be scrubbed; ``reason`` is a short, fixed, metric-safe code."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True, slots=True)
class ScrubResult:
    """The scrubbed ``text``; ``findings`` were masked, ``observed`` only counted (dial level 0)."""

    text: str
    findings: tuple[Finding, ...]
    observed: tuple[Finding, ...] = field(default=())

    def counts(self) -> dict[str, int]:
        """Findings per entity, masked and observed together (never any value)."""
        out: dict[str, int] = {}
        for f in (*self.findings, *self.observed):
            out[f.entity] = out.get(f.entity, 0) + 1
        return out


class Scrubber:
    """Built once per policy: detectors are compiled here, ``scrub`` only runs them."""

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        detectors: Sequence[Detector] | None = None,
        grammar_dir: Path | None = None,
        max_chars: int = DEFAULT_MAX_CHARS,
        regex_timeout: float = REGEX_TIMEOUT,
        time_budget: float | None = None,
    ) -> None:
        self.policy = policy or Policy()
        self.max_chars = max_chars
        # Seconds a message may take (None: no limit); past it, ScrubError("time_budget").
        self.time_budget = time_budget
        wanted = self.policy.masked_entities if self.policy.level > 0 else frozenset(ENTITIES)
        if detectors is None:
            from scrubber.detectors.registry import build_detectors

            detectors = build_detectors(wanted, grammar_dir=grammar_dir, regex_timeout=regex_timeout)
        self.detectors: tuple[Detector, ...] = tuple(d for d in detectors if d.entities & wanted)
        self._wanted = wanted
        # Worked out once, not per message: which detectors take a batch.
        self._plan = tuple((d, d if isinstance(d, BatchDetector) else None) for d in self.detectors)
        self._ips = IpPolicy(ip_networks(self.policy.spare_ips))
        self._allow = frozenset(v.casefold() for v in self.policy.allow if not v.startswith(ALLOW_PATTERN))
        self._allow_timeout = regex_timeout
        self._allow_patterns = tuple(
            regex.compile(v[len(ALLOW_PATTERN) :], regex.IGNORECASE)
            for v in self.policy.allow
            if v.startswith(ALLOW_PATTERN)
        )
        # Worked out once for the policy: whether any value is allowed at all and, for operators
        # that do not look at the value, the replacement itself.
        self._screens = bool(self._allow or self._allow_patterns)
        self._fixed = {e: fixed_replacement(e, self.policy.operator(e)) for e in ENTITIES}

    # ------------------------------------------------------------------ public API
    def scrub(self, text: str) -> ScrubResult:
        self._check(text)
        seen = invisible.view(text)
        if seen is not None:
            return self._back(seen, self._scrub_one(seen.text))
        return self._scrub_one(text)

    def _scrub_one(self, text: str) -> ScrubResult:
        deadline = self._deadline(1)
        result = self._scrub_known(text, deadline)
        return result if result is not None else self._scrub_plain(text, deadline)

    def _scrub_known(self, text: str, deadline: float | None) -> ScrubResult | None:
        """``scrub``, telling each detector what those before it found (and the engine will act
        on: ``ctx.kept``), so that it may spare work that cannot change the result; None if
        what it spared might have mattered after all (see _spared_idle): then the message is
        scrubbed again the plain way."""
        ctx = MessageContext(deadline, self._ips, self.policy.min_score)
        with _Guard() as guard:
            for guard.det in self.detectors:
                _check_deadline(deadline, guard.det)
                found = guard.det.detect(text, ctx)
                if found:
                    # _keep decides finding by finding: keeping each detector's findings as they
                    # come keeps what keeping them all at the end would.
                    ctx.kept.extend(self._keep(text, found))
                    ctx.starts.update(f.start for f in found)
        if ctx.spared and not _spared_idle(text, ctx.kept, ctx.spared):
            return None
        return self._finish(text, ctx.kept, vetted=True)

    def scrub_many(
        self, texts: Sequence[str], contexts: Sequence[str] | None = None, *, messages: int | None = None
    ) -> list[ScrubResult]:
        """Scrub a batch; detectors that parse run once over the whole batch.

        ``contexts`` (one per text, "" for none) is what stands before each text where it came
        from, e.g. a JSON value's key (``"first_name: "``): detection reads it with the text, so
        that rules keyed on it fire, but it is no part of the result, and never masked.
        ``messages``: how many messages the texts make up (a JSON record's values are one
        message), whose time budgets the batch gets; by default each text is one."""
        if contexts is not None and any(contexts):
            joined = self.scrub_many([c + t for c, t in zip(contexts, texts, strict=True)], messages=messages)
            return [
                self._after(len(c), t, r) if c else r for c, t, r in zip(contexts, texts, joined, strict=True)
            ]
        views: list[invisible.View | None] = []
        for t in texts:
            self._check(t)
            views.append(invisible.view(t))
        deadline = self._deadline(len(texts) if messages is None else messages)
        if not any(views):
            return self._scrub_batch(texts, deadline)
        seen = [t if v is None else v.text for t, v in zip(texts, views, strict=True)]
        results = self._scrub_batch(seen, deadline)
        return [r if v is None else self._back(v, r) for r, v in zip(results, views, strict=True)]

    def _scrub_batch(self, texts: Sequence[str], deadline: float | None) -> list[ScrubResult]:
        ctxs = [MessageContext(deadline, self._ips, self.policy.min_score) for _ in texts]
        with _Guard() as guard:
            for guard.det, batch in self._plan:
                if batch is not None:
                    _check_deadline(deadline, guard.det)
                    found = batch.detect_many(texts, ctxs)
                else:
                    found = []
                    for t, ctx in zip(texts, ctxs, strict=True):
                        _check_deadline(deadline, guard.det)
                        found.append(guard.det.detect(t, ctx))
                for t, ctx, f in zip(texts, ctxs, found, strict=True):
                    if f:
                        ctx.kept.extend(self._keep(t, f))
                        ctx.starts.update(x.start for x in f)
        out = []
        for t, ctx in zip(texts, ctxs, strict=True):
            if ctx.spared and not _spared_idle(t, ctx.kept, ctx.spared):
                out.append(self._scrub_plain(t, deadline))  # rare: see _scrub_known
            else:
                out.append(self._finish(t, ctx.kept, vetted=True))
        return out

    def _scrub_plain(self, text: str, deadline: float | None) -> ScrubResult:
        """``scrub`` of one message without telling any detector what is known."""
        ctx = MessageContext(deadline, self._ips, self.policy.min_score)
        found: list[Finding] = []
        with _Guard() as guard:
            for guard.det in self.detectors:
                _check_deadline(deadline, guard.det)
                more = guard.det.detect(text, ctx)
                found.extend(more)
                ctx.starts.update(f.start for f in more)
        return self._finish(text, found)

    def detect(self, text: str) -> list[Finding]:
        """The findings ``scrub`` would act on, without building the scrubbed text."""
        return list(self.scrub(text).findings)

    def warm_up(self) -> None:
        """Scrub a sample message once, outside any time budget, so that what detectors load on
        first use (the parser's model) is loaded now, not on the first real message's budget."""
        budget, self.time_budget = self.time_budget, None
        try:
            self.scrub_many([WARM_UP])
        finally:
            self.time_budget = budget

    # ------------------------------------------------------------------ internals
    def _check(self, text: str) -> None:
        if not isinstance(text, str):
            raise ScrubError("not_text", type(text).__name__)
        if len(text) > self.max_chars:
            raise ScrubError("too_large", f"{len(text)} characters > limit {self.max_chars}")

    def _deadline(self, messages: int) -> float | None:
        """When a call scrubbing ``messages`` messages runs out of time (a batch gets each one's)."""
        if self.time_budget is None:
            return None
        return time.monotonic() + self.time_budget * messages

    def _keep(self, text: str, found: list[Finding]) -> list[Finding]:
        """The findings of ``found`` that scrubbing acts on, in their order.

        Each is kept or not on its own (its entity, score, span and value), never by the others,
        so keeping a list piece by piece keeps what keeping it whole would.
        """
        if not found:
            return []
        policy = self.policy
        wanted, min_score, size, screens = self._wanted, policy.min_score, len(text), self._screens
        kept = [
            f
            for f in found
            if f.entity in wanted
            and f.score >= min_score
            and 0 <= f.start < f.end <= size
            and not (screens and self._allowed(text[f.start : f.end]))
        ]
        if kept and ("[" in text or "<" in text):
            kept = _outside_placeholders(text, kept)
        return kept

    def _finish(self, text: str, found: list[Finding], *, vetted: bool = False) -> ScrubResult:
        """The result from all detectors' findings (``vetted``: already passed through _keep)."""
        kept = found if vetted else self._keep(text, found)
        if not kept:
            return ScrubResult(text, ())
        resolved = resolve(kept)
        repeats = _repeats(text, resolved)
        if "\n" in text:
            repeats += _echoes(text, resolved)
        if repeats:  # else resolving again would give ``resolved`` back: it is disjoint and sorted
            resolved = resolve([*resolved, *repeats])
        resolved = _consistent(text, resolved)
        if self.policy.level == 0:
            return ScrubResult(text, (), tuple(resolved))
        # Above level 0, _keep lets in only the entities the policy masks (self._wanted), and
        # resolving, repeating and reconciling only pass those entities on: all are masked.
        masked = tuple(resolved)
        return ScrubResult(self.apply(text, masked), masked)

    def apply(self, text: str, findings: Sequence[Finding]) -> str:
        """``text`` with each of ``findings`` (disjoint, sorted) replaced as the policy says: the
        one masker. Formats that keep text the engine did not see as it was (undecodable bytes,
        HTML source) mask with it, given a result's findings."""
        policy = self.policy
        parts: list[str] = []
        pos = 0
        cache: dict[tuple[str, str], str] = {}
        for f in findings:
            rep = self._fixed.get(f.entity)
            if rep is None:
                # The value as detection saw it: a value carried back over invisible characters
                # gets the replacement (a pseudonym, the kept last digits) of its visible form.
                value = invisible.visible(text[f.start : f.end])
                key = (f.entity, value)
                rep = cache.get(key)
                if rep is None:
                    rep = replacement(value, f.entity, policy.operator(f.entity), policy.hmac_key)
                    cache[key] = rep
            parts.append(text[pos : f.start])
            parts.append(rep)
            pos = f.end
        parts.append(text[pos:])
        return "".join(parts)

    def _back(self, seen: invisible.View, result: ScrubResult) -> ScrubResult:
        """``result`` of scrubbing the view ``seen.text``, carried over to the original text: each
        finding covers the original span its value came from, invisible characters included."""
        findings = tuple(_carried(seen, f) for f in result.findings)
        observed = tuple(_carried(seen, f) for f in result.observed)
        text = self.apply(seen.original, findings) if findings else seen.original
        return ScrubResult(text, findings, observed)

    def _after(self, cut: int, text: str, result: ScrubResult) -> ScrubResult:
        """``result`` of scrubbing a context and ``text`` together, for ``text`` alone: findings
        in the context are dropped, one that reaches into ``text`` keeps its part there."""
        findings = tuple(_from(cut, f) for f in result.findings if f.end > cut)
        observed = tuple(_from(cut, f) for f in result.observed if f.end > cut)
        return ScrubResult(self.apply(text, findings) if findings else text, findings, observed)

    def _allowed(self, value: str) -> bool:
        if value.casefold() in self._allow:
            return True
        try:
            return any(p.fullmatch(value, timeout=self._allow_timeout) for p in self._allow_patterns)
        except TimeoutError as exc:
            raise ScrubError("regex_timeout", "allow-list pattern") from exc


def _from(cut: int, f: Finding) -> Finding:
    return replace(f, start=max(f.start, cut) - cut, end=f.end - cut)


def _carried(seen: invisible.View, f: Finding) -> Finding:
    start, end = seen.span(f.start, f.end)
    return replace(f, start=start, end=end)


def _spared_idle(text: str, kept: Sequence[Finding], spared: Iterable[Finding]) -> bool:
    """Whether adding ``spared`` to ``kept`` leaves the start, end and entity of every finding
    of the result as it is (else the message is scrubbed again without sparing anything).

    A detector spares a finding G only where a kept finding K of G's entity spans it (see
    GrammarDetector._settled). In resolve(), G then joins K's cluster without widening it, so the
    merged finding M keeps its span; it takes G's entity only if G outranks the cluster's best,
    which has M's score and entity: harmless if G's entity is M's, or if G scores below M. G
    can also lend M a higher score; the score matters later only where M meets findings of
    other values: repeats of M's value elsewhere (_repeats, _consistent) or repeats of other
    values inside M. With neither, M is alone in its cluster to the end and keeps its entity.
    """
    resolved = resolve(kept)
    repeats: list[Finding] | None = None
    for g in spared:
        m = next((f for f in resolved if f.start <= g.start and g.end <= f.end), None)
        if m is None:
            return False
        if g.score < m.score or (g.entity == m.entity and g.score == m.score):
            continue
        if g.entity != m.entity:
            return False
        value = text[m.start : m.end]
        if text.find(value) != m.start or text.find(value, m.start + 1) >= 0:
            return False
        if repeats is None:
            repeats = _repeats(text, resolved)
        if any(r.start < m.end and m.start < r.end for r in repeats):
            return False
    return True


class _Guard:
    """Around one engine call: a detector's failure holds the message back as a ScrubError
    (naming ``det``, the detector that was running)."""

    __slots__ = ("det",)

    def __init__(self) -> None:
        self.det: Detector | None = None

    def __enter__(self) -> _Guard:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if isinstance(exc, Exception) and not isinstance(exc, ScrubError):
            raise _failure(self.det, exc) from exc


def _failure(det: Detector | None, exc: Exception) -> ScrubError:
    """Any failure of a detector is a ScrubError: the message is held back, never passed on.

    The detail names the detector and the kind of failure, never the text or a value.
    """
    name = det.name if det is not None else "engine"
    if isinstance(exc, RegexTimeout):
        return ScrubError("regex_timeout", exc.pattern)
    if isinstance(exc, TimeBudgetExceeded):
        return ScrubError("time_budget", f"{name}: past the message's time budget")
    return ScrubError("detector_error", f"{name}: {type(exc).__name__}")


def _outside_placeholders(text: str, findings: list[Finding]) -> list[Finding]:
    """``findings`` less those inside a placeholder that scrubbing wrote: scrubbing scrubbed
    text again changes nothing ("my passport number is [PASSPORT]" stays as it is)."""
    spans = placeholders(text)
    if not spans:
        return findings
    return [f for f in findings if not any(s <= f.start and f.end <= e for s, e in spans)]


def _check_deadline(deadline: float | None, det: Detector) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise ScrubError("time_budget", f"before {det.name}: past the message's time budget")


def _repeats(text: str, findings: Sequence[Finding]) -> list[Finding]:
    """Other whole occurrences of values already found, as findings of the same entity.

    "1234" in "12345" is another number, so an occurrence must not touch letters or digits.
    """
    first: dict[str, Finding] = {}
    for f in findings:
        value = text[f.start : f.end]
        if len(value) >= MIN_REPEAT_CHARS and value not in first:
            first[value] = f
    places: Iterable[tuple[str, int]]
    if len(first) * len(text) > FIND_BUDGET:
        places = occurrences_indexed(text, first)
    else:
        places = []
        for value, f in first.items():
            # Most values stand once, where they were found: two finds settle that.
            if text.find(value) != f.start or text.find(value, f.start + 1) >= 0:
                places.extend((value, at) for at in _occurrences(text, value))
    out = []
    for value, at in places:
        f = first[value]
        end = at + len(value)
        if at != f.start and not _word_char(text, at - 1) and not _word_char(text, end):
            out.append(Finding(at, end, f.entity, f.score, "repeat"))
    return out


def _echoes(text: str, findings: Sequence[Finding]) -> list[Finding]:
    """The first or last digits of a value of ``ECHO_ENTITIES`` said back on one of the
    ``ECHO_LINES`` lines after its own (a read-back, "ends 0186?"), as findings of its entity:
    five digits or more, typed or in words, or the last four after a word of ``ECHO_LAST``
    unless they read as a year."""
    wholes: list[tuple[str, Finding]] = []
    for f in findings:
        if f.entity in ECHO_ENTITIES:
            digits = digits_of(text[f.start : f.end])
            if len(digits) >= ECHO_WHOLE_DIGITS:
                wholes.append((digits, f))
    if not wholes:
        return []
    out: list[Finding] = []
    for digits, f in wholes:
        start = text.find("\n", f.end)
        for _ in range(ECHO_LINES):
            if start < 0:
                break
            start += 1
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            if end - start <= ECHO_LINE_CHARS and number_like(text, start, end):
                tokens = tokenize(text, start, end)
                for v in values(tokens):
                    said = v.digits
                    if v.masked or v.alnum or said == digits or len(said) < 4:
                        continue
                    if not (digits.endswith(said) or (len(said) >= 5 and digits.startswith(said))):
                        continue
                    if len(said) == 4 and (
                        _YEAR.fullmatch(said)
                        or v.first == 0
                        or tokens[v.first - 1].text.lower() not in ECHO_LAST
                    ):
                        continue
                    if not any(g.start < v.end and v.start < g.end for g in findings):
                        out.append(Finding(v.start, v.end, f.entity, f.score, "echo"))
            start = end
    return out


def _occurrences(text: str, value: str) -> Iterator[int]:
    at = text.find(value)
    while at >= 0:
        yield at
        at = text.find(value, at + 1)


def _word_char(text: str, i: int) -> bool:
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


def _consistent(text: str, findings: list[Finding]) -> list[Finding]:
    """One entity per value in a message, so that a value always gets the same replacement."""
    if len(findings) < 2:
        return findings
    values = [text[f.start : f.end] for f in findings]
    if len(set(values)) == len(values):  # each value once: nothing to reconcile
        return findings
    best: dict[str, Finding] = {}
    for f, value in zip(findings, values, strict=True):
        held = best.get(value)
        if held is None or rank(f) < rank(held):
            best[value] = f
    return [
        f if (e := best[text[f.start : f.end]].entity) == f.entity else replace(f, entity=e) for f in findings
    ]
