# SPDX-License-Identifier: Apache-2.0
"""The kubernetes-asyncio adapter of the benchmark suite (k8s-asyncio).

Typed calls through the generated CoreV1Api (V1Pod, V1PodList, V1NamespaceList models) on one
asyncio event loop; the watch is kubernetes_asyncio.watch.Watch().stream(...) with typed events
and its burst is a sibling task; logs are read_namespaced_pod_log(follow=True,
_preload_content=False) read line by line. The library has no metadata API: the two metadata
scenarios go through ApiClient.call_api with the PartialObjectMetadata(List) Accept header and
response type 'object' (an untyped dict). Mirrors benchmarks/suite/adapters/kubex/main.cpp.

    python k8s_asyncio_adapter.py --kubeconfig FILE --scenario S --namespace NS [plan options]

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

import aiohttp  # noqa: E402
from aiohttp import hdrs  # noqa: E402
from kubernetes_asyncio import client, config, watch  # noqa: E402

META = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
META_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"


def bench_pod(name: str, label: str = "") -> client.V1Pod:
    """A pod like the seed's, with a name of its own."""
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name=name, labels={"bench": label} if label else None),
        spec=client.V1PodSpec(
            containers=[client.V1Container(name="c", image="registry.k8s.io/pause:3.9")]),
    )


class Adapter:
    def __init__(self, api_client: client.ApiClient, plan: measure.Plan,
                 rec: measure.Recorder) -> None:
        self.api_client = api_client
        self.core = client.CoreV1Api(api_client)
        self.plan = plan
        self.rec = rec
        self.ns = plan.namespace

    async def metadata_call(self, path: str, accept: str, path_params: dict[str, str],
                            query: list[tuple[str, object]]) -> dict:
        """An untyped GET with a PartialObjectMetadata Accept header (no metadata API)."""
        return await self.api_client.call_api(
            path, "GET", path_params=path_params, query_params=query,
            header_params={"Accept": accept}, response_types_map={200: "object"},
            auth_settings=["BearerToken"], _return_http_data_only=True)

    async def iteration(self, measured: bool) -> int:
        s = self.plan.scenario
        if s == "single_get":
            await self.core.read_namespaced_pod("seed-0", self.ns)
            return 1
        if s == "single_get_metadata":
            await self.metadata_call("/api/v1/namespaces/{namespace}/pods/{name}", META,
                                     {"namespace": self.ns, "name": "seed-0"}, [])
            return 1
        if s in ("list_small", "list_medium", "list_large"):
            pods = await self.core.list_namespaced_pod(self.ns, limit=self.plan.list_size)
            return len(pods.items)
        if s == "list_metadata_only":
            metas = await self.metadata_call("/api/v1/namespaces/{namespace}/pods", META_LIST,
                                             {"namespace": self.ns},
                                             [("limit", self.plan.list_size)])
            return len(metas["items"])
        if s == "list_namespaces":
            namespaces = await self.core.list_namespace()
            return len(namespaces.items)
        if s == "single_create_delete":
            created = await self.core.create_namespaced_pod(
                self.ns, bench_pod("bench-" + secrets.token_hex(5)))
            await self.core.delete_namespaced_pod(created.metadata.name, self.ns,
                                                  grace_period_seconds=0)
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
        w = watch.Watch()
        seen = 0
        last = 0
        try:
            async for _event in w.stream(self.core.list_namespaced_pod, namespace=self.ns,
                                         allow_watch_bookmarks=False):
                t = now_ns()
                if measured and seen > 0:
                    self.rec.event(t - last)
                last = t
                seen += 1
                if seen >= self.plan.stream_count:
                    break
        finally:
            await w.close()
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
            await self.core.create_namespaced_pod(self.ns, pod)
            if sent is not None:
                sent[name][1] = now_ns()
            await self.core.delete_namespaced_pod(name, self.ns, grace_period_seconds=0)

    async def watch_live(self, measured: bool) -> int:
        """From a list's resourceVersion, only the burst's pods (by label): counts their ADDED
        and DELETED events and times each from when its create or delete request was sent."""
        label = "live-" + secrets.token_hex(3)
        selector = "bench=" + label
        one = await self.core.list_namespaced_pod(self.ns, label_selector=selector, limit=1)
        sent: dict[str, list[int]] = {}
        async with asyncio.TaskGroup() as tg:
            counted = tg.create_task(
                self.receive_live(selector, one.metadata.resource_version, sent, measured))
            tg.create_task(self.burst("watch-live-", label, sent))
        return counted.result()

    async def receive_live(self, selector: str, resource_version: str,
                           sent: dict[str, list[int]], measured: bool) -> int:
        w = watch.Watch()
        counted = 0
        try:
            async for event in w.stream(self.core.list_namespaced_pod, namespace=self.ns,
                                        label_selector=selector,
                                        resource_version=resource_version,
                                        allow_watch_bookmarks=False):
                t = now_ns()
                kind = event["type"]
                if kind not in ("ADDED", "DELETED"):
                    continue
                counted += 1
                times = sent.get(event["object"].metadata.name or "")
                if measured and times is not None:
                    self.rec.event(t - (times[0] if kind == "ADDED" else times[1]))
                if counted >= 50:
                    break
        finally:
            await w.close()
        return counted

    async def stream_logs(self, measured: bool) -> int:
        """Follow log-emitter's log (from its start) until N lines."""
        resp = await self.core.read_namespaced_pod_log(
            "log-emitter", self.ns, container="c", follow=True, _preload_content=False)
        lines = 0
        last = 0
        try:
            while lines < self.plan.stream_count:
                line = await resp.content.readline()
                if not line:
                    break
                t = now_ns()
                if measured and lines > 0:
                    self.rec.event(t - last)
                last = t
                lines += 1
        finally:
            resp.close()
        return lines


async def run(args: dict[str, str]) -> None:
    plan = measure.Plan.from_args(args)
    rec = measure.Recorder(plan)
    rec.fact("adapter", "k8s-asyncio")
    rec.fact("variant", f"typed (generated models), kubernetes-asyncio "
                        f"{version('kubernetes-asyncio')}, aiohttp {version('aiohttp')}; "
                        "metadata: untyped call_api")
    rec.fact("runtime", measure.runtime("asyncio"))
    rec.fact("http", "1.1")
    # aiohttp adds its default Accept-Encoding; the library has no option to remove it.
    rec.fact("accept_encoding",
             str(aiohttp.ClientRequest.DEFAULT_HEADERS.get(hdrs.ACCEPT_ENCODING, "")))

    configuration = client.Configuration()
    await config.load_kube_config(config_file=args["kubeconfig"],
                                  client_configuration=configuration)
    for value in (configuration.api_key or {}).values():
        measure.add_secret(value)
    # Defaults otherwise: keep-alive, pool of 100, no client-side rate limit, no retries.
    async with client.ApiClient(configuration) as api_client:
        adapter = Adapter(api_client, plan, rec)
        await measure.run_async(rec, adapter.iteration)
    rec.print()


if __name__ == "__main__":
    measure.main(os.path.basename(__file__), lambda args: measure.run_coroutine(run(args)))
