import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def load_config(name: str) -> dict:
    """A config from tests/data/configs or tests/data/ground_truth/configs."""
    for base in (DATA / "configs", DATA / "ground_truth" / "configs"):
        p = base / name
        if p.exists():
            return json.loads(p.read_text())
    raise FileNotFoundError(name)


def records() -> dict[str, dict]:
    out = {}
    for line in (DATA / "ground_truth" / "records.jsonl").read_text().splitlines():
        r = json.loads(line)
        out[r["id"]] = r
    return out


@pytest.fixture(scope="session")
def gt() -> dict[str, dict]:
    return records()
