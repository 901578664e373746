"""
The claims' memo: an answer's digit claims judged, each distinct one in its surroundings once.

Every rule reads the answer only within a bounded window around a claim
(``Rule.reach``), so an answer that repeats a claim (``7 7 7 ...``) is
judged once per distinct context; the windows the memo keys on are
computed from the registry. The check (:mod:`relapse.grounding._check`)
makes one :class:`ClaimJudge` per answer for its digits' pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relapse.grounding._codes import FG001
from relapse.grounding._explain import Trace
from relapse.grounding._findings import failing_code
from relapse.grounding._index.blocks import Failing, Supported
from relapse.grounding._read.claims import Claim
from relapse.grounding._read.context import INLINE_MARKER_WINDOW
from relapse.grounding._read.quantity import Quantity, kind_of
from relapse.grounding.rules import Reads, Rule, Support, judge, plan
from relapse.grounding.rules.held import CITED_MARKER, MARKER

if TYPE_CHECKING:
    from relapse.grounding._check import BoundGroundingCheck

#: The rules whose reach is the inline enumeration's look-back, which the
#: claims' memo keys on apart: only for a number before "." or ")".
_KEYED_APART = frozenset({MARKER.name, CITED_MARKER.name})
_DIGIT_RULES = [rule for phase in plan(Reads.DIGITS, preview=True) for _, rule in phase]
#: Characters before and after a digit claim that the claims' memo keys on:
#: the farthest any rule of the digits' walk reads (``rule.reach``), so two
#: claims keyed alike get one verdict rightly. Computed from the registry,
#: not kept equal to it by hand.
MEMO_BEFORE = max(rule.reach[0] for rule in _DIGIT_RULES if rule.name not in _KEYED_APART)
MEMO_AFTER = max(rule.reach[1] for rule in _DIGIT_RULES)


class ClaimJudge:
    """
    Verdicts on an answer's digit claims, each distinct claim in its surroundings judged once.

    Every rule reads the answer only within a bounded window around the
    claim (:data:`MEMO_BEFORE`, :data:`MEMO_AFTER`, and the inline
    enumeration's look-back for a number before "." or ")"), so an answer
    that repeats a claim ("7 7 7 ...") is judged once per distinct context.
    An answer shorter than :data:`MEMO_FROM` characters is judged claim by
    claim, without the memo: it holds a few dozen claims, rarely one twice
    in the same surroundings, and cutting out and hashing each claim's
    surroundings would cost more than it saves.
    """

    __slots__ = ("_answer", "_check", "_codes", "_memo", "_trace", "_verdicts", "_warmed")

    def __init__(self, check: BoundGroundingCheck, answer: str, trace: Trace | None) -> None:
        self._check = check
        self._answer = answer
        self._codes = check._config.codes
        self._verdicts: dict[tuple[object, ...], tuple[Support, Rule | None, str]] = {}
        self._memo = len(answer) >= MEMO_FROM
        self._warmed = check._chunks.complete
        self._trace = trace

    def __call__(self, claims: list[Claim]) -> tuple[list[Failing], list[Supported]]:
        """
        Judge claims of the answer (of the codes reported).

        Returns:
            The claims that fail, as (code, start, end), and the ones a key
            or a spelling of the texts supports, as (code, start, end,
            support): the support's place is their evidence.
        """
        check, answer, codes, verdicts = self._check, self._answer, self._codes, self._verdicts
        memo, trace, walks, lookup = self._memo, self._trace, check._digits, check._lookup
        if not self._warmed:
            self._warmed = True
            check._chunks.warm(claim.needs[0] for claim in claims[:MAX_WARMED_CLAIMS])
        failing: list[Failing] = []
        supported: list[Supported] = []
        for claim in claims:
            code, start, end = claim[:3]
            if code not in codes:
                continue
            if memo:
                context = (
                    code,
                    claim[3:],
                    answer[max(0, start - MEMO_BEFORE) : start],
                    answer[start : end + MEMO_AFTER],
                    # Only a number before "." or ")" may continue an inline
                    # enumeration, whose previous marker is looked for far back.
                    answer[max(0, start - INLINE_MARKER_WINDOW) : start]
                    if answer[end : end + 1] in (".", ")")
                    else "",
                )
                judged = verdicts.get(context)
                if judged is None:
                    judged = verdicts[context] = self._judged(claim)
            else:
                # A short answer's claim, judged here (a call less a claim).
                kind = kind_of(claim)
                verdict, rule = judge(
                    walks[kind], lookup, Quantity(answer, claim, kind), code == FG001
                )
                if trace is not None:
                    trace.add(code, start, end, "digits", rule, verdict)
                if not verdict:
                    failing.append((failing_code(code, rule), start, end))
                elif verdict is not True:
                    supported.append((code, start, end, verdict))
                continue
            verdict = judged[0]
            if trace is not None:
                trace.add(code, start, end, "digits", judged[1], verdict)
            if not verdict:
                failing.append((judged[2], start, end))
            elif verdict is not True:
                supported.append((code, start, end, verdict))
        return failing, supported

    def _judged(self, claim: Claim) -> tuple[Support, Rule | None, str]:
        """
        Read a claim once and walk it through its kind's rules.

        Returns:
            ``(verdict, rule, code)``: the verdict, the rule that decided it,
            and the code of the claim's failing span (carrying the rule that
            vetoed it, if one did).
        """
        check, code = self._check, claim.code
        kind = kind_of(claim)
        # The digits' pass rescues numbers only (FG001).
        verdict, rule = judge(
            check._digits[kind],
            check._lookup,
            Quantity(self._answer, claim, kind),
            rescue=code == FG001,
        )
        return verdict, rule, code if verdict else failing_code(code, rule)


#: Characters of an answer from which the claims' memos keep a verdict per
#: claim in its surroundings (:class:`ClaimJudge`, and the words' pass): a
#: shorter answer holds too few claims to repeat one (a RAGTruth answer,
#: about 1,500 characters, about 20), and at most about a thousand, judged
#: in a few milliseconds.
MEMO_FROM = 2_048


#: Claims of an answer whose most selective keys are looked up first (see
#: :meth:`TextIndex.warm`); beyond them the search budget rules.
MAX_WARMED_CLAIMS = 256
