// SPDX-License-Identifier: Apache-2.0
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// keyPair is a certificate with its private key, both PEM encoded.
type keyPair struct {
	CertPEM []byte
	KeyPEM  []byte
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
}

// pki holds every credential a testenv run hands out. All of it is generated fresh per run,
// so nothing secret is ever committed or reused between runs.
type pki struct {
	CA            keyPair
	APIServer     keyPair // serving certificate of kube-apiserver
	Kubelet       keyPair // serving certificate of the simulated kubelets
	KubeletClient keyPair // client certificate kube-apiserver presents to kubelets
	AdminCert     keyPair // client certificate of the admin identity (system:masters)
	SAKeyPEM      []byte  // service-account token signing key
	SAPubPEM      []byte
	AdminToken    string
	UserToken     string
}

const (
	adminTokenUser = "kubex-admin"
	adminCertUser  = "kubex-admin-cert"
	unprivUser     = "kubex-user"
	unprivNS       = "kubex-user"
)

func newPKI() (*pki, error) {
	p := &pki{}
	var err error
	if p.CA, err = makeCert(nil, certSpec{cn: "kubex-testenv-ca", isCA: true}); err != nil {
		return nil, err
	}
	loopback := []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1"), net.ParseIP("10.0.0.1")}
	if p.APIServer, err = makeCert(&p.CA, certSpec{
		cn:    "kube-apiserver",
		dns:   []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		ips:   loopback,
		usage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}); err != nil {
		return nil, err
	}
	if p.Kubelet, err = makeCert(&p.CA, certSpec{
		cn: "system:node:sim", org: []string{"system:nodes"},
		dns: []string{"localhost"}, ips: loopback[:2],
		usage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}); err != nil {
		return nil, err
	}
	if p.KubeletClient, err = makeCert(&p.CA, certSpec{
		cn: "kube-apiserver-kubelet-client", org: []string{"kubeadm:cluster-admins"},
		usage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err != nil {
		return nil, err
	}
	if p.AdminCert, err = makeCert(&p.CA, certSpec{
		cn: adminCertUser, org: []string{"system:masters"},
		usage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err != nil {
		return nil, err
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalECPrivateKey(saKey)
	if err != nil {
		return nil, err
	}
	p.SAKeyPEM = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	pub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}
	p.SAPubPEM = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})
	if p.AdminToken, err = randomHex(32); err != nil {
		return nil, err
	}
	if p.UserToken, err = randomHex(32); err != nil {
		return nil, err
	}
	return p, nil
}

type certSpec struct {
	cn    string
	org   []string
	dns   []string
	ips   []net.IP
	isCA  bool
	usage []x509.ExtKeyUsage
}

func makeCert(issuer *keyPair, s certSpec) (keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return keyPair{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return keyPair{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: s.cn, Organization: s.org},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(365 * 24 * time.Hour),
		DNSNames:     s.dns,
		IPAddresses:  s.ips,
		ExtKeyUsage:  s.usage,
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	if s.isCA {
		tmpl.IsCA = true
		tmpl.BasicConstraintsValid = true
		tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	}
	parent, signer := tmpl, key
	if issuer != nil {
		parent, signer = issuer.cert, issuer.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		return keyPair{}, fmt.Errorf("create certificate %s: %w", s.cn, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return keyPair{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return keyPair{}, err
	}
	return keyPair{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		cert:    cert,
		key:     key,
	}, nil
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// pkiFiles are the on-disk paths of the material that components read from files.
type pkiFiles struct {
	CA, CAKey                           string
	APIServerCert, APIServerKey         string
	KubeletCert, KubeletKey             string
	KubeletClientCert, KubeletClientKey string
	SAKey, SAPub                        string
	TokenCSV                            string
}

// write stores the material under dir/pki with owner-only permissions.
func (p *pki) write(dir string) (pkiFiles, error) {
	d := filepath.Join(dir, "pki")
	if err := os.MkdirAll(d, 0o700); err != nil {
		return pkiFiles{}, err
	}
	f := pkiFiles{
		CA: filepath.Join(d, "ca.crt"), CAKey: filepath.Join(d, "ca.key"),
		APIServerCert: filepath.Join(d, "apiserver.crt"), APIServerKey: filepath.Join(d, "apiserver.key"),
		KubeletCert: filepath.Join(d, "kubelet.crt"), KubeletKey: filepath.Join(d, "kubelet.key"),
		KubeletClientCert: filepath.Join(d, "apiserver-kubelet-client.crt"), KubeletClientKey: filepath.Join(d, "apiserver-kubelet-client.key"),
		SAKey: filepath.Join(d, "sa.key"), SAPub: filepath.Join(d, "sa.pub"),
		TokenCSV: filepath.Join(d, "tokens.csv"),
	}
	csv := fmt.Sprintf("%s,%s,%s,\"system:masters\"\n%s,%s,%s\n",
		p.AdminToken, adminTokenUser, "uid-kubex-admin", p.UserToken, unprivUser, "uid-kubex-user")
	files := map[string][]byte{
		f.CA: p.CA.CertPEM, f.CAKey: p.CA.KeyPEM,
		f.APIServerCert: p.APIServer.CertPEM, f.APIServerKey: p.APIServer.KeyPEM,
		f.KubeletCert: p.Kubelet.CertPEM, f.KubeletKey: p.Kubelet.KeyPEM,
		f.KubeletClientCert: p.KubeletClient.CertPEM, f.KubeletClientKey: p.KubeletClient.KeyPEM,
		f.SAKey: p.SAKeyPEM, f.SAPub: p.SAPubPEM,
		f.TokenCSV: []byte(csv),
	}
	for path, data := range files {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return pkiFiles{}, err
		}
	}
	return f, nil
}
