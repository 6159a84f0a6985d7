// SPDX-License-Identifier: Apache-2.0
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"kubex.dev/tools/testenv/simkubelet"
)

type seedOptions struct {
	namespace  string
	pods       int
	logEmitter bool
	workers    int
	timeout    time.Duration
}

func runSeed(args []string) error {
	var o seedOptions
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the testenv (default $KUBECONFIG)")
	kctx := fs.String("context", "", "kubeconfig context (default: current context)")
	fs.StringVar(&o.namespace, "namespace", "", "namespace to seed; created if missing (required)")
	fs.IntVar(&o.pods, "pods", 500, "number of pods seed-0 ... seed-(N-1)")
	fs.BoolVar(&o.logEmitter, "log-emitter", true, "also create the log-emitter pod (one line 'line-N' per millisecond)")
	fs.IntVar(&o.workers, "workers", 32, "concurrent create requests")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "give up when the pods are not all Running by then")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: testenv seed --namespace NS [flags]\n\n"+
			"Creates Kubex's benchmark pods (seed-0..., one container c, image registry.k8s.io/pause:3.9, no labels,\n"+
			"no annotations) concurrently, plus a log-emitter pod, and waits until all are Running.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if o.namespace == "" || *kubeconfig == "" {
		fs.Usage()
		return fmt.Errorf("--namespace and --kubeconfig (or $KUBECONFIG) are required")
	}
	if o.pods < 0 || o.workers < 1 {
		return fmt.Errorf("--pods must be >= 0 and --workers >= 1")
	}
	client, err := clientFor(*kubeconfig, *kctx, "kubex-testenv-seed")
	if err != nil {
		return err
	}
	return seed(context.Background(), client, o, log.New(os.Stderr, "testenv seed: ", log.Ltime))
}

// seedPod is the pod Kubex's benchmark creates, byte for byte in intent.
func seedPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.9"}}},
	}
}

// logEmitterPod is Kubex's log emitter. The simulated node cannot run its shell loop, so the
// annotation asks the simulator for the same output: "line-N" once per millisecond.
func logEmitterPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "log-emitter", Annotations: map[string]string{simkubelet.AnnotationLogInterval: "1ms"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "c", Image: "busybox:1.36",
			Command: []string{"sh", "-c", "i=0; while true; do echo line-$i; i=$((i+1)); sleep 0.001; done"},
		}}},
	}
}

func seed(ctx context.Context, c kubernetes.Interface, o seedOptions, logger *log.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	start := time.Now()
	_, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: o.namespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", o.namespace, err)
	}
	// The ServiceAccount admission plugin rejects pods until the namespace's default
	// ServiceAccount exists, as on any real cluster.
	for {
		_, err := c.CoreV1().ServiceAccounts(o.namespace).Get(ctx, "default", metav1.GetOptions{})
		if err == nil {
			break
		}
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("wait for ServiceAccount %s/default: %w", o.namespace, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("ServiceAccount %s/default never appeared (is the controller manager running?)", o.namespace)
		case <-time.After(100 * time.Millisecond):
		}
	}
	pods := make([]*corev1.Pod, 0, o.pods+1)
	for i := 0; i < o.pods; i++ {
		pods = append(pods, seedPod("seed-"+strconv.Itoa(i)))
	}
	if o.logEmitter {
		pods = append(pods, logEmitterPod())
	}
	work := make(chan *corev1.Pod)
	errs := make(chan error, o.workers)
	var wg sync.WaitGroup
	for w := 0; w < o.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				_, err := c.CoreV1().Pods(o.namespace).Create(ctx, p, metav1.CreateOptions{})
				if err != nil && !apierrors.IsAlreadyExists(err) {
					select {
					case errs <- fmt.Errorf("create pod %s/%s: %w", o.namespace, p.Name, err):
					default:
					}
					cancel()
					return
				}
			}
		}()
	}
feed:
	for _, p := range pods {
		select {
		case work <- p:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	created := time.Since(start)
	want := map[string]bool{}
	for _, p := range pods {
		want[p.Name] = true
	}
	for {
		list, err := c.CoreV1().Pods(o.namespace).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			return fmt.Errorf("list pods in %s: %w", o.namespace, err)
		}
		running := 0
		for i := range list.Items {
			if want[list.Items[i].Name] && list.Items[i].Status.Phase == corev1.PodRunning {
				running++
			}
		}
		if running == len(want) {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("only %d of %d pods in %s are Running after %s", running, len(want), o.namespace, o.timeout)
		case <-time.After(250 * time.Millisecond):
		}
	}
	total := time.Since(start)
	logger.Printf("namespace %s: %d pods created in %s, all Running after %s (%.0f pods/s)",
		o.namespace, len(pods), created.Round(time.Millisecond), total.Round(time.Millisecond), float64(len(pods))/total.Seconds())
	return nil
}
