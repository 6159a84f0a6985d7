// SPDX-License-Identifier: Apache-2.0
package main

import (
	"encoding/json"
	"os"
	"path/filepath"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Context names in the kubeconfig testenv writes. kubex's tests rely on them.
const (
	contextAdmin     = "admin"      // bearer token, group system:masters
	contextAdminCert = "admin-cert" // client certificate, O=system:masters
	contextUser      = "user"       // bearer token, RBAC "edit" in namespace kubex-user only
)

// writeKubeconfig writes a kubeconfig with one context per identity, CA data embedded,
// atomically (temp file and rename) so that a reader never sees half a file.
func writeKubeconfig(path, server string, p *pki) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["testenv"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: p.CA.CertPEM}
	cfg.AuthInfos[contextAdmin] = &clientcmdapi.AuthInfo{Token: p.AdminToken}
	cfg.AuthInfos[contextAdminCert] = &clientcmdapi.AuthInfo{ClientCertificateData: p.AdminCert.CertPEM, ClientKeyData: p.AdminCert.KeyPEM}
	cfg.AuthInfos[contextUser] = &clientcmdapi.AuthInfo{Token: p.UserToken}
	cfg.Contexts[contextAdmin] = &clientcmdapi.Context{Cluster: "testenv", AuthInfo: contextAdmin, Namespace: "default"}
	cfg.Contexts[contextAdminCert] = &clientcmdapi.Context{Cluster: "testenv", AuthInfo: contextAdminCert, Namespace: "default"}
	cfg.Contexts[contextUser] = &clientcmdapi.Context{Cluster: "testenv", AuthInfo: contextUser, Namespace: unprivNS}
	cfg.CurrentContext = contextAdmin
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, data)
}

// envInfo is env.json: what a harness needs to drive this testenv without parsing flags.
// It holds no secret: tokens and keys stay in the kubeconfig and pki/ (mode 0600).
type envInfo struct {
	KubernetesVersion string   `json:"kubernetesVersion"`
	Server            string   `json:"server"`
	Kubeconfig        string   `json:"kubeconfig"`
	CAFile            string   `json:"caFile"`
	EtcdURL           string   `json:"etcdURL"`
	APIServerPort     int      `json:"apiserverPort"`
	KubeletPort       int      `json:"kubeletPort"`
	ControlSocket     string   `json:"controlSocket"`
	Nodes             []string `json:"nodes"`
	PID               int      `json:"pid"`
	APIServerPID      int      `json:"apiserverPID"`
	Dir               string   `json:"dir"`
}

func writeEnvInfo(path string, info envInfo) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(data, '\n'))
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// clientFor is a clientset for a kubeconfig's context ("" is the current one) without a
// client-side rate limit, as the seed and churn subcommands use it.
func clientFor(kubeconfig, kctx, userAgent string) (kubernetes.Interface, error) {
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: kctx}).ClientConfig()
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.UserAgent = -1, userAgent
	return kubernetes.NewForConfig(cfg)
}
