"""vramdoctor: GPU memory of an LLM inference server as two ledgers (weights, KV cache) plus overhead."""

__version__ = "0.1.0"
