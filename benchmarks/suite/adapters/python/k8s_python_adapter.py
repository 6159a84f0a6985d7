# SPDX-License-Identifier: Apache-2.0
"""The official (synchronous) Kubernetes Python client's adapter of the benchmark suite
(k8s-python).

Typed calls through the generated CoreV1Api (V1Pod, V1PodList, V1NamespaceList models) over
urllib3, blocking, in the main thread; the watch is kubernetes.watch.Watch().stream(...) with
typed events, and its create+delete burst runs in a second thread with an ApiClient of its own;
logs are read_namespaced_pod_log(follow=True, _preload_content=False) read line by line. The
library has no metadata API: the two metadata scenarios go through ApiClient.call_api with the
PartialObjectMetadata(List) Accept header and response type 'object' (an untyped dict).
Mirrors benchmarks/suite/adapters/kubex/main.cpp.

    python k8s_python_adapter.py --kubeconfig FILE --scenario S --namespace NS [plan options]

Prints one JSON line (benchmarks/suite/run.py reads it).
"""

from __future__ import annotations

import os
import secrets
import sys
import threading
import time
from importlib.metadata import version
from typing import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import measure  # noqa: E402
from measure import now_ns  # noqa: E402

from kubernetes import client, config, watch  # noqa: E402

META = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
META_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"


def bench_pod(name: str, label: str = "") -> client.V1Pod:
    """A pod like the seed's, with a name of its own."""
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name=name, labels={"bench": label} if label else None),
        spec=client.V1PodSpec(
            containers=[client.V1Container(name="c", image="registry.k8s.io/pause:3.9")]),
    )


class Sibling:
    """A function run in a second thread; join() re-raises what it raised."""

    def __init__(self, fn: Callable[[], None]) -> None:
        self._error: BaseException | None = None

        def body() -> None:
            try:
                fn()
            except BaseException as e:  # noqa: BLE001 - handed to the joining thread
                self._error = e
        self._thread = threading.Thread(target=body, daemon=True)
        self._thread.start()

    def join(self) -> None:
        self._thread.join()
        if self._error is not None:
            raise self._error


