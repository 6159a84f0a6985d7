# SPDX-License-Identifier: Apache-2.0
"""The Kubex (Python) adapters of the benchmark suite: kubex-py-aiohttp and kubex-py-httpx.

Every scenario through Kubex's typed Api[Pod] / Api[Namespace] (Pydantic models), its
first-class metadata API (api.metadata.get / .list) and its log stream, on one asyncio event
loop; the watch burst runs as a sibling task. Mirrors benchmarks/suite/adapters/kubex/main.cpp.

    python kubex_adapter.py --backend aiohttp|httpx --kubeconfig FILE --scenario S
                            --namespace NS [plan options, see measure.py]

Prints one JSON line (benchmarks/suite/run.py reads it).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
from importlib.metadata import version

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import measure  # noqa: E402
from measure import now_ns  # noqa: E402

from kubex.api import Api  # noqa: E402
from kubex.client import ClientChoice, ClientOptions, create_client  # noqa: E402
from kubex.configuration.file_config import configure_from_kubeconfig  # noqa: E402
from kubex.core.watch_event import EventType  # noqa: E402
from kubex.k8s.v1_35.core.v1.container import Container  # noqa: E402
from kubex.k8s.v1_35.core.v1.namespace import Namespace  # noqa: E402
from kubex.k8s.v1_35.core.v1.pod import Pod  # noqa: E402
from kubex.k8s.v1_35.core.v1.pod_spec import PodSpec  # noqa: E402
from kubex_core.models.metadata import ObjectMetadata  # noqa: E402


def bench_pod(name: str, label: str = "") -> Pod:
    """A pod like the seed's, with a name of its own."""
    return Pod(
        metadata=ObjectMetadata(name=name, labels={"bench": label} if label else None),
        spec=PodSpec(containers=[Container(name="c", image="registry.k8s.io/pause:3.9")]),
    )


def accept_encoding(backend: str) -> str:
    """What the backend puts in Accept-Encoding on every request (Kubex has no option to turn
    it off; the server has response compression off, so bodies come back uncompressed)."""
    if backend == "aiohttp":
        import aiohttp
        from aiohttp import hdrs
        return str(aiohttp.ClientRequest.DEFAULT_HEADERS.get(hdrs.ACCEPT_ENCODING, ""))
    import httpx._client as httpx_client
    return str(getattr(httpx_client, "ACCEPT_ENCODING", "gzip, deflate"))


