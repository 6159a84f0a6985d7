// SPDX-License-Identifier: Apache-2.0
// The controller-runtime program of the controller benchmark (benchmarks/suite/controller.py,
// protocol in README.md): a controller of Echoes (bench.kubex.dev/v1, namespaced) that
// server-side applies, for each Echo, a ConfigMap of the same name holding spec.value and owned
// by the Echo; it owns those ConfigMaps through a label-selected cache.
//
//	bench-controller-runtime --kubeconfig FILE --namespace NS --count N --workers W --samples M
//
// Stdout carries only the protocol's JSON lines ({"phase":"converged"}, {"phase":"latency",...},
// {"phase":"done",...}); errors go to stderr with a non-zero exit status.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

const (
	sentAnnotation = "bench.kubex.dev/sent"
	echoLabel      = "bench.kubex.dev/echo"
	fieldManager   = "bench"
)

// The Echo custom resource as a small typed struct registered in the scheme (what a kubebuilder
// project generates, with the deep copies written by hand).
var echoGV = schema.GroupVersion{Group: "bench.kubex.dev", Version: "v1"}

type EchoSpec struct {
	Value string `json:"value"`
}

type Echo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              EchoSpec `json:"spec"`
}

type EchoList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Echo `json:"items"`
}

func (in *Echo) DeepCopyInto(out *Echo) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

func (in *Echo) DeepCopyObject() runtime.Object {
	out := new(Echo)
	in.DeepCopyInto(out)
	return out
}

func (in *EchoList) DeepCopyObject() runtime.Object {
	out := new(EchoList)
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Echo, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// out writes one protocol line to stdout (unbuffered in Go: each line leaves at once).
var outMu sync.Mutex

func out(v any) {
	line, err := json.Marshal(v)
	if err != nil {
		fail(err)
	}
	outMu.Lock()
	defer outMu.Unlock()
	os.Stdout.Write(append(line, '\n'))
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "bench-controller-runtime: %v\n", err)
	os.Exit(1)
}

type sampleKey struct{ name, sent string }

type reconciler struct {
	client     client.Client
	count      int
	samples    int
	reconciles atomic.Int64

	mu        sync.Mutex
	applied   map[string]struct{} // names reconciled successfully, until converged
	converged bool
	sampled   map[sampleKey]struct{}
	latencies []int64 // microseconds
	reported  bool
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	start := time.Now().UnixNano() // CLOCK_REALTIME, as the driver's
	r.reconciles.Add(1)
	var echo Echo
	if err := r.client.Get(ctx, req.NamespacedName, &echo); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if sent, ok := echo.Annotations[sentAnnotation]; ok {
		r.sample(echo.Name, sent, start)
	}
	cm := corev1ac.ConfigMap(echo.Name, echo.Namespace).
		WithLabels(map[string]string{echoLabel: "true"}).
		WithData(map[string]string{"value": echo.Spec.Value}).
		WithOwnerReferences(metav1ac.OwnerReference().
			WithAPIVersion(echoGV.String()).
			WithKind("Echo").
			WithName(echo.Name).
			WithUID(echo.UID).
			WithController(true).
			WithBlockOwnerDeletion(true))
	if err := r.client.Apply(ctx, cm, client.FieldOwner(fieldManager), client.ForceOwnership); err != nil {
		return ctrl.Result{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.converged {
		r.applied[echo.Name] = struct{}{}
		if len(r.applied) >= r.count {
			r.converged, r.applied = true, nil
			out(map[string]string{"phase": "converged"})
			if r.samples == 0 {
				r.reportLatency()
			}
		}
	}
	return ctrl.Result{}, nil
}

// sample records now - sent once per (name, sent value) until M samples are in.
func (r *reconciler) sample(name, sent string, now int64) {
	sentNs, err := strconv.ParseInt(sent, 10, 64)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reported {
		return
	}
	key := sampleKey{name, sent}
	if _, seen := r.sampled[key]; seen {
		return
	}
	r.sampled[key] = struct{}{}
	r.latencies = append(r.latencies, (now-sentNs)/1000)
	if len(r.latencies) >= r.samples {
		r.reportLatency()
	}
}

func (r *reconciler) reportLatency() {
	if r.reported {
		return
	}
	r.reported = true
	us := r.latencies
	if us == nil {
		us = []int64{}
	}
	out(struct {
		Phase string  `json:"phase"`
		Us    []int64 `json:"us"`
	}{"latency", us})
}

func flags() map[string]string {
	f := map[string]string{}
	a := os.Args[1:]
	for i := 0; i < len(a); i += 2 {
		if !strings.HasPrefix(a[i], "--") || i+1 >= len(a) {
			fail(fmt.Errorf("expected --name value pairs, got %q", a[i]))
		}
		f[a[i][2:]] = a[i+1]
	}
	return f
}

func intFlag(f map[string]string, name string, min int) int {
	v, err := strconv.Atoi(f[name])
	if err != nil || v < min {
		fail(fmt.Errorf("--%s must be an integer >= %d, got %q", name, min, f[name]))
	}
	return v
}

// statusKB reads a field of /proc/self/status in KiB (VmRSS, VmHWM); -1 when unavailable.
func statusKB(field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			if fs := strings.Fields(rest); len(fs) > 0 {
				if v, err := strconv.ParseInt(fs[0], 10, 64); err == nil {
					return v
				}
			}
		}
	}
	return -1
}

