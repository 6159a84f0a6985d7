// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
)

const podWorkers = 16

// containerRuntime is one simulated container.
type containerRuntime struct {
	name, image, id string
	init            bool
	stdin, tty      bool // from the container's spec
	echoStdin       bool // the main process echoes attached input (AnnotationAttach)
	started         time.Time
	log             *containerLog
	out             *containerOutput // the main process's output: log file and attached clients

	mu       sync.Mutex
	exited   bool
	exitCode int32
	finished time.Time
}

func (c *containerRuntime) exit(code int32) {
	c.mu.Lock()
	if !c.exited {
		c.exited, c.exitCode, c.finished = true, code, time.Now()
	}
	c.mu.Unlock()
	c.out.close()
	c.log.stop()
}

func (c *containerRuntime) state() (exited bool, code int32, finished time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exited, c.exitCode, c.finished
}

// podRuntime is the simulated sandbox of one pod bound to a simulated node.
type podRuntime struct {
	uid        types.UID
	sandboxID  string
	node, ip   string
	ports      map[int32]string // TCP ports the containers declare, with their names
	dir        string
	started    time.Time
	containers []*containerRuntime // init containers first
	cancel     context.CancelFunc
	terminated bool // status already reports the containers as terminated
}

func (p *podRuntime) container(name string) *containerRuntime {
	for _, c := range p.containers {
		if c.name == name {
			return c
		}
	}
	return nil
}

func (p *podRuntime) stop() {
	p.cancel()
	for _, c := range p.containers {
		c.exit(0)
		c.log.close()
	}
	_ = os.RemoveAll(p.dir)
}

// runPods watches pods bound to any node and syncs those on simulated nodes.
func (s *Sim) runPods(ctx context.Context) {
	factory := informers.NewSharedInformerFactoryWithOptions(s.cfg.Client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermNotEqualSelector("spec.nodeName", "").String()
		}))
	informer := factory.Core().V1().Pods()
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			queue.Add(key)
		}
	}
	_, _ = informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	})
	lister := informer.Lister()
	factory.Start(ctx.Done())
	go func() { <-ctx.Done(); queue.ShutDown() }()
	cache.WaitForCacheSync(ctx.Done(), informer.Informer().HasSynced)

	var wg sync.WaitGroup
	for i := 0; i < podWorkers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				key, quit := queue.Get()
				if quit {
					return
				}
				ns, name, _ := cache.SplitMetaNamespaceKey(key)
				pod, err := lister.Pods(ns).Get(name)
				if apierrors.IsNotFound(err) {
					pod, err = nil, nil
				}
				if err == nil {
					err = s.syncPod(ctx, key, pod, func(d time.Duration) { queue.AddAfter(key, d) })
				}
				if err != nil && ctx.Err() == nil {
					if !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
						s.cfg.Logger.Printf("sync pod %s: %v", key, err)
					}
					queue.AddRateLimited(key)
				} else {
					queue.Forget(key)
				}
				queue.Done(key)
			}
		}()
	}
	wg.Wait()
}

// syncPod moves one pod towards what a kubelet would report. pod is nil once deleted.
func (s *Sim) syncPod(ctx context.Context, key string, pod *corev1.Pod, after func(time.Duration)) error {
	s.mu.Lock()
	rt := s.pods[key]
	if rt != nil && (pod == nil || pod.UID != rt.uid) {
		delete(s.pods, key)
		s.ips[rt.node].release(rt.ip)
		s.mu.Unlock()
		rt.stop()
		s.mu.Lock()
		rt = nil
	}
	s.mu.Unlock()
	if pod == nil || !s.ownsNode(pod.Spec.NodeName) {
		return nil
	}
	if pod.DeletionTimestamp != nil {
		return s.finishDeletion(ctx, key, pod, rt)
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		if rt == nil { // finished in an earlier life of the simulator: nothing runs
			return nil
		}
	}
	if rt == nil {
		var err error
		if rt, err = s.startPod(ctx, key, pod, after); err != nil {
			return err
		}
	}
	want := s.podStatus(pod, rt)
	if statusEqual(&pod.Status, want) {
		return nil
	}
	updated := pod.DeepCopy()
	updated.Status = *want
	_, err := s.cfg.Client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	return err
}

