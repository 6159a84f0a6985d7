// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func newTestLog(t *testing.T, lines int) *containerLog {
	t.Helper()
	l, err := openContainerLog(filepath.Join(t.TempDir(), "c.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.close)
	for i := 0; i < lines; i++ {
		if err := l.appendLines("stdout", fmt.Sprintf("line-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func read(t *testing.T, l *containerLog, opts logOptions) string {
	t.Helper()
	var out bytes.Buffer
	if err := l.stream(context.Background(), &out, func() {}, opts); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestTailLimitAndTimestamps(t *testing.T) {
	l := newTestLog(t, 10)
	if got := read(t, l, logOptions{tailLines: 3}); got != "line-7\nline-8\nline-9\n" {
		t.Errorf("tailLines=3: %q", got)
	}
	if got := read(t, l, logOptions{tailLines: 0}); got != "" {
		t.Errorf("tailLines=0: %q", got)
	}
	if got := read(t, l, logOptions{tailLines: -1, limitBytes: 9}); got != "line-0\nli" {
		t.Errorf("limitBytes=9: %q", got)
	}
	got := read(t, l, logOptions{tailLines: 1, timestamps: true})
	if !strings.HasPrefix(got, "20") || !strings.HasSuffix(got, " line-9\n") {
		t.Errorf("timestamps: %q", got)
	}
}

// A one-shot tail is the log as it was when the request arrived, even while the container
// keeps writing (the race once gave 5 lines for tailLines=3 on a loaded CI machine).
func TestTailIsASnapshotWhileTheContainerWrites(t *testing.T) {
	l := newTestLog(t, 5)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 5; ctx.Err() == nil; i++ {
			_ = l.appendLines("stdout", fmt.Sprintf("line-%d", i))
		}
	}()
	defer func() { cancel(); wg.Wait() }()
	for i := 0; i < 3000; i++ {
		got := read(t, l, logOptions{tailLines: 3})
		if n := strings.Count(got, "\n"); n != 3 {
			if len(got) > 80 {
				got = got[:80] + "..."
			}
			t.Fatalf("read %d: tailLines=3 gave %d lines: %q", i, n, got)
		}
	}
}

func TestFollowSeesNewLinesAndEndsWhenTheContainerStops(t *testing.T) {
	l := newTestLog(t, 2)
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- l.stream(context.Background(), &out, func() {}, logOptions{tailLines: 1, follow: true})
	}()
	for deadline := time.Now().Add(10 * time.Second); out.String() != "line-1\n"; {
		if time.Now().After(deadline) {
			t.Fatalf("the follower did not start with the last line: %q", out.String())
		}
		time.Sleep(time.Millisecond)
	}
	for i := 2; i < 5; i++ {
		if err := l.appendLines("stdout", fmt.Sprintf("line-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	l.stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("follow did not end after the container stopped")
	}
	if got := out.String(); got != "line-1\nline-2\nline-3\nline-4\n" {
		t.Errorf("follow: %q", got)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
