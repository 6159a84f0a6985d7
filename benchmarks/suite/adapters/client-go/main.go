// SPDX-License-Identifier: Apache-2.0
// The client-go adapters of the benchmark suite (benchmarks/suite/run.py runs them): every
// scenario through client-go's typed clientset (its metadata client for the metadata
// scenarios), one shared *http.Client, the burst of the watch scenarios in a goroutine.
//
//	bench-client-go --variant client-go|client-go-h1|client-go-proto --kubeconfig FILE
//	                --scenario S --namespace NS [--warmup W --warmup-seconds WS --iters N
//	                --min-iters M --max-seconds T --list-size L --stream-count C]
//
// Prints one JSON line on stdout, as benchmarks/suite/common/measure.hpp does for the C++
// adapters; anything else goes to stderr.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/metrics"

	"kubex.dev/bench/client-go/measure"
)

// ---------------------------------------------------------------------------------------------
// Command line and the measured loop's bookkeeping (as common/measure.hpp).

// The clocks, from the measure package.
var (
	nowNs        = measure.NowNs
	cpuNs        = measure.CPUNs
	procStatusKB = measure.ProcStatusKB
)

// announcePhase tells the driver that the measured loop starts ("loop") or has ended ("done"),
// at once, so that it can read the control plane's CPU time over the loop alone.
func announcePhase(phase string) { _, _ = os.Stdout.WriteString(`{"phase":"` + phase + `"}` + "\n") }

// resetPeakRSS resets VmHWM to the current RSS.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

type args map[string]string

func parseArgs(argv []string) (args, error) {
	a := args{}
	for i := 0; i < len(argv); i++ {
		key := argv[i]
		if !strings.HasPrefix(key, "--") || i+1 >= len(argv) {
			return nil, fmt.Errorf("expected --name value pairs, got '%s'", key)
		}
		a[key[2:]] = argv[i+1]
		i++
	}
	return a, nil
}

func (a args) required(name string) (string, error) {
	v, ok := a[name]
	if !ok {
		return "", fmt.Errorf("missing --%s", name)
	}
	return v, nil
}

func (a args) integer(name string, fallback int64) (int64, error) {
	v, ok := a[name]
	if !ok {
		return fallback, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("--%s: %v", name, err)
	}
	return n, nil
}

func (a args) float(name string, fallback float64) (float64, error) {
	v, ok := a[name]
	if !ok {
		return fallback, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("--%s: %v", name, err)
	}
	return f, nil
}

// plan is the options of one (adapter, scenario) process.
type plan struct {
	scenario    string
	namespace   string
	warmup      int64
	warmupS     float64
	iters       int64
	minIters    int64
	maxS        float64
	listSize    int64
	streamCount int64
}

func planFrom(a args) (plan, error) {
	var p plan
	var err error
	if p.scenario, err = a.required("scenario"); err != nil {
		return p, err
	}
	if p.namespace, err = a.required("namespace"); err != nil {
		return p, err
	}
	for _, f := range []struct {
		dst      *int64
		name     string
		fallback int64
	}{{&p.warmup, "warmup", 3}, {&p.iters, "iters", 30}, {&p.minIters, "min-iters", 20},
		{&p.listSize, "list-size", 0}, {&p.streamCount, "stream-count", 0}} {
		if *f.dst, err = a.integer(f.name, f.fallback); err != nil {
			return p, err
		}
	}
	p.minIters = min(p.minIters, p.iters)
	if p.warmupS, err = a.float("warmup-seconds", 1); err != nil {
		return p, err
	}
	if p.maxS, err = a.float("max-seconds", 90); err != nil {
		return p, err
	}
	return p, nil
}

