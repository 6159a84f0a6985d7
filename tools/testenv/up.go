// SPDX-License-Identifier: Apache-2.0
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"golang.org/x/term"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"kubex.dev/tools/testenv/simkubelet"
)

// kubernetesVersion is the k8s.io/kubernetes module version compiled into this binary.
var kubernetesVersion = func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/kubernetes" {
				return d.Version
			}
		}
	}
	return "unknown"
}()

// kcmControllers are the controllers that make the cluster behave like a real one for a
// client: namespaces and garbage really go away, workloads make pods, nodes are watched.
var kcmControllers = []string{
	"namespace-controller", "garbage-collector-controller", "serviceaccount-controller",
	"serviceaccount-token-controller", "deployment-controller", "replicaset-controller",
	"replicationcontroller-controller", "statefulset-controller", "daemonset-controller",
	"job-controller", "cronjob-controller", "ttl-after-finished-controller",
	"node-lifecycle-controller", "pod-garbage-collector-controller", "disruption-controller",
	"endpoints-controller", "endpointslice-controller", "endpointslice-mirroring-controller",
	"resourcequota-controller", "root-ca-certificate-publisher-controller",
	"clusterrole-aggregation-controller", "certificatesigningrequest-signing-controller",
	"certificatesigningrequest-approving-controller", "certificatesigningrequest-cleaner-controller",
	"ttl-controller", "taint-eviction-controller", "legacy-serviceaccount-token-cleaner-controller",
}

type upOptions struct {
	dir            string
	keep           bool
	apiserverPort  int
	etcdPort       int
	kubeletPort    int
	nodes          int
	maxPods        int
	minReqTimeout  int
	watchCache     bool
	featureGates   string
	controllers    bool
	scheduler      bool
	compaction     time.Duration
	stdinWatch     string
	verbosity      int
	seedNamespace  string
	seedPods       int
	extraAPIServer []string
}

func runUp(args []string) error {
	var o upOptions
	fs := flag.NewFlagSet("up", flag.ContinueOnError)
	fs.StringVar(&o.dir, "dir", "", "run directory (default: a new testenv-<pid> directory under /dev/shm, else $TMPDIR)")
	fs.BoolVar(&o.keep, "keep", false, "keep the run directory on exit")
	fs.IntVar(&o.apiserverPort, "apiserver-port", 0, "kube-apiserver port on 127.0.0.1 (0: a free port)")
	fs.IntVar(&o.etcdPort, "etcd-port", 0, "etcd client port on 127.0.0.1 (0: a free port)")
	fs.IntVar(&o.kubeletPort, "kubelet-port", 0, "port of the simulated kubelet API on 127.0.0.1 (0: a free port)")
	fs.IntVar(&o.nodes, "nodes", 2, "number of simulated nodes")
	fs.IntVar(&o.maxPods, "max-pods", 1000, "pod capacity of each simulated node")
	fs.IntVar(&o.minReqTimeout, "min-request-timeout", 1800, "kube-apiserver --min-request-timeout in seconds (watches end after 1-2x this)")
	fs.BoolVar(&o.watchCache, "watch-cache", true, "kube-apiserver --watch-cache")
	fs.StringVar(&o.featureGates, "feature-gates", "", "kube-apiserver --feature-gates, e.g. APIResponseCompression=false")
	fs.BoolVar(&o.controllers, "controller-manager", true, "run kube-controller-manager")
	fs.BoolVar(&o.scheduler, "scheduler", true, "run kube-scheduler")
	fs.DurationVar(&o.compaction, "etcd-compaction-interval", 5*time.Minute, "kube-apiserver --etcd-compaction-interval")
	fs.StringVar(&o.stdinWatch, "exit-on-stdin-close", "auto", "stop when stdin closes: true, false, or auto (when stdin is a pipe or terminal)")
	fs.IntVar(&o.verbosity, "v", 0, "log verbosity of the components (logs/ in the run directory)")
	fs.StringVar(&o.seedNamespace, "seed-namespace", "", "after start-up, seed this namespace (see 'testenv seed')")
	fs.IntVar(&o.seedPods, "seed-pods", 500, "pods to seed with --seed-namespace")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: testenv up [flags] [-- extra kube-apiserver flags]\n\n"+
			"Starts etcd, kube-apiserver %s, kube-controller-manager, kube-scheduler and simulated nodes on\n"+
			"127.0.0.1, prints one line 'TESTENV READY kubeconfig=PATH ...' on stdout, and runs until SIGINT,\n"+
			"SIGTERM or stdin closes. Logs go to logs/ in the run directory.\n\nflags:\n", kubernetesVersion)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	o.extraAPIServer = fs.Args()
	switch o.stdinWatch {
	case "auto", "true", "false":
	default:
		return fmt.Errorf("--exit-on-stdin-close must be true, false or auto, not %q", o.stdinWatch)
	}
	if o.nodes < 1 || o.nodes > simkubelet.MaxNodes {
		return fmt.Errorf("--nodes must be between 1 and %d (each node's pod CIDR is a /22 of 10.244.0.0/16)", simkubelet.MaxNodes)
	}
	if o.maxPods < 1 || o.maxPods > simkubelet.PodIPsPerNode {
		return fmt.Errorf("--max-pods must be between 1 and %d, the pod IPs of a node's /22; for more pods use more --nodes", simkubelet.PodIPsPerNode)
	}
	env, err := startEnv(o)
	if err != nil {
		return err
	}
	return env.wait(o)
}

