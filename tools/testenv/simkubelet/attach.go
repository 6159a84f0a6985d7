// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"context"
	"errors"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/remotecommand"
)

// attacher connects an attach request to a container's simulated main process. It
// implements the kubelet streaming package's remotecommand.Attacher.
//
// The client sees the container's output from now on (containerOutput: the lines a
// log-interval annotation emits, and what the echo process echoes), stdout and stderr apart
// or, with a tty (asked for, or in the container's spec), both on stdout. Input goes to the
// main process: with the pod annotation sim.kubex.dev/attach=echo, a container whose spec
// has stdin: true echoes it to stdout (and so to its log and to every attached client);
// otherwise it is read and dropped. The session ends when the client's stdin ends (after
// the echo of everything it sent), when the container exits, when the client stops reading,
// or after sessionTimeLimit. Resize events are accepted and ignored.
type attacher struct {
	c *containerRuntime
}

var errAttachTooSlow = errors.New("the attached client fell too far behind the container's output")

func (a attacher) AttachContainer(_ context.Context, _ string, _ types.UID, _ string,
	in io.Reader, out, errOut io.WriteCloser, tty bool, resize <-chan remotecommand.TerminalSize) error {
	c := a.c
	var stdout, stderr io.Writer = io.Discard, io.Discard
	if out != nil {
		stdout = out
	}
	if errOut != nil {
		stderr = errOut
	}
	if tty || c.tty {
		stderr = stdout
	}
	sub := c.out.subscribe()
	if sub == nil {
		return errors.New("container is in CONTAINER_EXITED state")
	}
	defer c.out.unsubscribe(sub)
	if resize != nil {
		go func() {
			for range resize {
			}
		}()
	}
	var stdinDone chan struct{}
	if in != nil {
		stdinDone = make(chan struct{})
		go func() {
			defer close(stdinDone)
			buf := make([]byte, 32<<10)
			for {
				n, err := in.Read(buf)
				if n > 0 && c.echoStdin {
					if c.out.write("stdout", buf[:n]) != nil {
						return
					}
				}
				if err != nil {
					if c.echoStdin {
						_ = c.out.flush("stdout")
					}
					return
				}
			}
		}()
	}
	limit := time.NewTimer(sessionTimeLimit)
	defer limit.Stop()
	send := func(chunk outputChunk) bool {
		w := stdout
		if chunk.stderr {
			w = stderr
		}
		_, err := w.Write(chunk.data)
		return err == nil
	}
	for {
		select {
		case chunk, ok := <-sub.ch:
			if !ok {
				if sub.overflowed {
					return errAttachTooSlow
				}
				return nil
			}
			if !send(chunk) {
				return nil // the client is gone
			}
		case <-stdinDone:
			// Everything the client sent has been echoed into sub.ch: deliver it, then end.
			for {
				select {
				case chunk, ok := <-sub.ch:
					if !ok || !send(chunk) {
						return nil
					}
				default:
					return nil
				}
			}
		case <-limit.C:
			return nil
		}
	}
}
