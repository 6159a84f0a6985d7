// SPDX-License-Identifier: Apache-2.0
// Command testenv runs a real Kubernetes control plane on loopback TLS for kubex's tests,
// examples and benchmarks: embedded etcd, kube-apiserver, kube-controller-manager and
// kube-scheduler from k8s.io/kubernetes, plus simulated nodes that serve the kubelet API.
//
// Subcommands:
//
//	testenv up [flags] [-- extra kube-apiserver flags]   start everything, print one ready line
//	testenv seed [flags]                                 create benchmark pods and wait until Running
//	testenv churn [flags]                                modify a namespace's pods N times
//	testenv ctl --dir DIR apiserver-stop|apiserver-start|apiserver-restart|etcd-compact|status
//	testenv kubectl ARGS...                              kubectl of the same Kubernetes version
//	testenv apiserver|controller-manager|scheduler ARGS  (internal) run one upstream component
//
// Invoked under the name kubectl (scripts/build-testenv.sh links one beside the binary), the
// binary is kubectl.
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

const usage = `usage: testenv <command> [flags]

commands:
  up         start etcd, kube-apiserver, controller-manager, scheduler and simulated nodes
  seed       create benchmark pods (seed-0...) and a log-emitter pod, wait until Running
  churn      patch a namespace's pods N times; print the resourceVersion from before
  ctl        control a running testenv (apiserver-stop, apiserver-start, apiserver-restart,
             etcd-compact, status)
  version    print the Kubernetes version this testenv runs
  kubectl    run kubectl of the same version (also: invoke this binary as 'kubectl')

Run 'testenv <command> -h' for the flags of a command.
`

func main() {
	if filepath.Base(os.Args[0]) == "kubectl" {
		runKubectl(os.Args[1:])
	}
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cmd, args := os.Args[1], os.Args[2:]
	var err error
	switch cmd {
	case "up":
		err = runUp(args)
	case "seed":
		err = runSeed(args)
	case "churn":
		err = runChurn(args)
	case "ctl":
		err = runCtl(args)
	case "version":
		fmt.Println(kubernetesVersion)
	case "kubectl":
		runKubectl(args)
	case componentAPIServer, componentControllerManager, componentScheduler:
		os.Exit(runComponent(cmd, args))
	case "-h", "--help", "help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "testenv: unknown command %q\n\n%s", cmd, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv %s: %v\n", cmd, err)
		os.Exit(1)
	}
}