// testEnv is one running control plane.
type testEnv struct {
	dir, logDir string
	ownDir      bool
	keep        bool
	pki         *pki
	files       pkiFiles
	kubeconfig  string
	server      string
	apiPort     int
	etcd        interface{ Close() }
	compactEtcd func(context.Context) (int64, error)
	etcdURL     string
	apiserver   *child
	others      []*child
	sim         *simkubelet.Sim
	simCancel   context.CancelFunc
	control     *http.Server
	controlPath string
	died        chan error
	logger      *log.Logger
	restartMu   sync.Mutex
}

func startEnv(o upOptions) (_ *testEnv, err error) {
	e := &testEnv{died: make(chan error, 4), keep: o.keep}
	e.logger = log.New(os.Stderr, "testenv: ", log.Ltime)
	defer func() {
		if err != nil {
			e.shutdown()
		}
	}()
	if err = e.makeDir(o.dir); err != nil {
		return e, err
	}
	if e.pki, err = newPKI(); err != nil {
		return e, err
	}
	if e.files, err = e.pki.write(e.dir); err != nil {
		return e, err
	}
	etcd, etcdURL, err := startEtcd(e.dir, o.etcdPort)
	if err != nil {
		return e, err
	}
	e.etcd, e.etcdURL = etcd, etcdURL
	e.compactEtcd = func(ctx context.Context) (int64, error) {
		rev := etcd.Server.KV().Rev()
		_, err := etcd.Server.Compact(ctx, &etcdserverpb.CompactionRequest{Revision: rev, Physical: true})
		return rev, err
	}
	if e.apiPort = o.apiserverPort; e.apiPort == 0 {
		if e.apiPort, err = freePort(); err != nil {
			return e, err
		}
	}
	e.server = fmt.Sprintf("https://127.0.0.1:%d", e.apiPort)
	e.kubeconfig = filepath.Join(e.dir, "kubeconfig")
	if err = writeKubeconfig(e.kubeconfig, e.server, e.pki); err != nil {
		return e, err
	}
	e.apiserver = newChild(componentAPIServer, e.logDir, e.apiserverArgs(o))
	if err = e.startAPIServer(); err != nil {
		return e, err
	}
	cfg := e.restConfig()
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return e, err
	}
	if err = bootstrapRBAC(client); err != nil {
		return e, err
	}

	simCtx, cancel := context.WithCancel(context.Background())
	e.simCancel = cancel
	servingCert, err := tls.X509KeyPair(e.pki.Kubelet.CertPEM, e.pki.Kubelet.KeyPEM)
	if err != nil {
		return e, err
	}
	cas := x509.NewCertPool()
	cas.AppendCertsFromPEM(e.pki.CA.CertPEM)
	e.sim, err = simkubelet.New(simkubelet.Config{
		Client: client, Nodes: o.nodes, MaxPods: o.maxPods, Dir: e.dir, Port: o.kubeletPort,
		ServingCert: servingCert, ClientCAs: cas, Version: kubernetesVersion,
		Logger: log.New(os.Stderr, "testenv simkubelet: ", log.Ltime),
	})
	if err != nil {
		return e, err
	}
	if err = e.sim.Run(simCtx); err != nil {
		return e, err
	}

	if o.controllers {
		kcm := newChild(componentControllerManager, e.logDir, e.kcmArgs(o))
		e.others = append(e.others, kcm)
		if err = kcm.start(e.died); err != nil {
			return e, err
		}
	}
	if o.scheduler {
		sched := newChild(componentScheduler, e.logDir, []string{
			"--kubeconfig=" + e.kubeconfig, "--leader-elect=false", "--secure-port=0",
			"--kube-api-qps=500", "--kube-api-burst=1000", "--v=" + strconv.Itoa(o.verbosity),
		})
		e.others = append(e.others, sched)
		if err = sched.start(e.died); err != nil {
			return e, err
		}
	}
	if o.controllers {
		// The serviceaccount controller creating "default" proves the controller manager
		// works; pods cannot be created in a namespace before its default ServiceAccount.
		if err = e.waitFor(90*time.Second, "the controller manager to create ServiceAccount default/default", func(ctx context.Context) (bool, error) {
			_, err := client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return err == nil, err
		}); err != nil {
			return e, err
		}
	}
	if err = e.serveControl(); err != nil {
		return e, err
	}
	if err = writeEnvInfo(filepath.Join(e.dir, "env.json"), envInfo{
		KubernetesVersion: kubernetesVersion, Server: e.server, Kubeconfig: e.kubeconfig, CAFile: e.files.CA,
		EtcdURL: e.etcdURL, APIServerPort: e.apiPort, KubeletPort: e.sim.Port(), ControlSocket: e.controlPath,
		Nodes: e.sim.NodeNames(), PID: os.Getpid(), APIServerPID: e.apiserver.pid(), Dir: e.dir,
	}); err != nil {
		return e, err
	}
	if o.seedNamespace != "" {
		if err = seed(context.Background(), client, seedOptions{namespace: o.seedNamespace, pods: o.seedPods, logEmitter: true, workers: 32, timeout: 5 * time.Minute}, e.logger); err != nil {
			return e, err
		}
	}
	fmt.Printf("TESTENV READY kubeconfig=%s server=%s dir=%s version=%s\n", e.kubeconfig, e.server, e.dir, kubernetesVersion)
	return e, nil
}

