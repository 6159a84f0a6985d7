// SPDX-License-Identifier: Apache-2.0
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	apiserverapp "k8s.io/kubernetes/cmd/kube-apiserver/app"
	kcmapp "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	schedulerapp "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

// Upstream components run as child processes of the same binary: each of them owns
// process-global state (feature gates, signal handler, metrics, logging), and a child can be
// killed and restarted while etcd, in the parent, keeps the data.
const (
	componentAPIServer         = "apiserver"
	componentControllerManager = "controller-manager"
	componentScheduler         = "scheduler"
)

// runComponent is the child side: it runs the unmodified upstream cobra command.
func runComponent(name string, args []string) int {
	var cmd *cobra.Command
	switch name {
	case componentAPIServer:
		cmd = apiserverapp.NewAPIServerCommand()
	case componentControllerManager:
		cmd = kcmapp.NewControllerManagerCommand()
	case componentScheduler:
		cmd = schedulerapp.NewSchedulerCommand()
	}
	cmd.SetArgs(args)
	return cli.Run(cmd)
}

// child supervises one component process. Its stdout and stderr go to logs/<name>.log.
type child struct {
	name    string
	args    []string
	logPath string

	mu       sync.Mutex
	cmd      *exec.Cmd
	expected bool          // the current process is being stopped on purpose
	exited   chan struct{} // closed when the current process has exited
	exitErr  error
}

func newChild(name, logDir string, args []string) *child {
	return &child{name: name, args: args, logPath: filepath.Join(logDir, name+".log")}
}

// start launches the process; unexpected exits are reported on died.
func (c *child) start(died chan<- error) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	logf, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(self, append([]string{c.name}, c.args...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// A crashed orchestrator must not leave components behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Env = componentEnv()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start %s: %w", c.name, err)
	}
	exited := make(chan struct{})
	c.mu.Lock()
	c.cmd, c.expected, c.exited = cmd, false, exited
	c.mu.Unlock()
	go func() {
		err := cmd.Wait()
		logf.Close()
		c.mu.Lock()
		c.exitErr = err
		expected := c.expected
		c.mu.Unlock()
		close(exited)
		if !expected && died != nil {
			died <- fmt.Errorf("%s exited unexpectedly (%v); last log lines:\n%s", c.name, err, tailFile(c.logPath, 15))
		}
	}()
	return nil
}

// componentEnv keeps proxies away from loopback traffic between components.
func componentEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k := strings.ToUpper(strings.SplitN(kv, "=", 2)[0])
		if k == "HTTP_PROXY" || k == "HTTPS_PROXY" || k == "ALL_PROXY" || k == "NO_PROXY" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func (c *child) pid() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil || c.cmd.Process == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

func (c *child) running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exited == nil {
		return false
	}
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// stop sends sig to the process group, then SIGKILL after grace; it waits for the exit.
func (c *child) stop(sig syscall.Signal, grace time.Duration) {
	c.mu.Lock()
	cmd, exited := c.cmd, c.exited
	c.expected = true
	c.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	pgid := cmd.Process.Pid
	_ = syscall.Kill(-pgid, sig)
	select {
	case <-exited:
	case <-time.After(grace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-exited
	}
}

func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "  (no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}
