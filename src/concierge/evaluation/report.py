"""What a run of cases found: per turn, per case, and the totals `concierge eval` prints."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Failure = Literal["wrong figure", "nothing usable"]


@dataclass
class TurnScore:
    say: str
    passed: bool
    differences: list[str]
    calls: list[dict[str, Any]]
    answer: str
    ungrounded: list[str]
    ms: float
    provider_ms: float
    wrong_figure: bool = False  # a failed turn whose answer states a figure neither expected nor said


@dataclass
class CaseScore:
    id: str
    passed: bool
    turns: list[TurnScore] = field(default_factory=list)
    error: str | None = None
    kind: str | None = None

    @property
    def failure(self) -> Failure | None:
        """How a failed case failed: it stated a wrong figure in some turn, or it answered nothing usable."""
        if self.passed:
            return None
        return "wrong figure" if any(t.wrong_figure for t in self.turns) else "nothing usable"

    def line(self) -> str:
        if self.passed:
            return f"PASS {self.id}"
        if self.error:
            return f"FAIL {self.id}: {self.error}"
        failed = [f"turn {i}: {'; '.join(t.differences)}" for i, t in enumerate(self.turns, 1) if not t.passed]
        mark = " [wrong figure]" if self.failure == "wrong figure" else ""
        return f"FAIL {self.id}{mark}: " + " | ".join(failed)


@dataclass
class Report:
    file: str
    provider: str
    cases: list[CaseScore]
    passed: int
    failed: int
    turns_passed: int
    turns: int
    ungrounded: int
    turn_ms_p50: float
    turn_ms_p95: float
    provider_ms_p50: float
    wrong_figures: int = 0  # failed cases that stated a wrong figure
    nothing_usable: int = 0  # failed cases that did not
    kinds: dict[str, list[int]] = field(default_factory=dict)  # kind -> [passed, cases]
    notes: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, file: str, provider: str, scores: list[CaseScore], notes: list[str] | None = None) -> Report:
        turns = [t for c in scores for t in c.turns]
        kinds: dict[str, list[int]] = {}
        for case in scores:
            if case.kind:
                counts = kinds.setdefault(case.kind, [0, 0])
                counts[0] += case.passed
                counts[1] += 1
        return cls(
            file=file, provider=provider, cases=scores,
            passed=sum(c.passed for c in scores), failed=sum(not c.passed for c in scores),
            turns_passed=sum(t.passed for t in turns), turns=len(turns),
            ungrounded=sum(len(t.ungrounded) for t in turns),
            turn_ms_p50=percentile([t.ms for t in turns], 50), turn_ms_p95=percentile([t.ms for t in turns], 95),
            provider_ms_p50=percentile([t.provider_ms for t in turns], 50),
            wrong_figures=sum(c.failure == "wrong figure" for c in scores),
            nothing_usable=sum(c.failure == "nothing usable" for c in scores),
            kinds=kinds, notes=list(notes or []),
        )

    def lines(self) -> list[str]:
        out = [c.line() for c in self.cases]
        out += [f"kind {kind}: {passed}/{total} passed" for kind, (passed, total) in self.kinds.items()]
        out.append(f"turns: {self.turns_passed}/{self.turns} passed")
        if self.failed:
            out.append(f"failed: {self.wrong_figures} stated a wrong figure, {self.nothing_usable} answered "
                       "nothing usable")
        out.append(f"ungrounded numbers: {self.ungrounded}")
        out.append(f"turn time: p50 {self.turn_ms_p50:.2f} ms, p95 {self.turn_ms_p95:.2f} ms "
                   f"(provider p50 {self.provider_ms_p50:.2f} ms)")
        out += self.notes
        out.append(f"{self.passed} passed, {self.failed} failed")
        return out

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        for case, score in zip(data["cases"], self.cases, strict=True):
            case["failure"] = score.failure
        return data


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)], 3)
