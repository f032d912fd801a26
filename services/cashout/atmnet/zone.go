package atmnet

import (
	"crypto/aes"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
)

// ErrAcquirerNotBound: a request names in DE 32 an acquiring institution its zone keys (DE 53)
// were not issued to: one link claiming another bank's ATMs.
var ErrAcquirerNotBound = errors.New("atmnet: DE 32 names an acquirer the zone keys were not issued to")

// Zone is the key set one link shares with the gateway, named by DE 53: the zone PIN key DE 52
// is enciphered under, the zone MAC key of every message both ways, and the acquirers (DE 32)
// both were issued to (the PIN key's).
type Zone struct {
	PIN ZoneKey
	MAC MACKey
}

// ID is the zone keys' id, as DE 53 carries it.
func (z Zone) ID() string { return z.PIN.id }

// Acquirers are the DE 32 ids the zone keys were issued to.
func (z Zone) Acquirers() []string { return z.PIN.Acquirers() }

// CheckAcquirer is nil when a request under these keys may name acquirerID in DE 32, and
// ErrAcquirerNotBound otherwise.
func (z Zone) CheckAcquirer(acquirerID string) error {
	if slices.Contains(z.PIN.acquirers, acquirerID) {
		return nil
	}
	return ErrAcquirerNotBound
}

// Zones are the gateway's key sets, the current one first (a rotation keeps the old set after
// the new one until the switch has moved).
type Zones struct {
	zones []Zone
}

// NewZones pairs each zone PIN key with the MAC key of the same id. Every PIN key needs one,
// every MAC key needs a PIN key, and no key may serve both (one key, one use). Errors wrap
// ErrInvalidMACKey and name ids, never keys.
func NewZones(pin *ZoneKeys, mac []MACKey) (*Zones, error) {
	if pin == nil || len(pin.keys) == 0 {
		return nil, fmt.Errorf("%w: no zone PIN key", ErrInvalidKey)
	}
	byID := make(map[string]MACKey, len(mac))
	for _, k := range mac {
		byID[k.id] = k
	}
	z := &Zones{zones: make([]Zone, 0, len(pin.keys))}
	var errs []error
	for _, p := range pin.keys {
		m, ok := byID[p.id]
		if !ok {
			errs = append(errs, fmt.Errorf("%w: no MAC key for zone keys %s", ErrInvalidMACKey, p.id))
			continue
		}
		delete(byID, p.id)
		var check [aes.BlockSize]byte
		p.block.Encrypt(check[:], make([]byte, len(check)))
		if subtle.ConstantTimeCompare(check[:], m.check[:]) == 1 {
			errs = append(errs, fmt.Errorf("%w: zone keys %s use one key to encipher PINs and to MAC: give each its own", ErrInvalidMACKey, p.id))
			continue
		}
		z.zones = append(z.zones, Zone{PIN: p, MAC: m})
	}
	for _, k := range mac {
		if _, left := byID[k.id]; left {
			errs = append(errs, fmt.Errorf("%w: MAC key %s has no zone PIN key of that id", ErrInvalidMACKey, k.id))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return z, nil
}

// Current is the key set a client uses for new messages.
func (z *Zones) Current() Zone { return z.zones[0] }

// Zone is the key set named id (DE 53).
func (z *Zones) Zone(id string) (Zone, bool) {
	for _, k := range z.zones {
		if k.ID() == id {
			return k, true
		}
	}
	return Zone{}, false
}

// IDs lists the key sets' ids, current first (for the start-up log line).
func (z *Zones) IDs() []string {
	ids := make([]string, len(z.zones))
	for i, k := range z.zones {
		ids[i] = k.ID()
	}
	return ids
}

// Bindings maps each key set's id to the acquirer ids it was issued to (for the start-up log
// line: ids only).
func (z *Zones) Bindings() map[string][]string {
	b := make(map[string][]string, len(z.zones))
	for _, k := range z.zones {
		b[k.ID()] = k.Acquirers()
	}
	return b
}
