package handlers

import (
	"strings"
	"testing"
	"unicode"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// enumOf is what the generated enum types have in common.
type enumOf interface {
	~int32
	Descriptor() protoreflect.EnumDescriptor
}

// checkPairs proves that pairs lists every value of both enums exactly once, each beside the
// value of the same meaning (the same name once the enum's own prefix is cut), and that both
// directions give back what they were given.
func checkPairs[S, B enumOf](t *testing.T, pairs enumPairs[S, B]) {
	t.Helper()
	var s S
	var b B
	svcDesc, bffDesc := s.Descriptor(), b.Descriptor()
	t.Run(string(svcDesc.FullName()), func(t *testing.T) {
		if got, want := len(pairs), svcDesc.Values().Len(); got != want {
			t.Errorf("%d pairs; %s has %d values", got, svcDesc.FullName(), want)
		}
		if got, want := len(pairs), bffDesc.Values().Len(); got != want {
			t.Errorf("%d pairs; %s has %d values", got, bffDesc.FullName(), want)
		}
		seenSvc, seenBFF := map[S]bool{}, map[B]bool{}
		for _, p := range pairs {
			sv := svcDesc.Values().ByNumber(protoreflect.EnumNumber(p.svc))
			bv := bffDesc.Values().ByNumber(protoreflect.EnumNumber(p.bff))
			if sv == nil || bv == nil {
				t.Errorf("pair (%d, %d) is not a value of both enums", p.svc, p.bff)
				continue
			}
			if seenSvc[p.svc] || seenBFF[p.bff] {
				t.Errorf("%s or %s is listed twice", sv.Name(), bv.Name())
			}
			seenSvc[p.svc], seenBFF[p.bff] = true, true
			if a, z := shortName(svcDesc, sv), shortName(bffDesc, bv); a != z {
				t.Errorf("%s is paired with %s", sv.Name(), bv.Name())
			}
			if pairs.toBFF(p.svc) != p.bff || pairs.toService(p.bff) != p.svc {
				t.Errorf("%s does not round-trip", sv.Name())
			}
		}
		// A value neither side knows (a newer peer's) reads as UNSPECIFIED, never as a neighbour.
		if got := pairs.toBFF(S(1 << 20)); got != 0 {
			t.Errorf("an unknown service value maps to %d", got)
		}
		if got := pairs.toService(B(1 << 20)); got != 0 {
			t.Errorf("an unknown BFF value maps to %d", got)
		}
	})
}

// shortName is a value's name without its enum's prefix: BANK_ABSA of Bank is ABSA,
// SMS_DELIVERY_STATUS_SENT of SmsDeliveryStatus is SENT.
func shortName(e protoreflect.EnumDescriptor, v protoreflect.EnumValueDescriptor) string {
	var prefix strings.Builder
	for i, r := range string(e.Name()) {
		if i > 0 && unicode.IsUpper(r) {
			prefix.WriteByte('_')
		}
		prefix.WriteRune(unicode.ToUpper(r))
	}
	return strings.TrimPrefix(string(v.Name()), prefix.String()+"_")
}

func TestEveryEnumValueIsMapped(t *testing.T) {
	t.Parallel()
	checkPairs(t, banks)
	checkPairs(t, paymentMethodTypes)
	checkPairs(t, cardBrands)
	checkPairs(t, transferStatuses)
	checkPairs(t, collectionStatuses)
	checkPairs(t, refundStatuses)
	checkPairs(t, limitKinds)
	checkPairs(t, scheduleFrequencies)
	checkPairs(t, scheduleStates)
	checkPairs(t, creditMovementKinds)
	checkPairs(t, smsDeliveryStatuses)
	checkPairs(t, supportMessageKinds)
	checkPairs(t, codePurposes)
	checkPairs(t, stepUpPurposes)
}
