"""GPU memory from a DCGM exporter's Prometheus endpoint, for servers on other machines and clusters.

dcgm-exporter publishes `DCGM_FI_DEV_FB_USED` and `DCGM_FI_DEV_FB_FREE` (framebuffer MiB, 2^20 bytes) and,
where its field list has it, `DCGM_FI_DEV_FB_RESERVED`, each with the labels `gpu`, `UUID`, `modelName` and
`Hostname` (dcgm-exporter's default-counters.csv). The page is parsed with prometheus-client's text parser.
The device's total is used + free + reserved. The exporter refreshes its values at its own collection interval
(`-c`, 30 s by default): peaks shorter than that are not seen, and the report says so. No per-process figures.
"""

from __future__ import annotations

import time

from ..errors import SourceUnavailable
from .reading import DeviceReading, Reading, SourceInfo

MIB = 2**20
FIELDS = ("DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_RESERVED")


def parse(text: str, *, hostname: str | None = None) -> list[DeviceReading]:
    """The GPUs on one exporter page (Prometheus text format), optionally those of one `Hostname`. Raises
    SourceUnavailable when the page is not Prometheus text or holds no framebuffer series."""
    from prometheus_client.parser import text_string_to_metric_families

    values: dict[tuple[str, str], dict[str, float]] = {}
    names: dict[tuple[str, str], str] = {}
    try:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name not in FIELDS:
                    continue
                host = sample.labels.get("Hostname", "")
                if hostname and host != hostname:
                    continue
                key = (host, sample.labels.get("gpu", sample.labels.get("UUID", "?")))
                values.setdefault(key, {})[sample.name] = float(sample.value)
                names[key] = sample.labels.get("modelName", "GPU")
    except (ValueError, TypeError, IndexError) as e:
        raise SourceUnavailable("dcgm", f"the page is not Prometheus text ({e})") from None
    devices = []
    for (host, gpu), v in sorted(values.items()):
        used, free = v.get("DCGM_FI_DEV_FB_USED"), v.get("DCGM_FI_DEV_FB_FREE")
        if used is None or used < 0:
            continue
        total = None if free is None or free < 0 else int((used + free + max(0.0, v.get("DCGM_FI_DEV_FB_RESERVED",
                                                                                   0.0))) * MIB)
        try:
            index = int(gpu)
        except ValueError:
            index = len(devices)
        devices.append(DeviceReading(index=index, name=names[(host, gpu)], total_bytes=total,
                                     used_bytes=int(used * MIB), process_note="DCGM gives no per-process figures",
                                     host=host))
    if not devices:
        raise SourceUnavailable("dcgm", "the page has no DCGM_FI_DEV_FB_USED series"
                                + (f" for Hostname {hostname}" if hostname else ""),
                                hint="Point --dcgm-url at dcgm-exporter's /metrics (port 9400 by default).")
    return devices


class DcgmSource:
    """The GPUs one or more dcgm-exporter pages list. `get` fetches a URL's text (server/http.py's client);
    devices: the `gpu` indices to keep (None: all)."""

    def __init__(self, urls: list[str], get, *, hostname: str | None = None, devices: list[int] | None = None
                 ) -> None:
        self._urls, self._get, self._host, self._devices = urls, get, hostname, devices
        self.info = SourceInfo(name="dcgm", basis="device",
                               notes=("the exporter refreshes at its collection interval (30 s by default): "
                                      "shorter peaks are not seen", "DCGM gives each GPU's whole use, other "
                                      "processes' included"))
        self.read()

    def read(self) -> Reading:
        devices = []
        for url in self._urls:
            from ..server.http import Unreachable

            try:
                reply = self._get(url)
            except Unreachable as e:
                raise SourceUnavailable("dcgm", f"{url} did not answer: {e.reason}") from None
            if reply.status != 200:
                raise SourceUnavailable("dcgm", f"{url} answered HTTP {reply.status}")
            devices += parse(reply.text, hostname=self._host)
        if self._devices is not None:
            devices = [d for d in devices if d.index in self._devices]
        if len({d.index for d in devices}) < len(devices):  # several hosts: number their GPUs in one sequence
            from dataclasses import replace

            devices = [replace(d, index=i) for i, d in enumerate(devices)]
        return Reading(t_s=time.monotonic(), devices=tuple(devices), basis="device")

    def close(self) -> None:
        return None
