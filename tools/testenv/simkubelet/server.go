// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"fmt"
	"net/http"
	"strings"
)

// handler serves the subset of the kubelet API that the apiserver proxies to. Paths and
// error texts follow the kubelet's, so clients see what they would on a real node:
// containerLogs here, exec, attach and portForward in streaming.go.
func (s *Sim) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	mux.HandleFunc("/containerLogs/", s.serveContainerLogs)
	mux.HandleFunc("/exec/", s.serveExec)
	mux.HandleFunc("/attach/", s.serveAttach)
	mux.HandleFunc("/portForward/", s.servePortForward)
	return mux
}

func (s *Sim) serveContainerLogs(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/containerLogs/"), "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		http.Error(w, `path must be /containerLogs/{namespace}/{pod}/{container}`, http.StatusBadRequest)
		return
	}
	ns, podName, container := parts[0], parts[1], parts[2]
	opts, previous, err := parseLogOptions(r.URL.Query().Get)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	rt := s.pods[ns+"/"+podName]
	s.mu.Unlock()
	if rt == nil {
		http.Error(w, fmt.Sprintf("pod %q in namespace %q not found", podName, ns), http.StatusNotFound)
		return
	}
	c := rt.container(container)
	if c == nil {
		http.Error(w, fmt.Sprintf("container %q in pod %q is not available", container, podName), http.StatusBadRequest)
		return
	}
	if previous {
		// Simulated containers never restart, so there is no previous instance.
		http.Error(w, fmt.Sprintf("previous terminated container %q in pod %q not found", container, podName), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	if err := c.log.stream(r.Context(), w, flush, opts); err != nil {
		s.cfg.Logger.Printf("containerLogs %s/%s/%s: %v", ns, podName, container, err)
	}
}