// result is the JSON line for the driver.
type result struct {
	Adapter           string  `json:"adapter"`
	Variant           string  `json:"variant"`
	Scenario          string  `json:"scenario"`
	Runtime           string  `json:"runtime"`
	HTTP              string  `json:"http"`
	AcceptEncoding    string  `json:"accept_encoding"`
	Warmup            int64   `json:"warmup"`
	N                 int     `json:"n"`
	CPUNs             int64   `json:"cpu_ns"`
	LoopNs            int64   `json:"loop_ns"`
	RSSReadyKB        int64   `json:"rss_ready_kb"`
	RSSPeakLoopKB     int64   `json:"rss_peak_loop_kb"`
	RSSReadyAnonKB    int64   `json:"rss_ready_anon_kb"`
	RSSDoneFileKB     int64   `json:"rss_done_file_kb"`
	ConnectionsOpened int64   `json:"connections_opened"`
	Retries           int64   `json:"retries"`
	Items             []int64 `json:"items"`
	EventsNs          []int64 `json:"events_ns"`
	SamplesNs         []int64 `json:"samples_ns"`
	// The memory pass's figures (KUBEX_BENCH_MEMSTATS=1): the runtime's own counters, since Go
	// allocates without malloc. Peak live heap is not tracked (it would need the world stopped
	// during the loop).
	AllocsPerOp     *float64 `json:"allocs_per_op,omitempty"`
	AllocBytesPerOp *float64 `json:"alloc_bytes_per_op,omitempty"`
}

type recorder struct {
	plan      plan
	res       result
	warmStart int64
	cpuStart  int64
	loopStart int64
	// runtime.MemStats at the loop's start, in the memory pass only: ReadMemStats stops the
	// world, so the timing pass never calls it.
	memStart *runtime.MemStats
}

// warming tells whether another warm-up iteration is due (call before each).
func (r *recorder) warming() bool {
	if r.warmStart == 0 {
		r.warmStart = nowNs()
		r.res.RSSReadyKB = procStatusKB("VmRSS")
		r.res.RSSReadyAnonKB = procStatusKB("RssAnon")
	}
	more := r.res.Warmup < r.plan.warmup ||
		float64(nowNs()-r.warmStart) < r.plan.warmupS*1e9
	if more {
		r.res.Warmup++
	}
	return more
}

func (r *recorder) begin() {
	if os.Getenv("KUBEX_BENCH_MEMSTATS") == "1" {
		r.memStart = new(runtime.MemStats)
		runtime.ReadMemStats(r.memStart)
	}
	resetPeakRSS()
	announcePhase("loop")
	r.cpuStart = cpuNs()
	r.loopStart = nowNs()
}

// measuring tells whether another measured iteration is due.
func (r *recorder) measuring() bool {
	n := int64(len(r.res.SamplesNs))
	if n >= r.plan.iters {
		return false
	}
	return n < r.plan.minIters || float64(nowNs()-r.loopStart) < r.plan.maxS*1e9
}

func (r *recorder) sample(wallNs int64, items int64) {
	r.res.SamplesNs = append(r.res.SamplesNs, wallNs)
	r.res.Items = append(r.res.Items, items)
}

func (r *recorder) event(ns int64) { r.res.EventsNs = append(r.res.EventsNs, ns) }

func (r *recorder) end() {
	r.res.CPUNs = cpuNs() - r.cpuStart
	r.res.LoopNs = nowNs() - r.loopStart
	announcePhase("done")
	r.res.RSSPeakLoopKB = procStatusKB("VmHWM")
	r.res.RSSDoneFileKB = procStatusKB("RssFile") + procStatusKB("RssShmem")
	r.res.N = len(r.res.SamplesNs)
	if r.memStart != nil {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		n := float64(max(1, r.res.N))
		allocs := float64(m.Mallocs-r.memStart.Mallocs) / n
		bytes := float64(m.TotalAlloc-r.memStart.TotalAlloc) / n
		r.res.AllocsPerOp, r.res.AllocBytesPerOp = &allocs, &bytes
	}
}

// ---------------------------------------------------------------------------------------------
// The client.

