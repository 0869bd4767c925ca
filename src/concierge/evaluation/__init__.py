"""Replaying conversation cases and scoring them, as docs/eval-format.md defines.

- `cases`: reading a case file (JSON Lines) and checking each case;
- `scoring`: one turn against its expectation, and whether a failed answer stated a wrong figure;
- `databases`: the data each case runs on (a demo copy, or the settings folder's database), left
  as it was for the next case;
- `runner`: the cases through the real agent loop and provider;
- `report`: per case, per kind, and the totals `concierge eval` prints;
- `questions`: cases generated from a live database, with figures computed by SQL of their own.
"""

from concierge.evaluation.cases import load_cases
from concierge.evaluation.report import CaseScore, Report, TurnScore, percentile
from concierge.evaluation.runner import run
from concierge.evaluation.scoring import (
    answer_has,
    answer_norm,
    call_matches,
    calls_match,
    norm,
    same_value,
    score_turn,
    stated_wrong_figure,
)

__all__ = ["CaseScore", "Report", "TurnScore", "answer_has", "answer_norm", "call_matches", "calls_match",
           "load_cases", "norm", "percentile", "run", "same_value", "score_turn", "stated_wrong_figure"]
