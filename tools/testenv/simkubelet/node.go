// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const (
	leaseDuration   = 40 * time.Second
	leaseRenew      = 10 * time.Second
	statusHeartbeat = time.Minute
	nodeLeaseNS     = "kube-node-lease"
)

func (s *Sim) nodeObject(i int) *corev1.Node {
	name := s.nodeName(i)
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("32"),
		corev1.ResourceMemory:           resource.MustParse("128Gi"),
		corev1.ResourceEphemeralStorage: resource.MustParse("500Gi"),
		corev1.ResourcePods:             *resource.NewQuantity(int64(s.cfg.MaxPods), resource.DecimalSI),
		"hugepages-2Mi":                 resource.MustParse("0"),
	}
	allocatable := capacity.DeepCopy()
	allocatable[corev1.ResourceCPU] = resource.MustParse("31800m")
	allocatable[corev1.ResourceMemory] = resource.MustParse("127Gi")
	now := metav1.Now()
	cond := func(t corev1.NodeConditionType, st corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: st, Reason: reason, Message: msg, LastHeartbeatTime: now, LastTransitionTime: now}
	}
	pool := s.ips[name]
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			// No topology.kubernetes.io zone/region labels: the PodTopologyLabels admission
			// would copy them onto every pod, and benchmark pods must carry no labels.
			Labels: map[string]string{
				"kubernetes.io/hostname":           name,
				"kubernetes.io/os":                 "linux",
				"kubernetes.io/arch":               "amd64",
				"beta.kubernetes.io/os":            "linux",
				"beta.kubernetes.io/arch":          "amd64",
				"node.kubernetes.io/instance-type": "sim.large",
				"type":                             "simulated",
			},
			Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0"},
		},
		Spec: corev1.NodeSpec{PodCIDR: pool.cidr, PodCIDRs: []string{pool.cidr}},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: allocatable,
			Phase:       corev1.NodeRunning,
			Conditions: []corev1.NodeCondition{
				cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
				cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
				cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
				cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
			},
			// The apiserver dials the kubelet at the first address of the types named in
			// --kubelet-preferred-address-types (InternalIP first): loopback only.
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: "127.0.0.1"},
				{Type: corev1.NodeHostName, Address: name},
			},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(s.Port())}},
			NodeInfo: corev1.NodeSystemInfo{
				MachineID:               randomHex(16),
				SystemUUID:              uuid(),
				BootID:                  uuid(),
				KernelVersion:           "6.1.0-sim-amd64",
				OSImage:                 "Debian GNU/Linux 12 (bookworm)",
				ContainerRuntimeVersion: "containerd://2.1.4",
				KubeletVersion:          s.cfg.Version,
				OperatingSystem:         "linux",
				Architecture:            "amd64",
			},
		},
	}
}

// registerNode creates the Node with its status (the node strategy accepts status on
// create), or refreshes the status of a Node left from an earlier run on the same data.
func (s *Sim) registerNode(ctx context.Context, i int) error {
	want := s.nodeObject(i)
	nodes := s.cfg.Client.CoreV1().Nodes()
	_, err := nodes.Create(ctx, want, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		var cur *corev1.Node
		if cur, err = nodes.Get(ctx, want.Name, metav1.GetOptions{}); err == nil {
			cur.Status = want.Status
			_, err = nodes.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		}
	}
	if err != nil {
		return fmt.Errorf("register node %s: %w", want.Name, err)
	}
	return s.renewLease(ctx, want.Name)
}

// heartbeat renews the node Lease every 10s and the Ready condition every minute, as a
// kubelet does; without it the node-lifecycle controller would taint the node and evict.
func (s *Sim) heartbeat(ctx context.Context, i int) {
	name := s.nodeName(i)
	lease := time.NewTicker(leaseRenew)
	status := time.NewTicker(statusHeartbeat)
	defer lease.Stop()
	defer status.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-lease.C:
			if err := s.renewLease(ctx, name); err != nil && ctx.Err() == nil {
				s.cfg.Logger.Printf("renew lease of %s: %v", name, err)
			}
		case <-status.C:
			if err := s.touchNodeStatus(ctx, name); err != nil && ctx.Err() == nil {
				s.cfg.Logger.Printf("update status of %s: %v", name, err)
			}
		}
	}
}

func (s *Sim) renewLease(ctx context.Context, name string) error {
	leases := s.cfg.Client.CoordinationV1().Leases(nodeLeaseNS)
	now := metav1.NewMicroTime(time.Now())
	cur, err := leases.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		node, err := s.cfg.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		_, err = leases.Create(ctx, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: nodeLeaseNS,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: name, UID: node.UID}},
			},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity:       ptr.To(name),
				LeaseDurationSeconds: ptr.To(int32(leaseDuration / time.Second)),
				RenewTime:            &now,
			},
		}, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	cur.Spec.RenewTime = &now
	_, err = leases.Update(ctx, cur, metav1.UpdateOptions{})
	return err
}

func (s *Sim) touchNodeStatus(ctx context.Context, name string) error {
	nodes := s.cfg.Client.CoreV1().Nodes()
	cur, err := nodes.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	now := metav1.Now()
	for i := range cur.Status.Conditions {
		cur.Status.Conditions[i].LastHeartbeatTime = now
	}
	_, err = nodes.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
	return err
}
