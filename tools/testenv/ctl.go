// SPDX-License-Identifier: Apache-2.0
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// The control socket lets fault tests stop, start and restart kube-apiserver while etcd
// (and so every object) stays up: POST /apiserver/{stop,start,restart}?signal=KILL|TERM,
// GET /status. POST /etcd/compact compacts etcd's history up to its current revision, so that
// tests can expire resourceVersions and continue tokens on demand (as the apiserver's periodic
// compaction does after --etcd-compaction-interval). It is a unix socket in the run directory, reachable only by its owner.

func (e *testEnv) serveControl() error {
	e.controlPath = filepath.Join(e.dir, "control.sock")
	_ = os.Remove(e.controlPath)
	ln, err := net.Listen("unix", e.controlPath)
	if err != nil {
		return err
	}
	if err := os.Chmod(e.controlPath, 0o600); err != nil {
		ln.Close()
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/status", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, e.status())
	})
	mux.HandleFunc("/etcd/compact", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		rev, err := e.compactEtcd(r.Context())
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, map[string]int64{"revision": rev})
	})
	mux.HandleFunc("/apiserver/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		sig := syscall.SIGTERM
		switch r.URL.Query().Get("signal") {
		case "", "TERM":
		case "KILL":
			sig = syscall.SIGKILL
		default:
			http.Error(w, "signal must be TERM or KILL", http.StatusBadRequest)
			return
		}
		action := filepath.Base(r.URL.Path)
		e.restartMu.Lock()
		defer e.restartMu.Unlock()
		var err error
		switch action {
		case "stop":
			e.apiserver.stop(sig, 30*time.Second)
		case "start":
			if !e.apiserver.running() {
				err = e.startAPIServer()
			}
		case "restart":
			e.apiserver.stop(sig, 30*time.Second)
			err = e.startAPIServer()
		default:
			http.Error(w, "unknown action "+action, http.StatusNotFound)
			return
		}
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, e.status())
	})
	e.control = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = e.control.Serve(ln) }()
	return nil
}

type controlStatus struct {
	APIServerRunning bool   `json:"apiserverRunning"`
	APIServerPID     int    `json:"apiserverPID"`
	Server           string `json:"server"`
}

func (e *testEnv) status() controlStatus {
	return controlStatus{APIServerRunning: e.apiserver.running(), APIServerPID: e.apiserver.pid(), Server: e.server}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func runCtl(args []string) error {
	fs := flag.NewFlagSet("ctl", flag.ContinueOnError)
	dir := fs.String("dir", "", "run directory of the testenv (required; see env.json)")
	sig := fs.String("signal", "TERM", "signal that stops the apiserver: TERM or KILL")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: testenv ctl --dir DIR [--signal TERM|KILL] apiserver-stop|apiserver-start|apiserver-restart|etcd-compact|status\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *dir == "" || fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("--dir and one action are required")
	}
	sock := filepath.Join(*dir, "control.sock")
	method, path := http.MethodPost, ""
	switch fs.Arg(0) {
	case "apiserver-stop":
		path = "/apiserver/stop?signal=" + *sig
	case "apiserver-start":
		path = "/apiserver/start"
	case "apiserver-restart":
		path = "/apiserver/restart?signal=" + *sig
	case "etcd-compact":
		path = "/etcd/compact"
	case "status":
		method, path = http.MethodGet, "/status"
	default:
		return fmt.Errorf("unknown action %q", fs.Arg(0))
	}
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}, Timeout: 3 * time.Minute}
	req, _ := http.NewRequest(method, "http://testenv"+path, nil)
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("control socket %s: %w", sock, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	os.Stdout.Write(body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s failed: HTTP %d", fs.Arg(0), resp.StatusCode)
	}
	return nil
}
