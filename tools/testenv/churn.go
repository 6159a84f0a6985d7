// SPDX-License-Identifier: Apache-2.0
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// runChurn modifies a namespace's pods N times and prints the resourceVersion from before the
// first change, so that a watch from it replays exactly those N MODIFIED events (the runtime
// benchmark's watch_throughput; the apiserver's watch cache keeps them).
func runChurn(args []string) error {
	fs := flag.NewFlagSet("churn", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the testenv (default $KUBECONFIG)")
	namespace := fs.String("namespace", "", "namespace whose pods to modify (required)")
	count := fs.Int("count", 10000, "number of modifications, spread round-robin over the pods")
	workers := fs.Int("workers", 32, "concurrent patch requests")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: testenv churn --namespace NS [flags]\n\n"+
			"Patches an annotation of the namespace's pods COUNT times and prints one JSON line:\n"+
			"{\"resourceVersion\": the version before the first patch, \"modifications\", \"seconds\"}.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *namespace == "" || *kubeconfig == "" || *count < 1 || *workers < 1 {
		fs.Usage()
		return fmt.Errorf("--namespace and --kubeconfig are required; --count and --workers must be >= 1")
	}
	client, err := clientFor(*kubeconfig, "", "kubex-testenv-churn")
	if err != nil {
		return err
	}
	ctx := context.Background()
	pods := client.CoreV1().Pods(*namespace)
	list, err := pods.List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list pods in %s: %w", *namespace, err)
	}
	if len(list.Items) == 0 {
		return fmt.Errorf("namespace %s has no pods to modify", *namespace)
	}
	names := make([]string, len(list.Items))
	for i := range list.Items {
		names[i] = list.Items[i].Name
	}
	start := time.Now()
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	stamp := start.UnixNano()
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for failed.Load() == nil {
				i := next.Add(1) - 1
				if i >= int64(*count) {
					return
				}
				patch := fmt.Sprintf(`{"metadata":{"annotations":{"kubex.dev/churn":"%d-%d"}}}`, stamp, i)
				name := names[i%int64(len(names))]
				if _, err := pods.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
					err = fmt.Errorf("patch pod %s/%s: %w", *namespace, name, err)
					failed.CompareAndSwap(nil, &err)
				}
			}
		}()
	}
	wg.Wait()
	if e := failed.Load(); e != nil {
		return *e
	}
	out, _ := json.Marshal(map[string]any{
		"resourceVersion": list.ResourceVersion,
		"modifications":   *count,
		"seconds":         time.Since(start).Seconds(),
	})
	fmt.Println(string(out))
	return nil
}
