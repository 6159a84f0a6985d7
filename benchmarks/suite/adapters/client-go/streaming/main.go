// SPDX-License-Identifier: Apache-2.0
// The client-go adapter of the streaming benchmark (benchmarks/suite/streaming.py): exec and
// port-forward through the apiserver, set up as kubectl v1.35 sets them up, one process per
// scenario doing its iterations.
//
//	bench-client-go-streaming --kubeconfig FILE --namespace NS --pod NAME --scenario S
//	    --iters N --warmup W [--port P] [--bytes B] [--warmup-bytes B] [--line-bytes L]
//
// exec: remotecommand's WebSocket executor (v5.channel.k8s.io) with the SPDY executor as its
// fallback (NewFallbackExecutor), as kubectl exec; port-forward: the tunneling dialer
// (NewSPDYOverWebsocketDialer: SPDY/3.1 inside WebSocket) with the SPDY dialer as its
// fallback, and on the connection an error and a data stream per forwarded connection, as
// tools/portforward's handleConnection opens them. Scenarios, phase lines and the result line
// are those of adapters/kubex/streaming.cpp.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/transport/spdy"

	"kubex.dev/bench/client-go/measure"
)

type options struct {
	namespace, pod, scenario       string
	iters, warmup, port, lineBytes int
	bytes, warmupBytes             int64
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "bench-client-go-streaming: %v\n", err)
	os.Exit(1)
}

var stdin = bufio.NewReader(os.Stdin)

// phase tells the driver where the loop is and waits for its go-ahead (a line on stdin).
func phase(name string) {
	fmt.Printf("{\"phase\":%q}\n", name)
	if _, err := stdin.ReadString('\n'); err != nil {
		fail(fmt.Errorf("stdin ended before the driver's go-ahead: %w", err))
	}
}

func line(size, i int) []byte {
	b := bytes.Repeat([]byte{byte('a' + i%26)}, size)
	b[size-1] = '\n'
	return b
}

type result struct {
	SamplesNs []int64 `json:"samples_ns"`
	Bytes     int64   `json:"bytes"`
	CPUNs     int64   `json:"cpu_ns"`
	HwmKB     int64   `json:"hwm_kb"`
	RssKB     int64   `json:"rss_kb"`
}

// loop runs once warmup times, then iters times between the phase lines, timing each.
func loop(o options, once func(i int, warmup bool) (int64, error)) (result, error) {
	for i := 0; i < o.warmup; i++ {
		if _, err := once(i, true); err != nil {
			return result{}, err
		}
	}
	r := result{SamplesNs: make([]int64, 0, o.iters)}
	phase("loop")
	cpu0 := measure.CPUNs()
	for i := 0; i < o.iters; i++ {
		t0 := measure.NowNs()
		n, err := once(i, false)
		if err != nil {
			return r, err
		}
		r.SamplesNs = append(r.SamplesNs, measure.NowNs()-t0)
		r.Bytes += n
	}
	r.CPUNs = measure.CPUNs() - cpu0
	r.HwmKB = measure.ProcStatusKB("VmHWM")
	phase("done")
	return r, nil
}

func isUpgradeFailure(err error) bool {
	return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
}

type bench struct {
	o   options
	cfg *rest.Config
	cs  *kubernetes.Clientset
}

// executor is kubectl exec's: WebSocket first, SPDY when the upgrade fails.
func (b *bench) executor(command []string, withStdin bool) (remotecommand.Executor, error) {
	u := b.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(b.o.namespace).
		Name(b.o.pod).SubResource("exec").VersionedParams(&corev1.PodExecOptions{
		Command: command, Stdin: withStdin, Stdout: true, Stderr: true,
	}, scheme.ParameterCodec).URL()
	spdyExec, err := remotecommand.NewSPDYExecutor(b.cfg, "POST", u)
	if err != nil {
		return nil, err
	}
	wsExec, err := remotecommand.NewWebSocketExecutor(b.cfg, "GET", u.String())
	if err != nil {
		return nil, err
	}
	return remotecommand.NewFallbackExecutor(wsExec, spdyExec, isUpgradeFailure)
}

