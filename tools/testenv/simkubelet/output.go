// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"bytes"
	"strings"
	"sync"
)

// containerOutput is what a simulated container's main process writes: whole lines go to its
// log file (what `kubectl logs` reads), and every byte, as written, to the clients attached
// at that moment (attach shows output from now on, as a container runtime does).
type containerOutput struct {
	log *containerLog

	mu      sync.Mutex
	partial map[string][]byte // per stream: bytes after the last newline, not yet in the log
	subs    map[*outputSub]struct{}
	closed  bool
}

// maxPartialLine is where a line without a newline goes to the log anyway.
const maxPartialLine = 16 << 10

// outputSubQueue bounds what an attached client may lag behind: a client that falls further
// behind is dropped rather than slowing the container (or buffering without bound).
const outputSubQueue = 1024

type outputChunk struct {
	stderr bool
	data   []byte
}

// outputSub is one attached client's queue. ch is closed when the container exits or the
// client fell behind (overflowed, set before the close).
type outputSub struct {
	ch         chan outputChunk
	overflowed bool
}

func newContainerOutput(log *containerLog) *containerOutput {
	return &containerOutput{log: log, partial: map[string][]byte{}, subs: map[*outputSub]struct{}{}}
}

// lines writes whole lines (without their newlines) to stream ("stdout" or "stderr").
func (o *containerOutput) lines(stream string, msgs ...string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.log.appendLines(stream, msgs...); err != nil {
		return err
	}
	if len(o.subs) > 0 {
		o.publish(stream, []byte(strings.Join(msgs, "\n")+"\n"))
	}
	return nil
}

// write writes raw bytes to stream: attached clients get them at once, the log line by line.
func (o *containerOutput) write(stream string, data []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.subs) > 0 {
		o.publish(stream, append([]byte(nil), data...))
	}
	buf := append(o.partial[stream], data...)
	var done []string
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		done = append(done, string(buf[:i]))
		buf = buf[i+1:]
	}
	if len(buf) >= maxPartialLine {
		done = append(done, string(buf))
		buf = nil
	}
	o.partial[stream] = append([]byte(nil), buf...)
	if len(done) > 0 {
		return o.log.appendLines(stream, done...)
	}
	return nil
}

// flush writes stream's unfinished line to the log.
func (o *containerOutput) flush(stream string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.partial[stream]) == 0 {
		return nil
	}
	line := string(o.partial[stream])
	o.partial[stream] = nil
	return o.log.appendLines(stream, line)
}

// publish queues data for every subscriber; o.mu is held.
func (o *containerOutput) publish(stream string, data []byte) {
	chunk := outputChunk{stderr: stream == "stderr", data: data}
	for sub := range o.subs {
		select {
		case sub.ch <- chunk:
		default:
			sub.overflowed = true
			close(sub.ch)
			delete(o.subs, sub)
		}
	}
}

// subscribe returns a queue of the output from now on, or nil once the container exited.
func (o *containerOutput) subscribe() *outputSub {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	sub := &outputSub{ch: make(chan outputChunk, outputSubQueue)}
	o.subs[sub] = struct{}{}
	return sub
}

func (o *containerOutput) unsubscribe(sub *outputSub) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.subs[sub]; ok {
		delete(o.subs, sub)
		close(sub.ch)
	}
}

// close ends every subscription: the container exited.
func (o *containerOutput) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	for sub := range o.subs {
		close(sub.ch)
		delete(o.subs, sub)
	}
}
