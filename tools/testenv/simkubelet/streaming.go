// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
	remotecommandconsts "k8s.io/apimachinery/pkg/util/remotecommand"
	"k8s.io/kubelet/pkg/cri/streaming/portforward"
	kubeletremotecommand "k8s.io/kubelet/pkg/cri/streaming/remotecommand"
)

// The kubelet's streaming endpoints, served by the upstream streaming package
// (k8s.io/kubelet/pkg/cri/streaming): SPDY/3.1 with remotecommand v1-v4 and
// portforward.k8s.io, which the apiserver speaks for WebSocket v5 exec/attach and for the
// SPDY-over-WebSocket port-forward tunnel, and the legacy WebSocket channel protocols
// (channel.k8s.io, v4.channel.k8s.io, base64 variants), which the apiserver passes through.
// Paths and the errors before a stream is set up are the kubelet's (pkg/kubelet/server).
const (
	// streamIdleTimeout closes a session without traffic; long, so that benchmarks can hold
	// a port-forward or exec open between their rounds.
	streamIdleTimeout = 4 * time.Hour
	// streamCreationTimeout is how long the client has to open a session's streams.
	streamCreationTimeout = 30 * time.Second
)

// streamTarget is the pod (and container) a streaming path names.
type streamTarget struct {
	ns, pod, container string
	uid                types.UID // optional path segment
}

// parseStreamPath reads /PREFIX/{ns}/{pod}[/{uid}]/{container} (withContainer) or
// /PREFIX/{ns}/{pod}[/{uid}].
func parseStreamPath(path, prefix string, withContainer bool) (streamTarget, bool) {
	parts := strings.Split(strings.TrimPrefix(path, prefix), "/")
	for _, p := range parts {
		if p == "" {
			return streamTarget{}, false
		}
	}
	t := streamTarget{}
	switch {
	case withContainer && len(parts) == 3:
		t.ns, t.pod, t.container = parts[0], parts[1], parts[2]
	case withContainer && len(parts) == 4:
		t.ns, t.pod, t.uid, t.container = parts[0], parts[1], types.UID(parts[2]), parts[3]
	case !withContainer && len(parts) == 2:
		t.ns, t.pod = parts[0], parts[1]
	case !withContainer && len(parts) == 3:
		t.ns, t.pod, t.uid = parts[0], parts[1], types.UID(parts[2])
	default:
		return streamTarget{}, false
	}
	return t, true
}

// streamRequest checks the method and path of a streaming request; it answers the request
// itself and returns false when they are wrong.
func streamRequest(w http.ResponseWriter, r *http.Request, prefix string, withContainer bool) (streamTarget, bool) {
	t, ok := parseStreamPath(r.URL.Path, prefix, withContainer)
	if !ok {
		http.NotFound(w, r)
		return t, false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return t, false
	}
	return t, true
}

// writeKubeletError answers as the kubelet's server does before a stream is set up: the
// status and the bare message.
func writeKubeletError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg))
}

// podFullName is the kubelet's name_namespace form used in its messages.
func podFullName(t streamTarget) string { return t.pod + "_" + t.ns }

func (s *Sim) podRuntime(ns, name string) *podRuntime {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pods[ns+"/"+name]
}

// runningContainer is the named main or sidecar container of the pod while it runs; nil
// when there is none, or when uid is given and is not the pod's (the kubelet finds
// containers among the runtime's running pods, by pod name and UID).
func (p *podRuntime) runningContainer(name string, uid types.UID) *containerRuntime {
	if uid != "" && uid != p.uid {
		return nil
	}
	c := p.container(name)
	if c == nil {
		return nil
	}
	if exited, _, _ := c.state(); exited {
		return nil
	}
	return c
}

func (p *podRuntime) running() bool {
	for _, c := range p.containers {
		if exited, _, _ := c.state(); !exited {
			return true
		}
	}
	return false
}

func (s *Sim) serveExec(w http.ResponseWriter, r *http.Request) {
	t, ok := streamRequest(w, r, "/exec/", true)
	if !ok {
		return
	}
	opts, err := kubeletremotecommand.NewOptions(r)
	if err != nil {
		writeKubeletError(w, http.StatusBadRequest, err.Error())
		return
	}
	rt := s.podRuntime(t.ns, t.pod)
	if rt == nil {
		writeKubeletError(w, http.StatusNotFound, "pod does not exist")
		return
	}
	if rt.runningContainer(t.container, t.uid) == nil {
		writeKubeletError(w, http.StatusInternalServerError, fmt.Sprintf("container not found (%q)", t.container))
		return
	}
	kubeletremotecommand.ServeExec(w, r, executor{}, t.pod, t.uid, t.container, r.URL.Query()["command"], opts,
		streamIdleTimeout, streamCreationTimeout, remotecommandconsts.SupportedStreamingProtocols)
}

func (s *Sim) serveAttach(w http.ResponseWriter, r *http.Request) {
	t, ok := streamRequest(w, r, "/attach/", true)
	if !ok {
		return
	}
	opts, err := kubeletremotecommand.NewOptions(r)
	if err != nil {
		writeKubeletError(w, http.StatusBadRequest, err.Error())
		return
	}
	rt := s.podRuntime(t.ns, t.pod)
	if rt == nil {
		writeKubeletError(w, http.StatusNotFound, "pod does not exist")
		return
	}
	c := rt.runningContainer(t.container, t.uid)
	if c == nil {
		writeKubeletError(w, http.StatusInternalServerError, fmt.Sprintf("container %s not found in pod %s", t.container, podFullName(t)))
		return
	}
	if opts.Stdin && !c.stdin {
		writeKubeletError(w, http.StatusInternalServerError, fmt.Sprintf(
			"container %s in pod %s does not accept input: its spec has stdin: false, so attach cannot pass stdin", t.container, podFullName(t)))
		return
	}
	kubeletremotecommand.ServeAttach(w, r, attacher{c}, t.pod, t.uid, t.container, opts,
		streamIdleTimeout, streamCreationTimeout, remotecommandconsts.SupportedStreamingProtocols)
}

func (s *Sim) servePortForward(w http.ResponseWriter, r *http.Request) {
	t, ok := streamRequest(w, r, "/portForward/", false)
	if !ok {
		return
	}
	opts, err := portforward.NewV4Options(r)
	if err != nil {
		writeKubeletError(w, http.StatusBadRequest, err.Error())
		return
	}
	rt := s.podRuntime(t.ns, t.pod)
	if rt == nil {
		writeKubeletError(w, http.StatusNotFound, "pod does not exist")
		return
	}
	if t.uid != "" && t.uid != rt.uid {
		writeKubeletError(w, http.StatusNotFound, "pod not found")
		return
	}
	if !rt.running() {
		writeKubeletError(w, http.StatusInternalServerError, fmt.Sprintf("pod not found (%q)", podFullName(t)))
		return
	}
	// The container runtime serves port-forwards by sandbox ID, without the pod's UID, and
	// its errors say so ("error forwarding port P to pod SANDBOX, uid : ...").
	portforward.ServePortForward(w, r, s.portForwarder(rt), rt.sandboxID, "", opts,
		streamIdleTimeout, streamCreationTimeout, portforward.SupportedProtocols)
}
