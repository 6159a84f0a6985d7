// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/utils/exec"
)

// sessionTimeLimit bounds every exec and attach session: hijacked connections never cancel
// their request, so a session whose client vanished silently ends here at the latest. It
// matches the streams' idle timeout, so that long benchmarks are not cut.
const sessionTimeLimit = streamIdleTimeout

// executor runs exec requests for one container with the built-in shell (shell.go). It
// implements the kubelet streaming package's remotecommand.Executor.
type executor struct{}

// ExecInContainer runs cmd and returns nil for status 0, utilexec.CodeExitError (unwrapped,
// so that ServeExec reports NonZeroExitCode with an ExitCode cause) for another status, and a
// plain error, worded as containerd and runc word it, when cmd[0] is not a built-in.
func (e executor) ExecInContainer(ctx context.Context, _ string, _ types.UID, _ string, cmd []string,
	in io.Reader, out, errOut io.WriteCloser, tty bool, resize <-chan remotecommand.TerminalSize, _ time.Duration) error {
	if len(cmd) == 0 || lookupBuiltin(cmd[0]) == nil {
		name := ""
		if len(cmd) > 0 {
			name = cmd[0]
		}
		return fmt.Errorf("failed to exec in container: failed to start exec %q: OCI runtime exec failed: exec failed: unable to start container process: %s: unknown",
			randomHex(32), notFoundMessage(name))
	}
	sh, done := newShell(ctx, in, out, errOut, tty, resize)
	defer done()
	status := sh.run(cmd)
	if sh.stdin != nil && sh.stdin.interrupted {
		status = statusInterrupted
	}
	if status != 0 {
		return utilexec.CodeExitError{Err: fmt.Errorf("error executing command %v, exit code %d", cmd, status), Code: status}
	}
	return nil
}

// newShell wires a session's streams to a shell: missing output streams discard, a tty
// merges stderr into stdout (a terminal has one output), a failed write ends the session,
// and so does the time limit. done releases the session's goroutines.
func newShell(parent context.Context, in io.Reader, out, errOut io.Writer, tty bool, resize <-chan remotecommand.TerminalSize) (*shell, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ctx, cancelTimeout := context.WithTimeoutCause(ctx, sessionTimeLimit, errTimeLimit)
	fail := func() { cancel(errWriteFailed) }
	sh := &shell{ctx: ctx, tty: tty}
	sh.stdout = io.Discard
	if out != nil {
		sh.stdout = failingWriter{out, fail}
	}
	sh.stderr = io.Discard
	if errOut != nil {
		sh.stderr = failingWriter{errOut, fail}
	}
	if tty {
		sh.stderr = sh.stdout
	}
	if in != nil {
		sh.stdin = newStdinPump(in, tty)
	}
	if resize != nil {
		sh.sizes = queueSizes(ctx, resize)
	}
	return sh, func() {
		cancelTimeout()
		cancel(nil)
		if sh.stdin != nil {
			sh.stdin.close()
		}
	}
}

// queueSizes keeps up to 64 resize events for tty-size, which may start after the client sent
// its initial size; further events are dropped until tty-size takes some. Draining the
// client's resize stream this way also keeps it from stalling the connection.
func queueSizes(ctx context.Context, resize <-chan remotecommand.TerminalSize) <-chan remotecommand.TerminalSize {
	q := make(chan remotecommand.TerminalSize, 64)
	go func() {
		defer close(q)
		for {
			select {
			case size, ok := <-resize:
				if !ok {
					return
				}
				select {
				case q <- size:
				default:
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return q
}

// failingWriter calls fail when a write fails: the client is gone or stopped reading.
type failingWriter struct {
	w    io.Writer
	fail func()
}

func (f failingWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil {
		f.fail()
	}
	return n, err
}
