package cloudsim

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// Azure clients refuse to send bearer tokens over plain HTTP, so cloudsim
// can serve HTTPS with a certificate authority of its own, generated at
// start and never written anywhere but the file its user asks for.

// certAuthority is a generated CA and the serving certificate it signed.
type certAuthority struct {
	caPEM   []byte
	caCert  *x509.Certificate
	serving tls.Certificate
}

// certValidity covers any test run or demo session.
const certValidity = 7 * 24 * time.Hour

func newCertAuthority() (*certAuthority, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTemplate := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "hcplink cloudsim CA", Organization: []string{"hcplink"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("creating the CA certificate: %w", err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	leafTemplate := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTemplate, caCert, &leafKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("creating the serving certificate: %w", err)
	}
	return &certAuthority{
		caPEM:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		caCert:  caCert,
		serving: tls.Certificate{Certificate: [][]byte{leafDER, caDER}, PrivateKey: leafKey},
	}, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return n
}

// CACertPEM is the PEM of the CA that signed the serving certificate (nil
// when the server is plain HTTP). Give it to clients: REQUESTS_CA_BUNDLE
// for az, NODE_EXTRA_CA_CERTS for Node, a cert pool for Go.
func (s *Server) CACertPEM() []byte {
	if s.ca == nil {
		return nil
	}
	return s.ca.caPEM
}

// CertPool is a pool holding only cloudsim's CA, for Go clients.
func (s *Server) CertPool() *x509.CertPool {
	pool := x509.NewCertPool()
	if s.ca != nil {
		pool.AddCert(s.ca.caCert)
	}
	return pool
}