// cpuMs is the user plus system CPU time of the whole process (all threads) in milliseconds.
func cpuMs() int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return -1
	}
	return (u.Utime.Nano() + u.Stime.Nano()) / 1e6
}

func main() {
	f := flags()
	for _, k := range []string{"kubeconfig", "namespace"} {
		if f[k] == "" {
			fail(fmt.Errorf("missing --%s", k))
		}
	}
	ns := f["namespace"]
	count := intFlag(f, "count", 1)
	workers := intFlag(f, "workers", 1)
	samples := intFlag(f, "samples", 0)

	// controller-runtime's logger discards everything: stdout is the protocol's.
	log.SetLogger(logr.Discard())

	cfg, err := clientcmd.BuildConfigFromFlags("", f["kubeconfig"])
	if err != nil {
		fail(err)
	}
	// No client-side rate limit (controller-runtime's own config.GetConfig default too).
	cfg.QPS, cfg.Burst = -1, 0
	// JSON for every kind: controller-runtime otherwise asks for protobuf for built-in kinds
	// (apiutil.RESTClientForGVK when ContentType is empty).
	cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
	cfg.DisableCompression = true // every client gets the same bytes
	cfg.UserAgent = "bench-controller-runtime"

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		fail(err)
	}
	scheme.AddKnownTypes(echoGV, &Echo{}, &EchoList{})
	metav1.AddToGroupVersion(scheme, echoGV)

	mgr, err := ctrl.NewManager(cfg, manager.Options{
		Scheme:                 scheme,
		Metrics:                server.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		Cache: cache.Options{
			DefaultNamespaces: map[string]cache.Config{ns: {}},
			ByObject: map[client.Object]cache.ByObject{
				&corev1.ConfigMap{}: {Label: labels.SelectorFromSet(labels.Set{echoLabel: "true"})},
			},
		},
	})
	if err != nil {
		fail(err)
	}
	r := &reconciler{
		client:  mgr.GetClient(),
		count:   count,
		samples: samples,
		applied: map[string]struct{}{},
		sampled: map[sampleKey]struct{}{},
	}
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("echo").
		For(&Echo{}).
		Owns(&corev1.ConfigMap{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r); err != nil {
		fail(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	eof := make(chan struct{})
	go func() {
		io.Copy(io.Discard, os.Stdin)
		close(eof)
	}()
	select {
	case <-sig:
	case <-eof:
	case err := <-stopped:
		if err == nil {
			err = errors.New("the manager stopped on its own")
		}
		fail(err)
	}

	// Read before anything shuts down.
	out(struct {
		Phase      string `json:"phase"`
		CPUMs      int64  `json:"cpu_ms"`
		RSSKB      int64  `json:"rss_kb"`
		HWMKB      int64  `json:"hwm_kb"`
		Reconciles int64  `json:"reconciles"`
	}{"done", cpuMs(), statusKB("VmRSS"), statusKB("VmHWM"), r.reconciles.Load()})
	cancel()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
	}
	os.Exit(0)
}
