"""The pool table (tests/pool_table.py): every shared record that prints a KV pool, predicted from the
config and the record's settings only. A modelled record must be within 5% and the median of the
modelled ones within 2%; every other record is named as not modelled, with its reason."""

from __future__ import annotations

import pytest

from conftest import records
from pool_table import cases, median_abs_error, row, table


def test_every_shared_record_is_in_the_table():
    assert {c["id"] for c in cases()} == set(records())


@pytest.mark.parametrize("case", [c for c in cases() if not c.get("not_modelled")], ids=lambda c: c["id"])
def test_modelled_record_within_5_percent(case):
    r = row(case)
    assert abs(r.error) <= 0.05, f"{r.rid}: predicted {r.predicted:,.0f} {r.unit}, printed {r.printed:,.0f}"


def test_median_of_modelled_records_within_2_percent():
    assert median_abs_error(table(), modelled_only=True) <= 0.02


@pytest.mark.parametrize("case", [c for c in cases() if c.get("not_modelled")], ids=lambda c: c["id"])
def test_not_modelled_record_gives_its_reason(case):
    assert len(case["not_modelled"]) > 40


def test_the_readme_shows_the_table_as_it_is():
    from pathlib import Path

    from pool_table import markdown

    readme = (Path(__file__).parent.parent / "README.md").read_text()
    assert markdown(table()) in readme


def _case(rid: str) -> dict:
    return next(c for c in cases() if c["id"] == rid)


def test_r23_within_1_percent_with_the_weights_sglang_holds():
    """QwQ-32B on 4 L4s (SGLang 0.4.3.post4): with the weights in PyTorch's allocator segments and the fp32 RoPE
    cache (15.54 GiB per GPU, as the log prints), the pool is within 1% (it was +9.1% with the config's 15.26)."""
    r = row(_case("R23"))
    assert not r.not_modelled and abs(r.error) <= 0.01


def test_r08_stays_named_for_the_memory_in_use_before_loading():
    """Qwen3-235B-A22B-FP8 on 4 H100s: the weights as held bring +10.2% to about +7.8%; what is left is memory in use
    before the weights load, which the record does not print, and the reason names the line that would settle it."""
    c = _case("R08")
    r = row(c)
    assert 0.07 < r.error < 0.085
    assert "before the weights load" in c["not_modelled"] and "Load weight begin. avail mem=" in c["not_modelled"]
