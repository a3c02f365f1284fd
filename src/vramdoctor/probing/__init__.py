"""`vramdoctor probe`: measure a live server, split the baseline from the increment, hold both against the
estimate.

Python API (also what the CLI calls):

    from vramdoctor.probing import probe, ProbeOptions
    result = probe(ProbeOptions(url="http://127.0.0.1:8080", tiers=(128, 2048)))
    result.bottleneck, result.baseline_bytes, [t.increment_bytes for t in result.tiers]

`vramdoctor.probe(url, **options)` is the same in one call; `vramdoctor.Sampler` samples any memory source in
the background (see measure/sampler.py) and `vramdoctor.memory_source(...)` opens one.
"""

from .result import Comparison, DeviceSummary, ProbeResult, Tier
from .run import DEFAULT_OUTPUT_TIERS, DEFAULT_TIERS, ProbeOptions, probe

__all__ = ["probe", "ProbeOptions", "ProbeResult", "Tier", "DeviceSummary", "Comparison", "DEFAULT_TIERS",
           "DEFAULT_OUTPUT_TIERS"]