class Adapter:
    def __init__(self, api_client: client.ApiClient, burst_client: client.ApiClient,
                 plan: measure.Plan, rec: measure.Recorder) -> None:
        self.api_client = api_client
        self.core = client.CoreV1Api(api_client)
        self.burst_core = client.CoreV1Api(burst_client)  # the burst thread's own client
        self.plan = plan
        self.rec = rec
        self.ns = plan.namespace

    def metadata_call(self, path: str, accept: str, path_params: dict[str, str],
                      query: list[tuple[str, object]]) -> dict:
        """An untyped GET with a PartialObjectMetadata Accept header (no metadata API)."""
        return self.api_client.call_api(
            path, "GET", path_params=path_params, query_params=query,
            header_params={"Accept": accept}, response_type="object",
            auth_settings=["BearerToken"], _return_http_data_only=True)

    def iteration(self, measured: bool) -> int:
        s = self.plan.scenario
        if s == "single_get":
            self.core.read_namespaced_pod("seed-0", self.ns)
            return 1
        if s == "single_get_metadata":
            self.metadata_call("/api/v1/namespaces/{namespace}/pods/{name}", META,
                               {"namespace": self.ns, "name": "seed-0"}, [])
            return 1
        if s in ("list_small", "list_medium", "list_large"):
            pods = self.core.list_namespaced_pod(self.ns, limit=self.plan.list_size)
            return len(pods.items)
        if s == "list_metadata_only":
            metas = self.metadata_call("/api/v1/namespaces/{namespace}/pods", META_LIST,
                                       {"namespace": self.ns}, [("limit", self.plan.list_size)])
            return len(metas["items"])
        if s == "list_namespaces":
            namespaces = self.core.list_namespace()
            return len(namespaces.items)
        if s == "single_create_delete":
            created = self.core.create_namespaced_pod(
                self.ns, bench_pod("bench-" + secrets.token_hex(5)))
            self.core.delete_namespaced_pod(created.metadata.name, self.ns,
                                            grace_period_seconds=0)
            return 1
        if s == "watch_n_events":
            sibling = Sibling(lambda: self.burst("watch-bench-", "", None))
            try:
                events = self.receive_n(measured)
            finally:
                sibling.join()
            return events
        if s == "watch_live":
            return self.watch_live(measured)
        if s == "stream_logs_n_lines":
            return self.stream_logs(measured)
        raise ValueError(f"unknown scenario '{s}'")

    def receive_n(self, measured: bool) -> int:
        """A watch without resourceVersion (the replay of existing pods) until N events; the
        gaps between consecutive events are recorded."""
        w = watch.Watch()
        stream = w.stream(self.core.list_namespaced_pod, namespace=self.ns,
                          allow_watch_bookmarks=False)
        seen = 0
        last = 0
        try:
            for _event in stream:
                t = now_ns()
                if measured and seen > 0:
                    self.rec.event(t - last)
                last = t
                seen += 1
                if seen >= self.plan.stream_count:
                    break
        finally:
            w.stop()
            stream.close()  # closes the response (the generator's finally)
        return seen

    def burst(self, prefix: str, label: str, sent: dict[str, list[int]] | None) -> None:
        """25 sequential create+delete pairs (after 50 ms when unlabelled), in the sibling
        thread with its own client; `sent` (when given) records when each request left."""
        if not label:
            time.sleep(0.05)
        for i in range(25):
            name = f"{prefix}{i}"
            pod = bench_pod(name, label)
            if sent is not None:
                sent[name] = [now_ns(), 0]
            self.burst_core.create_namespaced_pod(self.ns, pod)
            if sent is not None:
                sent[name][1] = now_ns()
            self.burst_core.delete_namespaced_pod(name, self.ns, grace_period_seconds=0)

    def watch_live(self, measured: bool) -> int:
        """From a list's resourceVersion, only the burst's pods (by label): counts their ADDED
        and DELETED events and times each from when its create or delete request was sent."""
        label = "live-" + secrets.token_hex(3)
        selector = "bench=" + label
        one = self.core.list_namespaced_pod(self.ns, label_selector=selector, limit=1)
        w = watch.Watch()
        stream = w.stream(self.core.list_namespaced_pod, namespace=self.ns,
                          label_selector=selector,
                          resource_version=one.metadata.resource_version,
                          allow_watch_bookmarks=False)
        sent: dict[str, list[int]] = {}
        sibling = Sibling(lambda: self.burst("watch-live-", label, sent))
        counted = 0
        try:
            for event in stream:
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
            w.stop()
            stream.close()
            sibling.join()
        return counted

    def stream_logs(self, measured: bool) -> int:
        """Follow log-emitter's log (from its start) until N lines."""
        resp = self.core.read_namespaced_pod_log(
            "log-emitter", self.ns, container="c", follow=True, _preload_content=False)
        lines = 0
        last = 0
        try:
            for _line in resp:  # urllib3's HTTPResponse yields lines
                t = now_ns()
                if measured and lines > 0:
                    self.rec.event(t - last)
                last = t
                lines += 1
                if lines >= self.plan.stream_count:
                    break
        finally:
            resp.close()
            resp.release_conn()
        return lines


def run(args: dict[str, str]) -> None:
    plan = measure.Plan.from_args(args)
    rec = measure.Recorder(plan)
    rec.fact("adapter", "k8s-python")
    rec.fact("variant", f"typed (generated models), kubernetes {version('kubernetes')}, "
                        f"urllib3 {version('urllib3')}; metadata: untyped call_api")
    rec.fact("runtime", measure.runtime("sync (urllib3; watch burst in a 2nd thread)"))
    rec.fact("http", "1.1")
    # urllib3 sends no Accept-Encoding of its own, so http.client adds "identity".
    rec.fact("accept_encoding", "identity")

    configuration = client.Configuration()
    config.load_kube_config(config_file=args["kubeconfig"], client_configuration=configuration)
    for value in (configuration.api_key or {}).values():
        measure.add_secret(value)
    # Defaults otherwise: keep-alive (urllib3 pool), no client-side rate limit.
    with client.ApiClient(configuration) as api_client, \
            client.ApiClient(configuration) as burst_client:
        adapter = Adapter(api_client, burst_client, plan, rec)
        measure.run_sync(rec, adapter.iteration)
    rec.print()


if __name__ == "__main__":
    measure.main(os.path.basename(__file__), run)