const (
	jsonMetadataAccept     = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
	jsonMetadataListAccept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	protobuf               = "application/vnd.kubernetes.protobuf"
)

type variant struct {
	name     string
	http1    bool // force HTTP/1.1 through ALPN
	protobuf bool // protobuf bodies (JSON fallback)
	text     string
}

var variants = map[string]variant{
	"client-go":       {"client-go", false, false, "typed clientset, JSON, HTTP/2"},
	"client-go-h1":    {"client-go-h1", true, false, "typed clientset, JSON, HTTP/1.1"},
	"client-go-proto": {"client-go-proto", true, true, "typed clientset, protobuf, HTTP/1.1"},
}

// observer sits on the shared transport (rest.Config.WrapTransport): it notes the protocol the
// responses came over, and for the JSON variants makes the metadata client's Accept header the
// suite's JSON one (client-go's metadata client always puts protobuf first).
type observer struct {
	next        http.RoundTripper
	jsonMeta    bool
	protoMajor  atomic.Int32
	acceptEnc   atomic.Value // string: the Accept-Encoding client-go set on the first request
	acceptEncOK atomic.Bool  // (net/http adds none below us: DisableCompression)
}

func (o *observer) RoundTrip(req *http.Request) (*http.Response, error) {
	if o.jsonMeta {
		if accept := req.Header.Get("Accept"); strings.HasPrefix(accept, protobuf+";as=PartialObjectMetadata") {
			req = req.Clone(req.Context())
			if strings.Contains(accept, "as=PartialObjectMetadataList;") {
				req.Header.Set("Accept", jsonMetadataListAccept)
			} else {
				req.Header.Set("Accept", jsonMetadataAccept)
			}
		}
	}
	if !o.acceptEncOK.Load() {
		o.acceptEnc.Store(req.Header.Get("Accept-Encoding"))
		o.acceptEncOK.Store(true)
	}
	resp, err := o.next.RoundTrip(req)
	if resp != nil {
		o.protoMajor.Store(int32(resp.ProtoMajor))
	}
	return resp, err
}

type client struct {
	pods       podAPI
	namespaces interface {
		List(context.Context, metav1.ListOptions) (*corev1.NamespaceList, error)
	}
	meta     metadata.ResourceInterface
	dials    *atomic.Int64
	retries  *atomic.Int64
	observer *observer
}

type podAPI interface {
	Get(context.Context, string, metav1.GetOptions) (*corev1.Pod, error)
	List(context.Context, metav1.ListOptions) (*corev1.PodList, error)
	Create(context.Context, *corev1.Pod, metav1.CreateOptions) (*corev1.Pod, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
	Watch(context.Context, metav1.ListOptions) (watch.Interface, error)
	GetLogs(string, *corev1.PodLogOptions) *rest.Request
}

// retryCounter counts client-go's retries (its RequestRetry metric).
type retryCounter struct{ n *atomic.Int64 }

func (c retryCounter) IncrementRetry(context.Context, string, string, string) { c.n.Add(1) }

// newClient builds the variant's client; libraryDefaults leaves compression as client-go has
// it (on: net/http asks for gzip) for the suite's library-defaults pass.
func newClient(kubeconfig string, v variant, namespace string, libraryDefaults bool) (*client, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	cfg.QPS = -1 // no client-side rate limiter
	cfg.Burst = 0
	cfg.DisableCompression = !libraryDefaults
	cfg.UserAgent = "bench-client-go"
	if v.http1 {
		cfg.TLSClientConfig.NextProtos = []string{"http/1.1"}
	}
	if v.protobuf {
		cfg.ContentType = protobuf
		cfg.AcceptContentTypes = protobuf + ",application/json"
	} else {
		// Explicit: client-go 0.35's core clients otherwise default to protobuf.
		cfg.ContentType = "application/json"
		cfg.AcceptContentTypes = "application/json"
	}

	c := &client{dials: new(atomic.Int64), retries: new(atomic.Int64)}
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	cfg.Dial = func(ctx context.Context, network, address string) (net.Conn, error) {
		c.dials.Add(1)
		return dialer.DialContext(ctx, network, address)
	}
	c.observer = &observer{jsonMeta: !v.protobuf}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		c.observer.next = rt
		return c.observer
	}
	metrics.Register(metrics.RegisterOpts{RequestRetry: retryCounter{c.retries}})

	// One *http.Client (one connection pool) for the clientset and the metadata client.
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the HTTP client: %w", err)
	}
	clientset, err := kubernetes.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("building the clientset: %w", err)
	}
	metaCfg := metadata.ConfigFor(cfg)
	if !v.protobuf {
		metaCfg.AcceptContentTypes = "application/json"
		metaCfg.ContentType = "application/json"
	}
	metaClient, err := metadata.NewForConfigAndClient(metaCfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("building the metadata client: %w", err)
	}
	c.pods = clientset.CoreV1().Pods(namespace)
	c.namespaces = clientset.CoreV1().Namespaces()
	c.meta = metaClient.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).
		Namespace(namespace)
	return c, nil
}