class Adapter:
    def __init__(self, client, plan: measure.Plan, rec: measure.Recorder) -> None:
        self.client = client
        self.plan = plan
        self.rec = rec
        self.pods: Api[Pod] = Api(Pod, client=client, namespace=plan.namespace)
        self.namespaces: Api[Namespace] = Api(Namespace, client=client)

    async def iteration(self, measured: bool) -> int:
        s = self.plan.scenario
        if s == "single_get":
            await self.pods.get("seed-0")
            return 1
        if s == "single_get_metadata":
            await self.pods.metadata.get("seed-0")
            return 1
        if s in ("list_small", "list_medium", "list_large"):
            pods = await self.pods.list(limit=self.plan.list_size)
            return len(pods.items)
        if s == "list_metadata_only":
            metas = await self.pods.metadata.list(limit=self.plan.list_size)
            return len(metas.items)
        if s == "list_namespaces":
            namespaces = await self.namespaces.list()
            return len(namespaces.items)
        if s == "single_create_delete":
            created = await self.pods.create(bench_pod("bench-" + secrets.token_hex(5)))
            await self.pods.delete(created.metadata.name, grace_period_seconds=0)
            return 1
        if s == "watch_n_events":
            async with asyncio.TaskGroup() as tg:
                events = tg.create_task(self.receive_n(measured))
                tg.create_task(self.burst("watch-bench-", "", None))
            return events.result()
        if s == "watch_live":
            return await self.watch_live(measured)
        if s == "stream_logs_n_lines":
            return await self.stream_logs(measured)
        raise ValueError(f"unknown scenario '{s}'")

    async def receive_n(self, measured: bool) -> int:
        """A watch without resourceVersion (the replay of existing pods) until N events; the
        gaps between consecutive events are recorded."""
        watch = self.pods.watch(allow_bookmarks=False)
        seen = 0
        last = 0
        try:
            async for _event in watch:
                t = now_ns()
                if measured and seen > 0:
                    self.rec.event(t - last)
                last = t
                seen += 1
                if seen >= self.plan.stream_count:
                    break
        finally:
            await watch.aclose()
        return seen

    async def burst(self, prefix: str, label: str,
                    sent: dict[str, list[int]] | None) -> None:
        """25 sequential create+delete pairs (after 50 ms when unlabelled); `sent` (when
        given) records when each request left."""
        if not label:
            await asyncio.sleep(0.05)
        for i in range(25):
            name = f"{prefix}{i}"
            pod = bench_pod(name, label)
            if sent is not None:
                sent[name] = [now_ns(), 0]
            await self.pods.create(pod)
            if sent is not None:
                sent[name][1] = now_ns()
            await self.pods.delete(name, grace_period_seconds=0)

    async def watch_live(self, measured: bool) -> int:
        """From a list's resourceVersion, only the burst's pods (by label): counts their ADDED
        and DELETED events and times each from when its create or delete request was sent."""
        label = "live-" + secrets.token_hex(3)
        selector = "bench=" + label
        one = await self.pods.list(label_selector=selector, limit=1)
        watch = self.pods.watch(label_selector=selector,
                                resource_version=one.metadata.resource_version,
                                allow_bookmarks=False)
        sent: dict[str, list[int]] = {}
        async with asyncio.TaskGroup() as tg:
            counted = tg.create_task(self.receive_live(watch, sent, measured))
            tg.create_task(self.burst("watch-live-", label, sent))
        return counted.result()

    async def receive_live(self, watch, sent: dict[str, list[int]], measured: bool) -> int:
        counted = 0
        try:
            async for event in watch:
                t = now_ns()
                added = event.type == EventType.ADDED
                if not added and event.type != EventType.DELETED:
                    continue
                counted += 1
                times = sent.get(event.object.metadata.name or "")
                if measured and times is not None:
                    self.rec.event(t - (times[0] if added else times[1]))
                if counted >= 50:
                    break
        finally:
            await watch.aclose()
        return counted

    async def stream_logs(self, measured: bool) -> int:
        """Follow log-emitter's log (from its start) until N lines."""
        stream = self.pods.logs.stream("log-emitter", container="c")
        lines = 0
        last = 0
        try:
            async for _line in stream:
                t = now_ns()
                if measured and lines > 0:
                    self.rec.event(t - last)
                last = t
                lines += 1
                if lines >= self.plan.stream_count:
                    break
        finally:
            await stream.aclose()
        return lines


async def run(args: dict[str, str]) -> None:
    backend = args.get("backend", "aiohttp")
    if backend not in ("aiohttp", "httpx"):
        raise ValueError(f"--backend must be aiohttp or httpx, not '{backend}'")
    plan = measure.Plan.from_args(args)
    rec = measure.Recorder(plan)
    rec.fact("adapter", f"kubex-py-{backend}")
    rec.fact("variant", f"typed (pydantic), kubex {version('kubex')}, {backend} "
                        f"{version(backend)}; metadata: Api.metadata")
    rec.fact("runtime", measure.runtime("asyncio"))
    rec.fact("http", "1.1")
    rec.fact("accept_encoding", accept_encoding(backend))

    # Kubex reads the kubeconfig named by KUBECONFIG (its current context).
    os.environ["KUBECONFIG"] = args["kubeconfig"]
    configuration = await configure_from_kubeconfig()
    token = getattr(configuration, "token", None)
    measure.add_secret(token.get_secret_value() if hasattr(token, "get_secret_value")
                       else token if isinstance(token, str) else None)
    choice = ClientChoice.AIOHTTP if backend == "aiohttp" else ClientChoice.HTTPX
    # Defaults otherwise: keep-alive on, pool of 100, no client-side rate limit, no retries.
    options = ClientOptions(log_api_warnings=False)
    client = await create_client(configuration, choice, options)
    async with client:
        adapter = Adapter(client, plan, rec)
        await measure.run_async(rec, adapter.iteration)
    rec.print()


if __name__ == "__main__":
    measure.main(os.path.basename(__file__), lambda args: measure.run_coroutine(run(args)))
