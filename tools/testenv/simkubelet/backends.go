// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// backends are the servers behind the pods' ports, on 127.0.0.1 only: port-forwards reach
// them, and nothing else does (pod IPs are data, never dialled).
//
//   - echo: a TCP server that writes back every byte it reads; when the client closes its
//     write side, it writes what is left and closes.
//   - http: GET / answers "hello from simkubelet\n"; GET /bytes/N answers N bytes (at most
//     1 GiB) of the pattern byte i = 'a' + i%26, with Content-Length. Other paths are 404.
type backends struct {
	echo     net.Listener
	httpLn   net.Listener
	httpSrv  *http.Server
	mu       sync.Mutex
	conns    map[net.Conn]struct{} // open echo connections
	wg       sync.WaitGroup
	closed   bool
	echoAddr string
	httpAddr string
}

// maxHTTPBytes bounds GET /bytes/N.
const maxHTTPBytes = 1 << 30

const httpGreeting = "hello from simkubelet\n"

func startBackends(logger *log.Logger) (*backends, error) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("echo backend: %w", err)
	}
	httpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		echo.Close()
		return nil, fmt.Errorf("http backend: %w", err)
	}
	b := &backends{
		echo: echo, httpLn: httpLn, conns: map[net.Conn]struct{}{},
		echoAddr: echo.Addr().String(), httpAddr: httpLn.Addr().String(),
	}
	b.httpSrv = &http.Server{
		Handler:           http.HandlerFunc(serveBackendHTTP),
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       5 * time.Minute,
		ErrorLog:          logger,
	}
	b.wg.Add(2)
	go func() { defer b.wg.Done(); b.serveEcho() }()
	go func() {
		defer b.wg.Done()
		if err := b.httpSrv.Serve(httpLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Printf("http backend: %v", err)
		}
	}()
	return b, nil
}

func (b *backends) serveEcho() {
	for {
		conn, err := b.echo.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			conn.Close()
			return
		}
		b.conns[conn] = struct{}{}
		b.wg.Add(1)
		b.mu.Unlock()
		go func() {
			defer b.wg.Done()
			defer func() {
				b.mu.Lock()
				delete(b.conns, conn)
				b.mu.Unlock()
				conn.Close()
			}()
			// A plain copy (no splice): the reads pace the writes, so a client that reads
			// slowly slows the echo of what it sends.
			buf := make([]byte, 32<<10)
			if _, err := io.CopyBuffer(struct{ io.Writer }{conn}, struct{ io.Reader }{conn}, buf); err == nil {
				_ = conn.(*net.TCPConn).CloseWrite()
			}
		}()
	}
}

func serveBackendHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch {
	case r.URL.Path == "/":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(httpGreeting)))
		_, _ = io.WriteString(w, httpGreeting)
	case strings.HasPrefix(r.URL.Path, "/bytes/"):
		n, err := strconv.ParseInt(strings.TrimPrefix(r.URL.Path, "/bytes/"), 10, 64)
		if err != nil || n < 0 || n > maxHTTPBytes {
			http.Error(w, fmt.Sprintf("N must be an integer from 0 to %d", maxHTTPBytes), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
		if r.Method == http.MethodGet {
			_ = writePattern(w, n)
		}
	default:
		http.NotFound(w, r)
	}
}

// close stops both servers and ends their connections.
func (b *backends) close() {
	b.mu.Lock()
	b.closed = true
	for c := range b.conns {
		c.Close()
	}
	b.mu.Unlock()
	b.echo.Close()
	_ = b.httpSrv.Close()
	b.wg.Wait()
}
