// SPDX-License-Identifier: Apache-2.0
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

// runKubectl is kubectl at the Kubernetes version of the control plane, built from the same
// modules: the body of k8s.io/kubernetes/cmd/kubectl's main at v1.35.4. args follow the
// command name. It does not return.
func runKubectl(args []string) {
	// kubectl reads os.Args itself (flags, plugins, .kuberc).
	os.Args = append([]string{"kubectl"}, args...)
	// As upstream: verbosity is parsed by hand so that klog works while the command is built.
	logs.GlogSetter(cmd.GetLogVerbosity(os.Args)) // nolint:errcheck
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		// Pretty-print the error and exit with an error.
		util.CheckErr(err)
	}
	os.Exit(0)
}
