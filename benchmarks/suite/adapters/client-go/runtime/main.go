// SPDX-License-Identifier: Apache-2.0
// The client-go adapter of the runtime benchmark (benchmarks/suite/runtime.py): a shared
// informer of a namespace's pods synced and held (typed, with a transform, or the metadata
// informer), or a typed watch read through a stream of modifications.
//
//	bench-client-go-runtime --kubeconfig FILE --namespace NS --scenario reflector --expect N
//	                        [--initial list|watch_list] [--variant full|no_managed_fields|metadata]
//	                        [--settle-seconds S]
//	bench-client-go-runtime --kubeconfig FILE --namespace NS --scenario watch_throughput
//	                        --resource-version RV --expect N
//	(either with [--encoding json|protobuf])
//
// The initial state: client-go 0.35's informers stream it (WatchList) by default; list sets
// the WatchListClient gate off through its environment variable before client-go reads it.
// --encoding json (default) speaks JSON everywhere, like the other adapters (row client-go);
// protobuf keeps client-go 0.35's default for core types and metadata (row client-go-proto).
// Prints one JSON line on stdout; anything else goes to stderr.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"kubex.dev/bench/client-go/measure"
)

var (
	nowNs = measure.NowNs
	cpuNs = measure.CPUNs
)

// rssKB is VmRSS in KiB; -1 when unavailable.
func rssKB() int64 { return measure.ProcStatusKB("VmRSS") }

// heapBytes is the Go heap's live bytes after a full collection: what the program holds.
func heapBytes() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

func flags() map[string]string {
	out := map[string]string{}
	a := os.Args[1:]
	for i := 0; i+1 < len(a); i += 2 {
		if !strings.HasPrefix(a[i], "--") {
			fail(fmt.Errorf("expected --name value pairs, got %q", a[i]))
		}
		out[a[i][2:]] = a[i+1]
	}
	return out
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "bench-client-go-runtime: %v\n", err)
	os.Exit(1)
}

func main() {
	f := flags()
	for _, k := range []string{"kubeconfig", "namespace", "scenario"} {
		if f[k] == "" {
			fail(fmt.Errorf("missing --%s", k))
		}
	}
	expect, _ := strconv.Atoi(f["expect"])
	out := map[string]any{"adapter": "client-go", "scenario": f["scenario"]}
	initial := f["initial"]
	if initial == "" {
		initial = "list"
	}
	switch initial {
	case "list":
		os.Setenv("KUBE_FEATURE_WatchListClient", "false")
	case "watch_list":
		os.Setenv("KUBE_FEATURE_WatchListClient", "true")
	default:
		fail(errors.New("--initial must be list or watch_list"))
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", f["kubeconfig"])
	if err != nil {
		fail(err)
	}
	cfg.QPS, cfg.Burst = -1, 0 // no client-side limit, as the other adapters
	cfg.UserAgent = "client-go-bench-runtime"
	cfg.DisableCompression = true // every client gets the same bytes
	switch f["encoding"] {
	case "", "json":
		out["adapter"] = "client-go"
		// Explicit: client-go 0.35's core clients otherwise default to protobuf, and its
		// metadata client always asks for protobuf first.
		cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
		cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return jsonMetadata{rt} }
	case "protobuf":
		out["adapter"] = "client-go-proto"
	default:
		fail(fmt.Errorf("--encoding must be json or protobuf"))
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fail(err)
	}
	ns := f["namespace"]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The connection is up before the baseline, as in the other adapters.
	if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
		fail(err)
	}

	switch f["scenario"] {
	case "watch_throughput":
		watchThroughput(ctx, cs, ns, f["resource-version"], expect, out)
	case "reflector":
		settle, _ := strconv.Atoi(f["settle-seconds"])
		if f["settle-seconds"] == "" {
			settle = 2
		}
		variant := f["variant"]
		if variant == "" {
			variant = "full"
		}
		out["initial"], out["variant"] = initial, variant
		reflect(ctx, cfg, cs, ns, variant, expect, time.Duration(settle)*time.Second, out)
	default:
		fail(fmt.Errorf("unknown scenario %q", f["scenario"]))
	}
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
}