// ---------------------------------------------------------------------------------------------
// The scenarios.

// benchPod is a pod like the seed's, with a name of its own.
func benchPod(name, label string) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "c", Image: "registry.k8s.io/pause:3.9"},
		}},
	}
	if label != "" {
		pod.Labels = map[string]string{"bench": label}
	}
	return pod
}

func randomHex(n int) string {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)[:n]
}

var graceZero = metav1.DeleteOptions{GracePeriodSeconds: new(int64)}

type bench struct {
	c    *client
	plan plan
	rec  *recorder
}

// iteration runs one iteration and returns what the validity check counts.
func (b *bench) iteration(ctx context.Context, measured bool) (int64, error) {
	pods := b.c.pods
	switch s := b.plan.scenario; s {
	case "single_get":
		if _, err := pods.Get(ctx, "seed-0", metav1.GetOptions{}); err != nil {
			return 0, err
		}
		return 1, nil
	case "single_get_metadata":
		if _, err := b.c.meta.Get(ctx, "seed-0", metav1.GetOptions{}); err != nil {
			return 0, err
		}
		return 1, nil
	case "list_small", "list_medium", "list_large":
		list, err := pods.List(ctx, metav1.ListOptions{Limit: b.plan.listSize})
		if err != nil {
			return 0, err
		}
		return int64(len(list.Items)), nil
	case "list_metadata_only":
		list, err := b.c.meta.List(ctx, metav1.ListOptions{Limit: b.plan.listSize})
		if err != nil {
			return 0, err
		}
		return int64(len(list.Items)), nil
	case "list_namespaces":
		list, err := b.c.namespaces.List(ctx, metav1.ListOptions{})
		if err != nil {
			return 0, err
		}
		return int64(len(list.Items)), nil
	case "single_create_delete":
		created, err := pods.Create(ctx, benchPod("bench-"+randomHex(10), ""), metav1.CreateOptions{})
		if err != nil {
			return 0, err
		}
		if err := pods.Delete(ctx, created.Name, graceZero); err != nil {
			return 0, err
		}
		return 1, nil
	case "watch_n_events":
		return b.watchNEvents(ctx, measured)
	case "watch_live":
		return b.watchLive(ctx, measured)
	case "stream_logs_n_lines":
		return b.streamLogs(ctx, measured)
	default:
		return 0, fmt.Errorf("unknown scenario '%s'", s)
	}
}

// sendTimes records when each burst request left (watch_live), by pod index.
type sendTimes struct {
	create, delete [25]atomic.Int64
}

