package devsinks

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
	"os"
	"time"
)

// SelfSigned is a certificate the stack makes for its SMTP sink at every start, and its PEM, which
// notifications trusts through NOTIFICATIONS_SMTP_CA_FILE: the connection is verified as it is in
// production, against a CA the process was told to trust, never with verification turned off.
type SelfSigned struct {
	Certificate tls.Certificate
	PEM         []byte
}

// NewSelfSigned makes an ECDSA P-256 certificate for 127.0.0.1, ::1 and localhost, valid for
// a week (the stack makes a new one at every start). It is its own CA.
func NewSelfSigned() (SelfSigned, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return SelfSigned{}, fmt.Errorf("devsinks: certificate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return SelfSigned{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "Thumela dev SMTP sink", Organization: []string{"Thumela development"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return SelfSigned{}, fmt.Errorf("devsinks: certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return SelfSigned{}, err
	}
	return SelfSigned{
		Certificate: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf},
		PEM:         pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
	}, nil
}

// WritePEM writes the certificate (not its key) where a client can be told to trust it.
func (s SelfSigned) WritePEM(path string) error {
	return os.WriteFile(path, s.PEM, 0o644)
}

// ServerTLS is the TLS configuration the sink serves with.
func (s SelfSigned) ServerTLS() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{s.Certificate}, MinVersion: tls.VersionTLS12}
}

// Pool is a certificate pool of the certificate alone, for a client in a test.
func (s SelfSigned) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(s.Certificate.Leaf)
	return pool
}