// finishDeletion is the kubelet's part of graceful deletion: stop the containers, report
// them terminated, then remove the pod with grace period 0, guarded by its UID.
func (s *Sim) finishDeletion(ctx context.Context, key string, pod *corev1.Pod, rt *podRuntime) error {
	pods := s.cfg.Client.CoreV1().Pods(pod.Namespace)
	if rt != nil && !rt.terminated {
		for _, c := range rt.containers {
			c.exit(0)
		}
		want := s.podStatus(pod, rt)
		updated := pod.DeepCopy()
		updated.Status = *want
		if _, err := pods.UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		rt.terminated = true
	}
	err := pods.Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: ptr.To(int64(0)),
		Preconditions:      &metav1.Preconditions{UID: &pod.UID},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

func (s *Sim) startPod(ctx context.Context, key string, pod *corev1.Pod, after func(time.Duration)) (*podRuntime, error) {
	s.mu.Lock()
	ip, err := s.ips[pod.Spec.NodeName].allocate()
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(s.cfg.Dir, "pods", fmt.Sprintf("%s_%s_%s", pod.Namespace, pod.Name, pod.UID))
	pctx, cancel := context.WithCancel(ctx)
	rt := &podRuntime{
		uid: pod.UID, sandboxID: randomHex(32), node: pod.Spec.NodeName, ip: ip, dir: dir,
		ports: declaredPorts(pod), started: time.Now(), cancel: cancel,
	}
	add := func(c corev1.Container, init bool) error {
		cdir := filepath.Join(dir, c.Name)
		if err := os.MkdirAll(cdir, 0o700); err != nil {
			return err
		}
		l, err := openContainerLog(filepath.Join(cdir, "0.log"))
		if err != nil {
			return err
		}
		rt.containers = append(rt.containers, &containerRuntime{
			name: c.Name, image: c.Image, id: "containerd://" + randomHex(32), init: init,
			stdin: c.Stdin, tty: c.TTY, started: time.Now(), log: l, out: newContainerOutput(l),
		})
		return nil
	}
	for _, c := range pod.Spec.InitContainers {
		if err := add(c, true); err != nil {
			rt.stop()
			return nil, err
		}
	}
	for _, c := range pod.Spec.Containers {
		if err := add(c, false); err != nil {
			rt.stop()
			return nil, err
		}
	}
	// Init containers have run to completion by the time the pod is reported Running.
	for _, c := range rt.containers {
		if c.init {
			c.exit(0)
		}
	}
	if err := s.applyBehaviour(pctx, pod, rt, func() { after(0) }); err != nil {
		rt.stop()
		return nil, err
	}
	s.mu.Lock()
	s.pods[key] = rt
	s.mu.Unlock()
	return rt, nil
}

// applyBehaviour starts what the pod's annotations ask of its containers. Pods that are
// not restarted (restartPolicy Never or OnFailure, as Jobs use) run for one second by
// default and then succeed, so that Jobs complete.
func (s *Sim) applyBehaviour(ctx context.Context, pod *corev1.Pod, rt *podRuntime, changed func()) error {
	ann := pod.Annotations
	if v := ann[AnnotationLogInterval]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("pod %s/%s: annotation %s=%q is not a positive duration", pod.Namespace, pod.Name, AnnotationLogInterval, v)
		}
		for _, c := range rt.containers {
			if !c.init {
				go emitLines(ctx, c.out, d)
			}
		}
	}
	switch v := ann[AnnotationAttach]; v {
	case "":
	case "echo":
		for _, c := range rt.containers {
			c.echoStdin = !c.init && c.stdin
		}
	default:
		return fmt.Errorf("pod %s/%s: annotation %s=%q is not \"echo\"", pod.Namespace, pod.Name, AnnotationAttach, v)
	}
	var exitAfter time.Duration
	if pod.Spec.RestartPolicy == corev1.RestartPolicyNever || pod.Spec.RestartPolicy == corev1.RestartPolicyOnFailure {
		exitAfter = time.Second
	}
	if v := ann[AnnotationExitAfter]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("pod %s/%s: annotation %s=%q is not a duration", pod.Namespace, pod.Name, AnnotationExitAfter, v)
		}
		exitAfter = d
	}
	code := int32(0)
	if v := ann[AnnotationExitCode]; v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return fmt.Errorf("pod %s/%s: annotation %s=%q is not an integer", pod.Namespace, pod.Name, AnnotationExitCode, v)
		}
		code = int32(n)
	}
	if exitAfter > 0 {
		go func() {
			select {
			case <-ctx.Done():
			case <-time.After(exitAfter):
				for _, c := range rt.containers {
					c.exit(code)
				}
				changed()
			}
		}()
	}
	return nil
}

