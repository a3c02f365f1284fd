"""vramdoctor: GPU memory of an LLM inference server as two ledgers (weights, KV cache) plus overhead.

The library's measurements, for notebooks and for use inside an engine's own process:

- `vramdoctor.probe(url, **options)`: the probe of a live server (`vramdoctor probe`), returning a
  `vramdoctor.probing.ProbeResult`; options are those of `vramdoctor.probing.ProbeOptions`.
- `vramdoctor.Sampler(source, interval_s=0.02)`: a background sampler of any memory source, as a context
  manager (`with Sampler(src) as s: ...; s.peak("process")`).
- `vramdoctor.memory_source(name="auto", pid=None)`: a memory source (nvml, nvidia-smi, amdsmi, psutil, dcgm,
  torch) for a process tree or the devices.

Nothing is imported until used: `import vramdoctor` stays cheap.
"""

__version__ = "0.1.0"


def probe(url: str, **options):
    """Probe the server at `url` (see vramdoctor.probing.ProbeOptions for the options); returns a ProbeResult.
    Raises UsageError for bad options; a failure of the server is the result's `error`."""
    from .probing import ProbeOptions
    from .probing import probe as _probe

    return _probe(ProbeOptions(url=url, **options))


def memory_source(name: str = "auto", *, pid: int | None = None, devices: list[int] | None = None,
                  dcgm_urls: list[str] | None = None):
    """A memory source by name ("auto", "nvml", "nvidia-smi", "amdsmi", "psutil", "dcgm", "torch") watching the
    process tree of `pid` (None: the devices only; "torch": this process's own allocator). Raises
    SourceUnavailable with the reason when it cannot be read."""
    if name == "torch":
        from .measure.torch_alloc import TorchSource

        return TorchSource(devices)
    from .measure import open_source
    from .measure.host import ProcessTree

    tree = ProcessTree(pid) if pid is not None else None
    http_get = None
    if dcgm_urls:
        from .server.http import Http

        http_get = Http(timeout_s=5.0).get
    src, _notes = open_source(name, tree=tree, devices=devices, dcgm_urls=dcgm_urls, http_get=http_get)
    return src


def __getattr__(name: str):
    if name == "Sampler":
        from .measure.sampler import Sampler

        return Sampler
    raise AttributeError(f"module 'vramdoctor' has no attribute {name!r}")