// dialer is kubectl port-forward's: the WebSocket tunnel first, SPDY when the upgrade fails.
func (b *bench) dialer() (httpstream.Dialer, error) {
	u := b.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(b.o.namespace).
		Name(b.o.pod).SubResource("portforward").URL()
	transport, upgrader, err := spdy.RoundTripperFor(b.cfg)
	if err != nil {
		return nil, err
	}
	spdyDialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, "POST", u)
	tunneling, err := portforward.NewSPDYOverWebsocketDialer(u, b.cfg)
	if err != nil {
		return nil, err
	}
	return portforward.NewFallbackDialer(tunneling, spdyDialer, isUpgradeFailure), nil
}

// openStream opens a connection to port on conn as tools/portforward does: an error stream
// (closed for writing; whatever the kubelet says on it arrives on the channel) and a data
// stream.
func openStream(conn httpstream.Connection, port int, id int) (httpstream.Stream, chan error, error) {
	headers := http.Header{}
	headers.Set(corev1.StreamType, corev1.StreamTypeError)
	headers.Set(corev1.PortHeader, strconv.Itoa(port))
	headers.Set(corev1.PortForwardRequestIDHeader, strconv.Itoa(id))
	errorStream, err := conn.CreateStream(headers)
	if err != nil {
		return nil, nil, err
	}
	errorStream.Close()
	errs := make(chan error, 1)
	go func() {
		message, err := io.ReadAll(errorStream)
		switch {
		case err != nil:
			errs <- err
		case len(message) > 0:
			errs <- errors.New(string(message))
		}
		close(errs)
	}()
	headers.Set(corev1.StreamType, corev1.StreamTypeData)
	data, err := conn.CreateStream(headers)
	if err != nil {
		return nil, nil, err
	}
	return data, errs, nil
}

func (b *bench) execEcho() (result, error) {
	return loop(b.o, func(int, bool) (int64, error) {
		exec, err := b.executor([]string{"echo", "hi"}, false)
		if err != nil {
			return 0, err
		}
		var out, errOut bytes.Buffer
		if err := exec.StreamWithContext(context.Background(), remotecommand.StreamOptions{
			Stdout: &out, Stderr: &errOut}); err != nil {
			return 0, err
		}
		if out.String() != "hi\n" || errOut.Len() != 0 {
			return 0, fmt.Errorf("echo hi gave %q and %q", out.String(), errOut.String())
		}
		return int64(out.Len()), nil
	})
}

// chanWriter hands each piece of output over to the loop (copied: the executor reuses its
// buffer).
type chanWriter chan []byte

func (w chanWriter) Write(p []byte) (int, error) {
	w <- append([]byte(nil), p...)
	return len(p), nil
}

func (b *bench) execInteractive() (result, error) {
	exec, err := b.executor([]string{"cat"}, true)
	if err != nil {
		return result{}, err
	}
	in, toCat := io.Pipe()
	out := make(chanWriter, 64)
	ended := make(chan error, 1)
	go func() {
		ended <- exec.StreamWithContext(context.Background(), remotecommand.StreamOptions{
			Stdin: in, Stdout: out, Stderr: os.Stderr})
		close(out)
	}()
	back := make([]byte, 0, b.o.lineBytes)
	r, err := loop(b.o, func(i int, _ bool) (int64, error) {
		l := line(b.o.lineBytes, i)
		if _, err := toCat.Write(l); err != nil {
			return 0, err
		}
		back = back[:0]
		for len(back) < len(l) {
			piece, ok := <-out
			if !ok {
				return 0, fmt.Errorf("cat ended early: %v", <-ended)
			}
			back = append(back, piece...)
		}
		if !bytes.Equal(back, l) {
			return 0, errors.New("cat gave back something else")
		}
		return int64(len(l)), nil
	})
	if err != nil {
		return r, err
	}
	toCat.Close()
	for range out {
	}
	return r, <-ended
}

