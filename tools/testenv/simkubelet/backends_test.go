// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"bytes"
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func startTestBackends(t *testing.T) *backends {
	t.Helper()
	b, err := startBackends(log.New(io.Discard, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.close)
	return b
}

func TestEchoBackendHalfClose(t *testing.T) {
	b := startTestBackends(t)
	conn, err := net.Dial("tcp", b.echoAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	want := bytes.Repeat([]byte("0123456789"), 100000) // 1 MB: more than the socket buffers hold
	go func() {
		_, _ = conn.Write(want)
		_ = conn.(*net.TCPConn).CloseWrite()
	}()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(conn) // ends only when the server closes after the echo
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("echo: %d bytes back (want %d), %v", len(got), len(want), err)
	}
}

func TestHTTPBackend(t *testing.T) {
	b := startTestBackends(t)
	resp, err := http.Get("http://" + b.httpAddr + "/bytes/1000")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != 1000 || len(body) != 1000 {
		t.Fatalf("GET /bytes/1000: %d, length %d, %d bytes", resp.StatusCode, resp.ContentLength, len(body))
	}
	for i, c := range body {
		if c != byte('a'+i%26) {
			t.Fatalf("byte %d is %q", i, c)
		}
	}
	resp, err = http.Get("http://" + b.httpAddr + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != httpGreeting {
		t.Errorf("GET /: %q", body)
	}
	resp, err = http.Get("http://" + b.httpAddr + "/other")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET /other: %d", resp.StatusCode)
	}
}

// pipeStream is the client's end of a port-forward stream for PortForward.
type pipeStream struct {
	io.Reader
	io.WriteCloser
}

func TestPortForward(t *testing.T) {
	b := startTestBackends(t)
	s := &Sim{backends: b}
	f := s.portForwarder(&podRuntime{sandboxID: "sandbox", ports: map[int32]string{7: "echo", 80: "http-web"}})

	// Echo port: what the client writes comes back; its close ends the forward.
	inR, inW := io.Pipe()
	var out bytes.Buffer
	done := make(chan error)
	go func() { done <- f.PortForward(context.Background(), "", "", 7, pipeStream{inR, nopCloser{&out}}) }()
	_, _ = inW.Write([]byte("ping"))
	inW.Close()
	if err := <-done; err != nil || out.String() != "ping" {
		t.Fatalf("echo port: %q, %v", out.String(), err)
	}

	// HTTP port.
	inR, inW = io.Pipe()
	out.Reset()
	go func() { done <- f.PortForward(context.Background(), "", "", 80, pipeStream{inR, nopCloser{&out}}) }()
	_, _ = inW.Write([]byte("GET /bytes/5 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
	if err := <-done; err != nil || !strings.HasSuffix(out.String(), "\r\n\r\nabcde") {
		t.Fatalf("http port: %q, %v", out.String(), err)
	}
	inW.Close()

	// An undeclared port is closed.
	err := f.PortForward(context.Background(), "", "", 9999, pipeStream{strings.NewReader(""), nopCloser{io.Discard}})
	want := `failed to connect to localhost:9999 inside namespace "sandbox", IPv4: dial tcp4 127.0.0.1:9999: connect: connection refused`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("undeclared port: %v", err)
	}
}