// burst runs 25 sequential create+delete pairs (after 50 ms when there is no label).
func (b *bench) burst(ctx context.Context, prefix, label string, sent *sendTimes) error {
	if label == "" {
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for i := range 25 {
		name := prefix + strconv.Itoa(i)
		if sent != nil {
			sent.create[i].Store(nowNs())
		}
		if _, err := b.c.pods.Create(ctx, benchPod(name, label), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("burst: creating %s: %w", name, err)
		}
		if sent != nil {
			sent.delete[i].Store(nowNs())
		}
		if err := b.c.pods.Delete(ctx, name, graceZero); err != nil {
			return fmt.Errorf("burst: deleting %s: %w", name, err)
		}
	}
	return nil
}

// watchNEvents: Kubex's semantics. A watch without resourceVersion (its first events replay
// the existing pods) read until C events, while a goroutine runs the burst after 50 ms; the
// iteration ends when both are done. Events are timed as inter-arrival gaps.
func (b *bench) watchNEvents(ctx context.Context, measured bool) (int64, error) {
	burstDone := make(chan error, 1)
	go func() { burstDone <- b.burst(ctx, "watch-bench-", "", nil) }()

	seen, watchErr := b.receiveN(ctx, measured)
	if err := <-burstDone; err != nil {
		return 0, err
	}
	return seen, watchErr
}

func (b *bench) receiveN(ctx context.Context, measured bool) (int64, error) {
	w, err := b.c.pods.Watch(ctx, metav1.ListOptions{AllowWatchBookmarks: false})
	if err != nil {
		return 0, fmt.Errorf("opening the watch: %w", err)
	}
	defer w.Stop()
	var seen, last int64
	for seen < b.plan.streamCount {
		ev, ok := <-w.ResultChan()
		if !ok {
			break
		}
		t := nowNs()
		if ev.Type == watch.Error {
			return seen, fmt.Errorf("watch error event: %v", ev.Object)
		}
		if measured && seen > 0 {
			b.rec.event(t - last)
		}
		last = t
		seen++
	}
	return seen, nil
}

// watchLive: a watch from a list's resourceVersion on the burst's label only; counts ADDED and
// DELETED (MODIFIED ones are read, not counted), each timed from when its create or delete
// request was sent. The timed span includes the initial list.
func (b *bench) watchLive(ctx context.Context, measured bool) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	selector := "bench=live-" + randomHex(6)
	list, err := b.c.pods.List(ctx, metav1.ListOptions{LabelSelector: selector, Limit: 1})
	if err != nil {
		return 0, err
	}
	w, err := b.c.pods.Watch(ctx, metav1.ListOptions{
		LabelSelector: selector, ResourceVersion: list.ResourceVersion, AllowWatchBookmarks: false,
	})
	if err != nil {
		return 0, fmt.Errorf("opening the watch: %w", err)
	}
	defer w.Stop()

	sent := &sendTimes{}
	burstDone := make(chan error, 1)
	go func() {
		err := b.burst(ctx, "watch-live-", strings.TrimPrefix(selector, "bench="), sent)
		if err != nil {
			cancel() // the watch would otherwise wait for events that never come
		}
		burstDone <- err
	}()

	var counted int64
	var watchErr error
	for counted < 50 {
		ev, ok := <-w.ResultChan()
		if !ok {
			break
		}
		t := nowNs()
		if ev.Type == watch.Error {
			watchErr = fmt.Errorf("watch error event: %v", ev.Object)
			break
		}
		if ev.Type != watch.Added && ev.Type != watch.Deleted {
			continue
		}
		counted++
		pod, ok := ev.Object.(*corev1.Pod)
		if !measured || !ok {
			continue
		}
		i, err := strconv.Atoi(strings.TrimPrefix(pod.Name, "watch-live-"))
		if err != nil || i < 0 || i >= 25 {
			continue
		}
		if ev.Type == watch.Added {
			b.rec.event(t - sent.create[i].Load())
		} else {
			b.rec.event(t - sent.delete[i].Load())
		}
	}
	w.Stop()
	if err := <-burstDone; err != nil {
		return 0, err
	}
	return counted, watchErr
}

