package bus

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/nats-io/nkeys"
)

// KeySet is a fresh NKey per identity, made for one run of a test server or of the dev stack:
// the seeds in files of their own (0600) in Dir, the public keys for the server's AuthConf.
// Production keys are made once per environment (cmd/natsauth keys) and kept in Secrets.
type KeySet struct {
	Dir    string
	Public map[string]string // identity name → public key ("U…")
}

// GenerateKeys makes a user NKey for each identity and writes its seed to dir/<name>.nk.
func GenerateKeys(dir string, ids []Identity) (KeySet, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return KeySet{}, err
	}
	ks := KeySet{Dir: dir, Public: map[string]string{}}
	for _, id := range ids {
		kp, err := nkeys.CreateUser()
		if err != nil {
			return KeySet{}, fmt.Errorf("bus: nkey for %s: %w", id.Name, err)
		}
		seed, err := kp.Seed()
		if err != nil {
			return KeySet{}, err
		}
		pub, err := kp.PublicKey()
		if err != nil {
			return KeySet{}, err
		}
		if err := os.WriteFile(ks.SeedFile(id.Name), append(seed, '\n'), 0o600); err != nil {
			return KeySet{}, err
		}
		ks.Public[id.Name] = pub
	}
	return ks, nil
}

// SeedFile is the path of name's seed, for NATS_NKEY_SEED_FILE.
func (k KeySet) SeedFile(name string) string { return filepath.Join(k.Dir, name+".nk") }

// Credentials are name's credentials (no TLS).
func (k KeySet) Credentials(name string) Credentials {
	return Credentials{NKeySeedFile: k.SeedFile(name), Identity: name}
}

// Key returns name's public key, for AuthConf.
func (k KeySet) Key(name string) string { return k.Public[name] }
