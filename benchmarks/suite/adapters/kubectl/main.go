// SPDX-License-Identifier: Apache-2.0
// kubectl v1.35.4 on its own, for the streaming benchmark's kubectl row
// (benchmarks/suite/streaming.py): the body of k8s.io/kubernetes/cmd/kubectl's main at
// v1.35.4, as tools/testenv/kubectl.go has it, built without the control plane that testenv's
// multi-call binary carries (whose start-up would count in every `kubectl exec` timed).
package main

import (
	"os"

	// The client auth plugins (exec, OIDC), as k8s.io/kubernetes/cmd/kubectl links them.
	_ "k8s.io/client-go/plugin/pkg/client/auth"
	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	// As upstream: verbosity is parsed by hand so that klog works while the command is built.
	logs.GlogSetter(cmd.GetLogVerbosity(os.Args)) // nolint:errcheck
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		// Pretty-print the error and exit with an error.
		util.CheckErr(err)
	}
}
