// Package events maps payment methods to their proto form, shared by the API (ports) and the
// events the repository writes to the outbox, so both always show a method the same way.
// Nothing here carries card data beyond brand, last four digits and expiry.
package events

import (
	"google.golang.org/protobuf/types/known/timestamppb"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/intconv"
	"github.com/thumela/thumela/services/platform/outbox"
)

// EventChanged is the last token of the PaymentMethodChanged subject.
const EventChanged = "changed"

// PaymentMethod is m as the API carries it.
func PaymentMethod(m domain.PaymentMethod) *paymentmethodsv1.PaymentMethod {
	return &paymentmethodsv1.PaymentMethod{
		Id:          m.ID.String(),
		UserId:      m.UserID.String(),
		Name:        m.Name,
		Type:        paymentmethodsv1.PaymentMethodType_PAYMENT_METHOD_TYPE_CARD,
		Brand:       Brand(m.Brand),
		LastFour:    m.LastFour,
		ExpiryMonth: intconv.Int32(m.Expiry.Month),
		ExpiryYear:  intconv.Int32(m.Expiry.Year),
		IsDefault:   m.IsDefault,
		Token:       m.Token,
		CreatedAt:   timestamppb.New(m.CreatedAt),
		UpdatedAt:   timestamppb.New(m.UpdatedAt),
	}
}

// Brand maps a card brand.
func Brand(b domain.Brand) paymentmethodsv1.CardBrand {
	switch b {
	case domain.BrandVisa:
		return paymentmethodsv1.CardBrand_CARD_BRAND_VISA
	case domain.BrandMastercard:
		return paymentmethodsv1.CardBrand_CARD_BRAND_MASTERCARD
	default:
		return paymentmethodsv1.CardBrand_CARD_BRAND_UNSPECIFIED
	}
}

func change(c domain.Change) paymentmethodsv1.PaymentMethodChange {
	switch c {
	case domain.ChangeAdded:
		return paymentmethodsv1.PaymentMethodChange_PAYMENT_METHOD_CHANGE_ADDED
	case domain.ChangeUpdated:
		return paymentmethodsv1.PaymentMethodChange_PAYMENT_METHOD_CHANGE_UPDATED
	case domain.ChangeDefaultChanged:
		return paymentmethodsv1.PaymentMethodChange_PAYMENT_METHOD_CHANGE_DEFAULT_CHANGED
	case domain.ChangeDeleted:
		return paymentmethodsv1.PaymentMethodChange_PAYMENT_METHOD_CHANGE_DELETED
	default:
		return paymentmethodsv1.PaymentMethodChange_PAYMENT_METHOD_CHANGE_UNSPECIFIED
	}
}

// Changed is the outbox message announcing e on thumela.paymentmethods.<user_id>.changed.
func Changed(e domain.Event) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainPaymentMethods, e.UserID.String(), EventChanged)
	if err != nil {
		return outbox.Message{}, err
	}
	return outbox.Message{
		Subject: subject,
		Payload: &paymentmethodsv1.PaymentMethodChanged{
			UserId:          e.UserID.String(),
			PaymentMethodId: e.PaymentMethodID.String(),
			Change:          change(e.Change),
			OccurredAt:      timestamppb.New(e.At),
		},
	}, nil
}
