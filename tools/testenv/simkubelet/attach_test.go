// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func newTestContainer(t *testing.T, echo bool) *containerRuntime {
	t.Helper()
	l, err := openContainerLog(filepath.Join(t.TempDir(), "0.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.close)
	return &containerRuntime{name: "c", stdin: true, echoStdin: echo, log: l, out: newContainerOutput(l)}
}

func TestAttachEchoesStdinToClientAndLog(t *testing.T) {
	c := newTestContainer(t, true)
	var out bytes.Buffer
	err := attacher{c}.AttachContainer(context.Background(), "pod", "", "c",
		strings.NewReader("hello\nworld"), nopCloser{&out}, nopCloser{io.Discard}, false, nil)
	if err != nil || out.String() != "hello\nworld" {
		t.Fatalf("attach: %q, %v", out.String(), err)
	}
	if got := read(t, c.log, logOptions{tailLines: -1}); got != "hello\nworld\n" {
		t.Errorf("log: %q", got)
	}
}

func TestAttachShowsOutputFromNowOn(t *testing.T) {
	c := newTestContainer(t, false)
	_ = c.out.lines("stdout", "before")
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	done := make(chan error)
	go func() {
		done <- attacher{c}.AttachContainer(context.Background(), "pod", "", "c", nil, outW, errW, false, nil)
	}()
	// Lines written after the subscription reach the client on their own streams.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c.out.mu.Lock()
		n := len(c.out.subs)
		c.out.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the attach did not subscribe to the output in 5 s")
		}
		time.Sleep(time.Millisecond)
	}
	go func() {
		_ = c.out.lines("stdout", "after-1", "after-2")
		_ = c.out.lines("stderr", "oops")
	}()
	buf := make([]byte, 100)
	n, _ := io.ReadFull(outR, buf[:len("after-1\nafter-2\n")])
	if got := string(buf[:n]); got != "after-1\nafter-2\n" {
		t.Errorf("stdout: %q", got)
	}
	n, _ = io.ReadFull(errR, buf[:len("oops\n")])
	if got := string(buf[:n]); got != "oops\n" {
		t.Errorf("stderr: %q", got)
	}
	c.exit(0) // the container exits: the session ends
	if err := <-done; err != nil {
		t.Errorf("attach: %v", err)
	}
}