func (e *testEnv) apiserverArgs(o upOptions) []string {
	f := e.files
	args := []string{
		"--etcd-servers=" + e.etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(e.apiPort),
		"--tls-cert-file=" + f.APIServerCert,
		"--tls-private-key-file=" + f.APIServerKey,
		"--client-ca-file=" + f.CA,
		"--token-auth-file=" + f.TokenCSV,
		"--authorization-mode=Node,RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + f.SAPub,
		"--service-account-signing-key-file=" + f.SAKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--endpoint-reconciler-type=none",
		"--allow-privileged=true",
		"--kubelet-certificate-authority=" + f.CA,
		"--kubelet-client-certificate=" + f.KubeletClientCert,
		"--kubelet-client-key=" + f.KubeletClientKey,
		"--kubelet-preferred-address-types=InternalIP,Hostname",
		"--min-request-timeout=" + strconv.Itoa(o.minReqTimeout),
		"--watch-cache=" + strconv.FormatBool(o.watchCache),
		// PodTemplates bypass the watch cache, so a watch on them is served by etcd itself:
		// after `testenv ctl etcd-compact`, a watch from an older resourceVersion gets the
		// 410 Expired ERROR event that clients must handle (with the cache, the apiserver keeps
		// serving recent history from memory and no test could provoke it on demand).
		"--watch-cache-sizes=podtemplates#0",
		"--etcd-compaction-interval=" + o.compaction.String(),
		"--shutdown-delay-duration=0s",
		// Watches are closed actively within 2s at shutdown; with 0s they are left open and the
		// HTTP server waits for them until its shutdown timeout.
		"--shutdown-watch-termination-grace-period=2s",
		"--profiling=false",
		"--v=" + strconv.Itoa(o.verbosity),
	}
	if o.featureGates != "" {
		args = append(args, "--feature-gates="+o.featureGates)
	}
	return append(args, o.extraAPIServer...)
}

func (e *testEnv) kcmArgs(o upOptions) []string {
	return []string{
		"--kubeconfig=" + e.kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--controllers=" + strings.Join(kcmControllers, ","),
		"--use-service-account-credentials=false",
		"--service-account-private-key-file=" + e.files.SAKey,
		"--root-ca-file=" + e.files.CA,
		"--cluster-signing-cert-file=" + e.files.CA,
		"--cluster-signing-key-file=" + e.files.CAKey,
		"--kube-api-qps=500", "--kube-api-burst=1000",
		"--v=" + strconv.Itoa(o.verbosity),
	}
}

func (e *testEnv) restConfig() *rest.Config {
	return &rest.Config{
		Host:            e.server,
		BearerToken:     e.pki.AdminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: e.pki.CA.CertPEM},
		QPS:             -1, // no client-side limit: the admin identity is exempt from APF too
		UserAgent:       "kubex-testenv",
	}
}