// emitLines appends "line-N" every interval. Lines due are written in batches so that a
// 1ms interval costs one write per few milliseconds, while the rate stays exact on average.
func emitLines(ctx context.Context, out *containerOutput, interval time.Duration) {
	tick := interval
	if tick < 5*time.Millisecond {
		tick = 5 * time.Millisecond
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	start := time.Now()
	n := int64(0)
	var batch []string
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			due := int64(now.Sub(start) / interval)
			batch = batch[:0]
			for ; n < due; n++ {
				batch = append(batch, "line-"+strconv.FormatInt(n, 10))
			}
			if len(batch) > 0 && out.lines("stdout", batch...) != nil {
				return
			}
		}
	}
}

// podStatus is the status a 1.35 kubelet reports for the simulated containers.
func (s *Sim) podStatus(pod *corev1.Pod, rt *podRuntime) *corev1.PodStatus {
	st := pod.Status.DeepCopy()
	gen := pod.Generation
	start := metav1.NewTime(rt.started.Truncate(time.Second))
	st.ObservedGeneration = gen
	st.StartTime = &start
	st.HostIP = "127.0.0.1"
	st.HostIPs = []corev1.HostIP{{IP: "127.0.0.1"}}
	st.PodIP = rt.ip
	st.PodIPs = []corev1.PodIP{{IP: rt.ip}}

	running, failed := 0, false
	st.InitContainerStatuses, st.ContainerStatuses = nil, nil
	for _, c := range rt.containers {
		cs := corev1.ContainerStatus{
			Name: c.name, Image: c.image, ImageID: imageID(c.image), ContainerID: c.id,
			Started: ptr.To(false),
		}
		cstart := metav1.NewTime(c.started.Truncate(time.Second))
		if exited, code, fin := c.state(); exited {
			reason := "Completed"
			if code != 0 {
				reason, failed = "Error", true
			}
			cs.State.Terminated = &corev1.ContainerStateTerminated{
				ExitCode: code, Reason: reason, StartedAt: cstart,
				FinishedAt: metav1.NewTime(fin.Truncate(time.Second)), ContainerID: c.id,
			}
		} else {
			running++
			cs.Ready, cs.Started = true, ptr.To(true)
			cs.State.Running = &corev1.ContainerStateRunning{StartedAt: cstart}
		}
		if c.init {
			st.InitContainerStatuses = append(st.InitContainerStatuses, cs)
		} else {
			st.ContainerStatuses = append(st.ContainerStatuses, cs)
		}
	}
	mains := len(st.ContainerStatuses)
	switch {
	case running == mains && mains > 0:
		st.Phase = corev1.PodRunning
	case running == 0 && failed:
		st.Phase = corev1.PodFailed
	case running == 0:
		st.Phase = corev1.PodSucceeded
	default:
		st.Phase = corev1.PodRunning
	}
	ready := st.Phase == corev1.PodRunning && running == mains
	setCondition(st, corev1.PodReadyToStartContainers, st.Phase == corev1.PodRunning, "", gen, start)
	setCondition(st, corev1.PodInitialized, true, "", gen, start)
	notReady := ""
	if !ready {
		notReady = "PodCompleted"
	}
	setCondition(st, corev1.ContainersReady, ready, notReady, gen, start)
	setCondition(st, corev1.PodReady, ready, notReady, gen, start)
	return st
}

