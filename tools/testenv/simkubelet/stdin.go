// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"bytes"
	"context"
	"io"
)

// stdinPump is an exec session's stdin, read ahead by at most one chunk. A command that does
// not read stdin (sleep) can then wait for its end, the only sign that a client went away
// (net/http does not cancel a hijacked request's context), without taking the bytes a later
// command of the same script reads. Nothing is buffered beyond the one chunk, so a command
// that reads slowly slows the client down.
//
// With a tty, the pump plays the terminal's line discipline in its two essential ways: ^D
// (0x04) ends stdin and ^C (0x03) ends it as an interrupt (the command's status becomes 130).
// Nothing else is interpreted: no echo, no line editing.
type stdinPump struct {
	chunks   chan []byte   // the chunk read, handed to read; closed at the end of stdin
	consumed chan struct{} // read took the whole chunk: the pump may reuse its buffer
	ended    chan struct{} // closed when stdin ended (EOF or error) and every chunk was taken
	stop     chan struct{} // closed by close: the session is over
	pending  []byte        // the rest of the chunk read took last
	// interrupted is set (before ended closes) when a tty's ^C ended stdin.
	interrupted bool
}

func newStdinPump(r io.Reader, tty bool) *stdinPump {
	p := &stdinPump{
		chunks:   make(chan []byte),
		consumed: make(chan struct{}, 1),
		ended:    make(chan struct{}),
		stop:     make(chan struct{}),
	}
	go func() {
		defer close(p.ended)
		defer close(p.chunks)
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			data, end := buf[:n], err != nil
			if tty {
				if i := bytes.IndexAny(data, "\x03\x04"); i >= 0 {
					p.interrupted = data[i] == 0x03
					data, end = data[:i], true
				}
			}
			if len(data) > 0 {
				select {
				case p.chunks <- data:
				case <-p.stop:
					return
				}
				select {
				case <-p.consumed:
				case <-p.stop:
					return
				}
			}
			if end {
				return
			}
		}
	}()
	return p
}

// read reads from stdin like io.Reader; it returns ctx's error once ctx is done and io.EOF
// at the end of stdin (a read error of the client's stream counts as its end).
func (p *stdinPump) read(ctx context.Context, b []byte) (int, error) {
	if len(p.pending) == 0 {
		select {
		case chunk, ok := <-p.chunks:
			if !ok {
				return 0, io.EOF
			}
			p.pending = chunk
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	n := copy(b, p.pending)
	p.pending = p.pending[n:]
	if len(p.pending) == 0 {
		p.consumed <- struct{}{}
	}
	return n, nil
}

// close ends the pump's goroutine (it may still be blocked reading from the client until the
// connection closes).
func (p *stdinPump) close() { close(p.stop) }
