// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// portForwarder connects port-forward streams of one pod to the backends: a TCP port that a
// container of the pod declares (spec.containers[].ports, TCP) goes to the HTTP backend when
// the port's name starts with "http", and to the echo backend otherwise. Any other port is
// closed, and the error reads as containerd's for a closed port. It implements the kubelet
// streaming package's portforward.PortForwarder.
// refusedDelay is how long a connect to a closed port takes.
const refusedDelay = 100 * time.Millisecond

type portForwarder struct {
	sandboxID string
	targets   map[int32]string // pod port -> backend address on 127.0.0.1
}

func (s *Sim) portForwarder(rt *podRuntime) portForwarder {
	f := portForwarder{sandboxID: rt.sandboxID, targets: map[int32]string{}}
	for port, name := range rt.ports {
		if strings.HasPrefix(name, "http") {
			f.targets[port] = s.backends.httpAddr
		} else {
			f.targets[port] = s.backends.echoAddr
		}
	}
	return f
}

// PortForward copies both ways between stream and a connection to the port's backend, with
// half-close: when the client closes its side, the backend's write side is closed, and the
// forward ends once the backend has closed its own. Copies are synchronous, 32 KiB at a
// time, so a slow reader on either side slows the writer on the other.
func (f portForwarder) PortForward(_ context.Context, _ string, _ types.UID, port int32, stream io.ReadWriteCloser) error {
	addr, ok := f.targets[port]
	if !ok {
		// The upstream handler resets both streams as soon as this returns, while the reply
		// that opens the data stream may not have left yet: the client would then see its
		// stream reset instead of this message. A real node's connect and the kubelet's
		// proxy to the runtime take that long anyway.
		time.Sleep(refusedDelay)
		return fmt.Errorf("failed to connect to localhost:%d inside namespace %q, IPv4: dial tcp4 127.0.0.1:%d: connect: connection refused IPv6 dial tcp6 [::1]:%d: connect: connection refused ",
			port, f.sandboxID, port, port)
	}
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return fmt.Errorf("failed to connect to localhost:%d inside namespace %q: %v", port, f.sandboxID, err)
	}
	defer conn.Close()
	tcp := conn.(*net.TCPConn)
	go func() {
		_, err := io.CopyBuffer(struct{ io.Writer }{tcp}, struct{ io.Reader }{stream}, make([]byte, 32<<10))
		if err != nil {
			tcp.Close() // the client's stream failed: end both directions
			return
		}
		_ = tcp.CloseWrite()
	}()
	_, _ = io.CopyBuffer(struct{ io.Writer }{stream}, struct{ io.Reader }{tcp}, make([]byte, 32<<10))
	return nil
}