// download is GET /bytes/size through a new tunnel: the body's bytes once all have arrived
// (checked against the pattern when check).
func (b *bench) download(dialer httpstream.Dialer, size int64, check bool) (int64, error) {
	conn, _, err := dialer.Dial(portforward.PortForwardProtocolV1Name)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	data, errs, err := openStream(conn, b.o.port, 0)
	if err != nil {
		return 0, err
	}
	defer conn.RemoveStreams(data)
	if _, err := fmt.Fprintf(data, "GET /bytes/%d HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n", size); err != nil {
		return 0, err
	}
	buf := make([]byte, 64<<10)
	var head []byte
	var body int64
	take := func(p []byte) error {
		if check {
			for k, c := range p {
				if c != byte('a'+(body+int64(k))%26) {
					return fmt.Errorf("body byte %d differs", body+int64(k))
				}
			}
		}
		body += int64(len(p))
		return nil
	}
	for {
		n, err := data.Read(buf)
		head = append(head, buf[:n]...)
		if end := bytes.Index(head, []byte("\r\n\r\n")); end >= 0 {
			h := string(head[:end])
			if !strings.HasPrefix(h, "HTTP/1.1 200") || !strings.Contains(h+"\r\n", fmt.Sprintf("Content-Length: %d\r\n", size)) {
				return 0, fmt.Errorf("unexpected response head: %s", h)
			}
			if err := take(head[end+4:]); err != nil {
				return 0, err
			}
			break
		}
		if err != nil {
			return 0, fmt.Errorf("the response ended in its head: %v (%v)", err, <-errs)
		}
	}
	for body < size {
		n, err := data.Read(buf)
		if e := take(buf[:n]); e != nil {
			return 0, e
		}
		if err != nil && body < size {
			return 0, fmt.Errorf("the body ended after %d bytes: %v (%v)", body, err, <-errs)
		}
	}
	return body, nil
}

func (b *bench) pfDownload() (result, error) {
	dialer, err := b.dialer()
	if err != nil {
		return result{}, err
	}
	return loop(b.o, func(_ int, warmup bool) (int64, error) {
		if warmup {
			return b.download(dialer, b.o.warmupBytes, true)
		}
		return b.download(dialer, b.o.bytes, false)
	})
}

func (b *bench) pfEcho() (result, error) {
	dialer, err := b.dialer()
	if err != nil {
		return result{}, err
	}
	conn, _, err := dialer.Dial(portforward.PortForwardProtocolV1Name)
	if err != nil {
		return result{}, err
	}
	defer conn.Close()
	data, errs, err := openStream(conn, b.o.port, 0)
	if err != nil {
		return result{}, err
	}
	back := make([]byte, b.o.lineBytes)
	return loop(b.o, func(i int, _ bool) (int64, error) {
		l := line(b.o.lineBytes, i)
		if _, err := data.Write(l); err != nil {
			return 0, err
		}
		if _, err := io.ReadFull(data, back); err != nil {
			return 0, fmt.Errorf("the echo ended early: %v (%v)", err, <-errs)
		}
		if !bytes.Equal(back, l) {
			return 0, errors.New("the echo gave back something else")
		}
		return int64(len(l)), nil
	})
}

func main() {
	f := map[string]string{"iters": "10", "warmup": "1", "port": "0", "bytes": "200000000",
		"warmup-bytes": "1000000", "line-bytes": "64"}
	a := os.Args[1:]
	for i := 0; i+1 < len(a); i += 2 {
		if !strings.HasPrefix(a[i], "--") {
			fail(fmt.Errorf("expected --name value pairs, got %q", a[i]))
		}
		f[a[i][2:]] = a[i+1]
	}
	num := func(k string) int64 {
		v, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			fail(fmt.Errorf("--%s: %v", k, err))
		}
		return v
	}
	o := options{namespace: f["namespace"], pod: f["pod"], scenario: f["scenario"],
		iters: int(num("iters")), warmup: int(num("warmup")), port: int(num("port")),
		lineBytes: int(num("line-bytes")), bytes: num("bytes"), warmupBytes: num("warmup-bytes")}
	if f["kubeconfig"] == "" || o.namespace == "" || o.pod == "" || o.scenario == "" || o.lineBytes < 2 {
		fail(errors.New("--kubeconfig, --namespace, --pod and --scenario are required"))
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", f["kubeconfig"])
	if err != nil {
		fail(err)
	}
	cfg.QPS = -1
	cfg.UserAgent = "bench-client-go"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fail(err)
	}
	b := &bench{o: o, cfg: cfg, cs: cs}
	var r result
	switch o.scenario {
	case "exec_echo":
		r, err = b.execEcho()
	case "exec_interactive":
		r, err = b.execInteractive()
	case "pf_download":
		r, err = b.pfDownload()
	case "pf_echo":
		r, err = b.pfEcho()
	default:
		err = fmt.Errorf("unknown scenario %s", o.scenario)
	}
	if err != nil {
		fail(err)
	}
	r.RssKB = measure.ProcStatusKB("VmRSS")
	line, _ := json.Marshal(r)
	fmt.Println(string(line))
}