// phase tells the driver that the measured part starts ("loop") or has ended ("done"), so that
// it reads the control plane's CPU time over it.
func phase(p string) { fmt.Printf("{\"phase\":%q}\n", p) }

// jsonMetadata makes the metadata client's Accept header JSON's, as the suite's adapter does.
type jsonMetadata struct{ next http.RoundTripper }

func (j jsonMetadata) RoundTrip(req *http.Request) (*http.Response, error) {
	accept := req.Header.Get("Accept")
	if strings.HasPrefix(accept, "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata") {
		req = req.Clone(req.Context())
		kind := "PartialObjectMetadata"
		if strings.Contains(accept, "as=PartialObjectMetadataList;") {
			kind = "PartialObjectMetadataList"
		}
		req.Header.Set("Accept", "application/json;as="+kind+";g=meta.k8s.io;v=v1,application/json")
	}
	return j.next.RoundTrip(req)
}

func reflect(ctx context.Context, cfg *rest.Config, cs kubernetes.Interface, ns, variant string,
	expect int, settle time.Duration, out map[string]any) {
	baseRSS, baseHeap := rssKB(), heapBytes()
	phase("loop")
	t0, c0 := nowNs(), cpuNs()
	var informer cache.SharedIndexInformer
	switch variant {
	case "full", "no_managed_fields":
		factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
		informer = factory.Core().V1().Pods().Informer()
		if variant == "no_managed_fields" {
			if err := informer.SetTransform(func(obj any) (any, error) {
				if p, ok := obj.(*corev1.Pod); ok {
					p.ManagedFields = nil
				}
				return obj, nil
			}); err != nil {
				fail(err)
			}
		}
		factory.Start(ctx.Done())
	case "metadata":
		mc, err := metadata.NewForConfig(cfg)
		if err != nil {
			fail(err)
		}
		factory := metadatainformer.NewFilteredSharedInformerFactory(mc, 0, ns, nil)
		informer = factory.ForResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Informer()
		factory.Start(ctx.Done())
	default:
		fail(errors.New("--variant must be full, no_managed_fields or metadata"))
	}
	// Polled every millisecond rather than through WaitForCacheSync, whose 100 ms period would
	// count against client-go.
	for !(informer.HasSynced() && len(informer.GetStore().ListKeys()) >= expect) {
		time.Sleep(time.Millisecond)
	}
	t1, c1 := nowNs(), cpuNs()
	phase("done")
	time.Sleep(settle)
	out["sync_ms"] = float64(t1-t0) / 1e6
	out["sync_cpu_ms"] = float64(c1-c0) / 1e6
	out["objects"] = len(informer.GetStore().ListKeys())
	out["rss_baseline_kb"] = baseRSS
	out["rss_delta_kb"] = rssKB() - baseRSS
	out["heap_delta_bytes"] = heapBytes() - baseHeap
}

func watchThroughput(ctx context.Context, cs kubernetes.Interface, ns, rv string, expect int,
	out map[string]any) {
	if rv == "" {
		fail(errors.New("missing --resource-version"))
	}
	phase("loop")
	t0, c0 := nowNs(), cpuNs()
	w, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		fail(err)
	}
	modified := 0
	for modified < expect {
		ev, ok := <-w.ResultChan()
		if !ok {
			break
		}
		switch ev.Type {
		case watch.Error:
			fail(fmt.Errorf("the watch ended with an ERROR event: %v", ev.Object))
		case watch.Modified:
			if _, ok := ev.Object.(*corev1.Pod); ok {
				modified++
			}
		}
	}
	w.Stop()
	t1, c1 := nowNs(), cpuNs()
	phase("done")
	out["events"] = modified
	out["wall_ms"] = float64(t1-t0) / 1e6
	out["cpu_ms"] = float64(c1-c0) / 1e6
}