// startAPIServer launches the apiserver child and waits for /readyz.
func (e *testEnv) startAPIServer() error {
	if err := e.apiserver.start(e.died); err != nil {
		return err
	}
	hc := e.httpClient()
	var last string
	err := e.waitFor(120*time.Second, "kube-apiserver /readyz", func(ctx context.Context) (bool, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.server+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+e.pki.AdminToken)
		resp, err := hc.Do(req)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		last = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		return fmt.Errorf("%w (last answer: %s; log: %s)", err, last, e.apiserver.logPath)
	}
	return nil
}

func (e *testEnv) httpClient() *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(e.pki.CA.CertPEM)
	return &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, Proxy: nil},
	}
}

// waitFor polls cond every 200ms until it holds, a component dies, or the timeout passes.
func (e *testEnv) waitFor(timeout time.Duration, what string, cond func(context.Context) (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		ok, err := cond(ctx)
		cancel()
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("timed out after %s waiting for %s: %w", timeout, what, err)
			}
			return fmt.Errorf("timed out after %s waiting for %s", timeout, what)
		}
		select {
		case derr := <-e.died:
			return fmt.Errorf("while waiting for %s: %w", what, derr)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// bootstrapRBAC gives the unprivileged user "edit" in its own namespace and nothing else.
func bootstrapRBAC(c kubernetes.Interface) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: unprivNS}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", unprivNS, err)
	}
	_, err = c.RbacV1().RoleBindings(unprivNS).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: unprivUser + "-edit", Namespace: unprivNS},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "edit"},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: unprivUser}},
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("bind %s to edit: %w", unprivUser, err)
	}
	return nil
}

// wait blocks until a signal, stdin EOF or a component failure, then shuts down.
func (e *testEnv) wait(o upOptions) error {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	stdinClosed := make(chan struct{})
	if watchStdin(o.stdinWatch) {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			close(stdinClosed)
		}()
	}
	var result error
	select {
	case s := <-sigs:
		e.logger.Printf("%v: stopping", s)
	case <-stdinClosed:
		e.logger.Printf("stdin closed: stopping")
	case err := <-e.died:
		result = err
		e.logger.Printf("stopping: %v", err)
	}
	signal.Stop(sigs)
	e.shutdown()
	return result
}

func watchStdin(mode string) bool {
	switch mode {
	case "true":
		return true
	case "false":
		return false
	}
	fi, err := os.Stdin.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&os.ModeNamedPipe != 0 || term.IsTerminal(int(os.Stdin.Fd()))
}

// shutdown stops everything in reverse order of start; each step is bounded in time.
func (e *testEnv) shutdown() {
	if e.control != nil {
		_ = e.control.Close()
	}
	if e.simCancel != nil {
		e.simCancel()
	}
	for i := len(e.others) - 1; i >= 0; i-- {
		e.others[i].stop(syscall.SIGTERM, 10*time.Second)
	}
	if e.sim != nil {
		e.sim.Stop()
	}
	if e.apiserver != nil {
		e.apiserver.stop(syscall.SIGTERM, 30*time.Second)
	}
	if e.etcd != nil {
		e.etcd.Close()
	}
	if e.ownDir && !e.keep && e.dir != "" {
		if err := os.RemoveAll(e.dir); err != nil {
			e.logger.Printf("remove %s: %v", e.dir, err)
		}
	} else if e.dir != "" {
		e.logger.Printf("run directory kept: %s", e.dir)
	}
}

// makeDir creates the run directory. A default one is removed at exit; stale default
// directories of dead testenv processes are removed first.
func (e *testEnv) makeDir(dir string) error {
	if dir == "" {
		parent := os.TempDir()
		if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
			parent = "/dev/shm"
		}
		removeStaleDirs(parent)
		dir = filepath.Join(parent, fmt.Sprintf("testenv-%d", os.Getpid()))
		e.ownDir = true
		_ = os.RemoveAll(dir)
	} else if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("--dir %s is not empty", dir)
	}
	e.dir, _ = filepath.Abs(dir)
	e.logDir = filepath.Join(e.dir, "logs")
	if err := os.MkdirAll(e.logDir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(e.dir, "pid"), []byte(strconv.Itoa(os.Getpid())), 0o600)
}

func removeStaleDirs(parent string) {
	matches, _ := filepath.Glob(filepath.Join(parent, "testenv-*"))
	for _, m := range matches {
		data, err := os.ReadFile(filepath.Join(m, "pid"))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil || pid <= 0 {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			_ = os.RemoveAll(m)
		}
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
