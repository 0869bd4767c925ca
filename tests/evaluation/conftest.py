"""The schemas of the onboarding tests (tests/onboarding/draft_shop.py, jaffle.py), importable here."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "onboarding"))