// streamLogs follows log-emitter's log (from its start, as Kubex does) until C lines.
func (b *bench) streamLogs(ctx context.Context, measured bool) (int64, error) {
	stream, err := b.c.pods.GetLogs("log-emitter", &corev1.PodLogOptions{Container: "c", Follow: true}).
		Stream(ctx)
	if err != nil {
		return 0, fmt.Errorf("opening the log stream: %w", err)
	}
	defer stream.Close()
	scanner := bufio.NewScanner(stream)
	var lines, last int64
	for lines < b.plan.streamCount && scanner.Scan() {
		t := nowNs()
		if measured && lines > 0 {
			b.rec.event(t - last)
		}
		last = t
		lines++
	}
	if lines < b.plan.streamCount {
		if err := scanner.Err(); err != nil {
			return lines, fmt.Errorf("reading the log stream: %w", err)
		}
	}
	return lines, nil
}

func (b *bench) run(ctx context.Context) error {
	for b.rec.warming() {
		if _, err := b.iteration(ctx, false); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	dials, retries := b.c.dials.Load(), b.c.retries.Load()
	b.rec.begin()
	for b.rec.measuring() {
		start := nowNs()
		items, err := b.iteration(ctx, true)
		if err != nil {
			return err
		}
		b.rec.sample(nowNs()-start, items)
	}
	b.rec.end()
	b.rec.res.ConnectionsOpened = b.c.dials.Load() - dials
	b.rec.res.Retries = b.c.retries.Load() - retries
	return nil
}

func clientGoVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "k8s.io/client-go" {
				return dep.Version
			}
		}
	}
	return "?"
}

func mainErr() error {
	a, err := parseArgs(os.Args[1:])
	if err != nil {
		return err
	}
	name := a["variant"]
	if name == "" {
		name = "client-go"
	}
	v, ok := variants[name]
	if !ok {
		return fmt.Errorf("unknown --variant '%s' (client-go, client-go-h1, client-go-proto)", name)
	}
	p, err := planFrom(a)
	if err != nil {
		return err
	}
	kubeconfig, err := a.required("kubeconfig")
	if err != nil {
		return err
	}
	libraryDefaults := a["library-defaults"] == "on"
	c, err := newClient(kubeconfig, v, p.namespace, libraryDefaults)
	if err != nil {
		return err
	}
	rec := &recorder{plan: p, res: result{
		Adapter:  v.name,
		Scenario: p.scenario,
		Runtime:  runtime.Version(),
		Items:    []int64{}, EventsNs: []int64{}, SamplesNs: []int64{},
	}}
	rec.res.Variant = v.text + ", client-go " + clientGoVersion()
	if p.scenario == "single_get_metadata" || p.scenario == "list_metadata_only" {
		if v.protobuf {
			rec.res.Variant += "; metadata client (protobuf, JSON fallback)"
		} else {
			rec.res.Variant += "; metadata client, Accept set to JSON at the transport"
		}
	}
	b := &bench{c: c, plan: p, rec: rec}
	if err := b.run(context.Background()); err != nil {
		return err
	}
	switch c.observer.protoMajor.Load() {
	case 2:
		rec.res.HTTP = "2"
	case 1:
		rec.res.HTTP = "1.1"
	default:
		return errors.New("no response was seen")
	}
	rec.res.AcceptEncoding, _ = c.observer.acceptEnc.Load().(string)
	if libraryDefaults && rec.res.AcceptEncoding == "" {
		rec.res.AcceptEncoding = "gzip (added by net/http)"
	}
	line, err := json.Marshal(rec.res)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(line, '\n'))
	return err
}

func main() {
	if err := mainErr(); err != nil {
		fmt.Fprintf(os.Stderr, "bench-client-go: %v\n", err)
		os.Exit(1)
	}
}