func setCondition(st *corev1.PodStatus, t corev1.PodConditionType, ok bool, reason string, gen int64, at metav1.Time) {
	status := corev1.ConditionFalse
	if ok {
		status = corev1.ConditionTrue
		reason = ""
	}
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if c.Type == t {
			if c.Status != status {
				c.LastTransitionTime = metav1.Now()
			}
			c.Status, c.Reason, c.ObservedGeneration = status, reason, gen
			return
		}
	}
	st.Conditions = append(st.Conditions, corev1.PodCondition{
		Type: t, Status: status, Reason: reason, ObservedGeneration: gen, LastTransitionTime: at,
	})
}

// statusEqual compares the fields the simulator owns, so that an unchanged pod causes no write.
func statusEqual(a, b *corev1.PodStatus) bool {
	if a.Phase != b.Phase || a.PodIP != b.PodIP || a.ObservedGeneration != b.ObservedGeneration ||
		len(a.ContainerStatuses) != len(b.ContainerStatuses) || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.ContainerStatuses {
		x, y := a.ContainerStatuses[i], b.ContainerStatuses[i]
		if x.ContainerID != y.ContainerID || x.Ready != y.Ready ||
			(x.State.Running == nil) != (y.State.Running == nil) || (x.State.Terminated == nil) != (y.State.Terminated == nil) {
			return false
		}
	}
	for i := range a.Conditions {
		if a.Conditions[i].Type != b.Conditions[i].Type || a.Conditions[i].Status != b.Conditions[i].Status ||
			a.Conditions[i].ObservedGeneration != b.Conditions[i].ObservedGeneration {
			return false
		}
	}
	return true
}

// declaredPorts are the TCP ports the pod's containers (init containers too, for sidecars)
// declare, with their names.
func declaredPorts(pod *corev1.Pod) map[int32]string {
	ports := map[int32]string{}
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range list {
			for _, p := range c.Ports {
				if p.Protocol == "" || p.Protocol == corev1.ProtocolTCP {
					ports[p.ContainerPort] = p.Name
				}
			}
		}
	}
	return ports
}

// imageID mimics containerd's repo digest for an image reference.
func imageID(image string) string {
	sum := sha256.Sum256([]byte(image))
	repo := image
	for i := len(image) - 1; i >= 0; i-- {
		if image[i] == ':' {
			repo = image[:i]
			break
		}
		if image[i] == '/' {
			break
		}
	}
	return repo + "@sha256:" + hex.EncodeToString(sum[:])
}

// MaxNodes is how many nodes' /22s fit in 10.244.0.0/16.
const MaxNodes = 64

// PodIPsPerNode is how many pod IPs a node's /22 hands out (1,024 less the network address,
// the gateway and the broadcast address): --max-pods may not exceed it.
const PodIPsPerNode = ipPoolSize - 3

const ipPoolSize = 1024

// ipPool hands out pod IPs from a node's /22. They are data only: nothing ever dials them.
type ipPool struct {
	cidr string
	base [3]byte
	used map[int]bool
	next int
}

func newIPPool(node int) *ipPool {
	third := byte((node * 4) % 256)
	return &ipPool{cidr: fmt.Sprintf("10.244.%d.0/22", third), base: [3]byte{10, 244, third}, used: map[int]bool{}, next: 2}
}

func (p *ipPool) allocate() (string, error) {
	for i := 0; i < PodIPsPerNode; i++ {
		n := 2 + (p.next-2+i)%PodIPsPerNode
		if !p.used[n] {
			p.used[n] = true
			p.next = n + 1
			return fmt.Sprintf("%d.%d.%d.%d", p.base[0], p.base[1], int(p.base[2])+n/256, n%256), nil
		}
	}
	return "", fmt.Errorf("pod CIDR %s exhausted", p.cidr)
}

func (p *ipPool) release(ip string) {
	var a, b, c, d int
	if _, err := fmt.Sscanf(ip, "%d.%d.%d.%d", &a, &b, &c, &d); err == nil {
		delete(p.used, (c-int(p.base[2]))*256+d)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func uuid() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6], b[8] = (b[6]&0x0f)|0x40, (b[8]&0x3f)|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
