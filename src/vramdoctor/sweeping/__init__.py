"""`vramdoctor sweep`: single-variable restart experiments (context, then quantization, then the concurrency
knobs), each run measured and rechecked for stability, ending in a recommendation.

    from vramdoctor.sweeping import sweep, SweepOptions
    result = sweep(SweepOptions(model="m.gguf", engine="llamacpp", context=(1024, 32768)))
"""

from .run import STAGES, SweepOptions, sweep

__all__ = ["sweep", "SweepOptions", "STAGES"]
