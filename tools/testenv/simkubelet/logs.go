// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"
)

// containerLog is one container's log file, in the CRI format a real kubelet reads
// ("<RFC3339Nano> <stream> F <message>"). An in-memory index of line offsets and times
// lets tailLines and sinceTime seek without rescanning the file, and a broadcast channel
// wakes followers when a line is appended or the container stops.
type containerLog struct {
	mu      sync.Mutex
	path    string
	f       *os.File
	offsets []int64 // start offset of every line
	times   []int64 // UnixNano of every line
	size    int64
	stopped bool          // container has exited: followers end at EOF
	changed chan struct{} // closed and replaced on every append or stop
}

func openContainerLog(path string) (*containerLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	return &containerLog{path: path, f: f, changed: make(chan struct{})}, nil
}

// appendLines writes messages to stream ("stdout" or "stderr") with one timestamp.
func (l *containerLog) appendLines(stream string, msgs ...string) error {
	now := time.Now().UTC()
	ts := now.Format(time.RFC3339Nano)
	var buf bytes.Buffer
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return fmt.Errorf("container log %s is closed", l.path)
	}
	off := l.size
	for _, m := range msgs {
		l.offsets = append(l.offsets, off+int64(buf.Len()))
		l.times = append(l.times, now.UnixNano())
		buf.WriteString(ts)
		buf.WriteByte(' ')
		buf.WriteString(stream)
		buf.WriteString(" F ")
		buf.WriteString(m)
		buf.WriteByte('\n')
	}
	n, err := l.f.WriteAt(buf.Bytes(), off)
	l.size += int64(n)
	if err != nil {
		return err
	}
	close(l.changed)
	l.changed = make(chan struct{})
	return nil
}

// stop marks the container as exited; the file stays readable until close.
func (l *containerLog) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.stopped {
		l.stopped = true
		close(l.changed)
		l.changed = make(chan struct{})
	}
}

func (l *containerLog) close() {
	l.stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.f.Close()
	_ = os.Remove(l.path)
}

// logOptions are the kubelet's containerLogs query parameters.
type logOptions struct {
	follow     bool
	timestamps bool
	tailLines  int64 // <0: all
	limitBytes int64 // <=0: unlimited
	since      time.Time
}

// stream writes the log to w as the kubelet does, following new lines while the container
// runs when opts.follow is set. flush is called after each batch so that a follower sees
// lines promptly through the apiserver's proxy.
func (l *containerLog) stream(ctx context.Context, w io.Writer, flush func(), opts logOptions) error {
	l.mu.Lock()
	start := 0
	if !opts.since.IsZero() {
		t := opts.since.UnixNano()
		start = sort.Search(len(l.times), func(i int) bool { return l.times[i] >= t })
	}
	if opts.tailLines >= 0 && int64(len(l.offsets)-start) > opts.tailLines {
		start = len(l.offsets) - int(opts.tailLines)
	}
	var pos int64
	if start < len(l.offsets) {
		pos = l.offsets[start]
	} else {
		pos = l.size
	}
	// A one-shot read is the log as it was when the request arrived: the first batch ends
	// where tailLines was counted, so lines appended meanwhile cannot exceed the tail.
	end, stopped, changed := l.size, l.stopped, l.changed
	l.mu.Unlock()

	written := int64(0)
	buf := make([]byte, 64<<10)
	var partial []byte
	out := bufio.NewWriterSize(w, 32<<10)
	for {
		for pos < end {
			n := int64(len(buf))
			if end-pos < n {
				n = end - pos
			}
			got, err := l.f.ReadAt(buf[:n], pos)
			if err != nil && err != io.EOF {
				return err
			}
			pos += int64(got)
			data := append(partial, buf[:got]...)
			for {
				i := bytes.IndexByte(data, '\n')
				if i < 0 {
					break
				}
				line := data[:i]
				data = data[i+1:]
				msg, err := formatLine(line, opts.timestamps)
				if err != nil {
					return err
				}
				if opts.limitBytes > 0 && written+int64(len(msg)) > opts.limitBytes {
					msg = msg[:opts.limitBytes-written]
				}
				if _, err := out.Write(msg); err != nil {
					return err
				}
				written += int64(len(msg))
				if opts.limitBytes > 0 && written >= opts.limitBytes {
					_ = out.Flush()
					flush()
					return nil
				}
			}
			partial = append(partial[:0], data...)
		}
		if err := out.Flush(); err != nil {
			return err
		}
		flush()
		if !opts.follow || stopped {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil
		}
		l.mu.Lock()
		end, stopped, changed = l.size, l.stopped, l.changed
		l.mu.Unlock()
	}
}

// formatLine turns one CRI line into the bytes the kubelet returns: the message with its
// newline, prefixed by the RFC3339Nano timestamp when timestamps are requested.
func formatLine(line []byte, timestamps bool) ([]byte, error) {
	sp1 := bytes.IndexByte(line, ' ')
	if sp1 < 0 {
		return nil, fmt.Errorf("corrupt log line %q", line)
	}
	rest := line[sp1+1:]
	sp2 := bytes.IndexByte(rest, ' ')
	if sp2 < 0 || len(rest) < sp2+3 {
		return nil, fmt.Errorf("corrupt log line %q", line)
	}
	msg := rest[sp2+3:]
	out := make([]byte, 0, len(msg)+40)
	if timestamps {
		out = append(out, line[:sp1]...)
		out = append(out, ' ')
	}
	out = append(out, msg...)
	return append(out, '\n'), nil
}

// parseLogOptions reads the query the apiserver sends to /containerLogs.
func parseLogOptions(get func(string) string) (logOptions, bool, error) {
	opts := logOptions{tailLines: -1}
	var err error
	parseBool := func(name string) bool {
		v := get(name)
		if v == "" || err != nil {
			return false
		}
		b, e := strconv.ParseBool(v)
		if e != nil {
			err = fmt.Errorf("invalid %s=%q", name, v)
		}
		return b
	}
	parseInt := func(name string, def int64) int64 {
		v := get(name)
		if v == "" || err != nil {
			return def
		}
		n, e := strconv.ParseInt(v, 10, 64)
		if e != nil || n < 0 {
			err = fmt.Errorf("invalid %s=%q", name, v)
		}
		return n
	}
	opts.follow = parseBool("follow")
	opts.timestamps = parseBool("timestamps")
	previous := parseBool("previous")
	opts.tailLines = parseInt("tailLines", -1)
	opts.limitBytes = parseInt("limitBytes", 0)
	if s := parseInt("sinceSeconds", 0); s > 0 {
		opts.since = time.Now().Add(-time.Duration(s) * time.Second)
	}
	if v := get("sinceTime"); v != "" && err == nil {
		t, e := time.Parse(time.RFC3339, v)
		if e != nil {
			err = fmt.Errorf("invalid sinceTime=%q", v)
		}
		opts.since = t
	}
	return opts, previous, err
}
