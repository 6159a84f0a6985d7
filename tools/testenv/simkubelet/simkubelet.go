// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
)

// Annotations that steer the simulated containers of a pod.
const (
	// AnnotationLogInterval makes every container log "line-N" (N from 0) at this interval,
	// a Go duration such as "1ms".
	AnnotationLogInterval = "sim.kubex.dev/log-interval"
	// AnnotationExitAfter makes the containers exit after this Go duration.
	AnnotationExitAfter = "sim.kubex.dev/exit-after"
	// AnnotationExitCode is the exit code used with AnnotationExitAfter (default 0).
	AnnotationExitCode = "sim.kubex.dev/exit-code"
	// AnnotationAttach = "echo" makes the main process of every container whose spec has
	// stdin: true echo what attached clients send to its stdout (and so to its log).
	AnnotationAttach = "sim.kubex.dev/attach"
)

// Config describes the simulated nodes.
type Config struct {
	Client      kubernetes.Interface
	Nodes       int    // number of nodes, named NodePrefix-0...
	NodePrefix  string // default "sim-node"
	MaxPods     int    // status.capacity.pods of every node
	Dir         string // where container log files live
	Port        int    // kubelet API port on 127.0.0.1; 0 picks a free one
	ServingCert tls.Certificate
	ClientCAs   *x509.CertPool // the kubelet API accepts only clients with certificates from these CAs
	Version     string         // reported as nodeInfo.kubeletVersion
	Logger      *log.Logger
}

// Sim is a running set of simulated nodes.
type Sim struct {
	cfg      Config
	listener net.Listener
	server   *http.Server
	backends *backends // what port-forwards reach

	mu   sync.Mutex
	pods map[string]*podRuntime // by namespace/name
	ips  map[string]*ipPool     // by node name
	wg   sync.WaitGroup
}

// New validates cfg and binds the kubelet API listener, so that the port is known before
// any Node is registered.
func New(cfg Config) (*Sim, error) {
	if cfg.Client == nil || cfg.Nodes <= 0 || cfg.Dir == "" {
		return nil, fmt.Errorf("simkubelet: Client, Nodes > 0 and Dir are required")
	}
	if cfg.NodePrefix == "" {
		cfg.NodePrefix = "sim-node"
	}
	if cfg.MaxPods <= 0 {
		cfg.MaxPods = 1000
	}
	if cfg.Logger == nil {
		cfg.Logger = log.New(os.Stderr, "simkubelet: ", log.LstdFlags)
	}
	if err := os.MkdirAll(filepath.Join(cfg.Dir, "pods"), 0o700); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", cfg.Port))
	if err != nil {
		return nil, fmt.Errorf("simkubelet: listen: %w", err)
	}
	b, err := startBackends(cfg.Logger)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("simkubelet: %w", err)
	}
	s := &Sim{cfg: cfg, listener: ln, backends: b, pods: map[string]*podRuntime{}, ips: map[string]*ipPool{}}
	for i := 0; i < cfg.Nodes; i++ {
		s.ips[s.nodeName(i)] = newIPPool(i)
	}
	s.server = &http.Server{
		Handler: s.handler(),
		TLSConfig: &tls.Config{
			MinVersion:   tls.VersionTLS12,
			Certificates: []tls.Certificate{cfg.ServingCert},
			ClientAuth:   tls.RequireAndVerifyClientCert,
			ClientCAs:    cfg.ClientCAs,
		},
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          cfg.Logger,
	}
	return s, nil
}

// Port is the kubelet API port every simulated node publishes.
func (s *Sim) Port() int { return s.listener.Addr().(*net.TCPAddr).Port }

// NodeNames lists the simulated nodes.
func (s *Sim) NodeNames() []string {
	names := make([]string, s.cfg.Nodes)
	for i := range names {
		names[i] = s.nodeName(i)
	}
	return names
}

func (s *Sim) nodeName(i int) string { return fmt.Sprintf("%s-%d", s.cfg.NodePrefix, i) }

func (s *Sim) ownsNode(name string) bool {
	_, ok := s.ips[name]
	return ok
}

// Run serves the kubelet API, registers the nodes and starts the node and pod loops, which
// run until ctx is done. It returns once the nodes are registered; later errors are logged.
func (s *Sim) Run(ctx context.Context) error {
	// Handlers (log followers) end with ctx rather than holding up shutdown.
	s.server.BaseContext = func(net.Listener) context.Context { return ctx }
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.server.ServeTLS(s.listener, "", ""); err != nil && err != http.ErrServerClosed {
			s.cfg.Logger.Printf("kubelet API server: %v", err)
		}
	}()
	for i := 0; i < s.cfg.Nodes; i++ {
		if err := s.registerNode(ctx, i); err != nil {
			return err
		}
	}
	for i := 0; i < s.cfg.Nodes; i++ {
		i := i
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.heartbeat(ctx, i) }()
	}
	s.wg.Add(1)
	go func() { defer s.wg.Done(); s.runPods(ctx) }()
	return nil
}

// Stop closes the kubelet API and waits for the node and pod loops (ctx must be done).
func (s *Sim) Stop() {
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.server.Shutdown(shutdownCtx)
	_ = s.server.Close()
	s.wg.Wait()
	s.backends.close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, p := range s.pods {
		p.stop()
		delete(s.pods, k)
	}
}
