package handlers

import (
	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
)

// The browser's enums are the BFF's own (thumela.bff.v1), apart from the services' enums of
// the same meaning. Each pair is mapped value by value here rather than cast by number, so that
// a value added to one side and not the other maps to UNSPECIFIED instead of to whatever shares
// its number; enums_test.go fails until every value of both sides is listed.

// enumPairs maps the values of a service's enum (S) to the BFF's (B) and back. The lists are
// a handful of values long, so a scan beats a map.
type enumPairs[S, B ~int32] []struct {
	svc S
	bff B
}

// toBFF is v's BFF value; UNSPECIFIED (0) for a value the BFF does not know.
func (p enumPairs[S, B]) toBFF(v S) B {
	for _, e := range p {
		if e.svc == v {
			return e.bff
		}
	}
	return 0
}

// toService is v's service value; UNSPECIFIED (0) for a value the service does not know (the
// service then refuses the request as invalid).
func (p enumPairs[S, B]) toService(v B) S {
	for _, e := range p {
		if e.bff == v {
			return e.svc
		}
	}
	return 0
}

var banks = enumPairs[feesv1.Bank, bffv1.Bank]{
	{feesv1.Bank_BANK_UNSPECIFIED, bffv1.Bank_BANK_UNSPECIFIED},
	{feesv1.Bank_BANK_STANDARD_BANK, bffv1.Bank_BANK_STANDARD_BANK},
	{feesv1.Bank_BANK_ABSA, bffv1.Bank_BANK_ABSA},
	{feesv1.Bank_BANK_FNB, bffv1.Bank_BANK_FNB},
	{feesv1.Bank_BANK_NEDBANK, bffv1.Bank_BANK_NEDBANK},
	{feesv1.Bank_BANK_CAPITEC, bffv1.Bank_BANK_CAPITEC},
}

var paymentMethodTypes = enumPairs[paymentmethodsv1.PaymentMethodType, bffv1.PaymentMethodType]{
	{paymentmethodsv1.PaymentMethodType_PAYMENT_METHOD_TYPE_UNSPECIFIED, bffv1.PaymentMethodType_PAYMENT_METHOD_TYPE_UNSPECIFIED},
	{paymentmethodsv1.PaymentMethodType_PAYMENT_METHOD_TYPE_CARD, bffv1.PaymentMethodType_PAYMENT_METHOD_TYPE_CARD},
	{paymentmethodsv1.PaymentMethodType_PAYMENT_METHOD_TYPE_BANK_ACCOUNT, bffv1.PaymentMethodType_PAYMENT_METHOD_TYPE_BANK_ACCOUNT},
}

var cardBrands = enumPairs[paymentmethodsv1.CardBrand, bffv1.CardBrand]{
	{paymentmethodsv1.CardBrand_CARD_BRAND_UNSPECIFIED, bffv1.CardBrand_CARD_BRAND_UNSPECIFIED},
	{paymentmethodsv1.CardBrand_CARD_BRAND_VISA, bffv1.CardBrand_CARD_BRAND_VISA},
	{paymentmethodsv1.CardBrand_CARD_BRAND_MASTERCARD, bffv1.CardBrand_CARD_BRAND_MASTERCARD},
}

var transferStatuses = enumPairs[transfersv1.TransferStatus, bffv1.TransferStatus]{
	{transfersv1.TransferStatus_TRANSFER_STATUS_UNSPECIFIED, bffv1.TransferStatus_TRANSFER_STATUS_UNSPECIFIED},
	{transfersv1.TransferStatus_TRANSFER_STATUS_PENDING, bffv1.TransferStatus_TRANSFER_STATUS_PENDING},
	{transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING, bffv1.TransferStatus_TRANSFER_STATUS_PROCESSING},
	{transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED, bffv1.TransferStatus_TRANSFER_STATUS_COMPLETED},
	{transfersv1.TransferStatus_TRANSFER_STATUS_FAILED, bffv1.TransferStatus_TRANSFER_STATUS_FAILED},
}

var collectionStatuses = enumPairs[transfersv1.CollectionStatus, bffv1.CollectionStatus]{
	{transfersv1.CollectionStatus_COLLECTION_STATUS_UNSPECIFIED, bffv1.CollectionStatus_COLLECTION_STATUS_UNSPECIFIED},
	{transfersv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION, bffv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION},
	{transfersv1.CollectionStatus_COLLECTION_STATUS_COLLECTED, bffv1.CollectionStatus_COLLECTION_STATUS_COLLECTED},
	{transfersv1.CollectionStatus_COLLECTION_STATUS_CANCELLED, bffv1.CollectionStatus_COLLECTION_STATUS_CANCELLED},
	{transfersv1.CollectionStatus_COLLECTION_STATUS_EXPIRED, bffv1.CollectionStatus_COLLECTION_STATUS_EXPIRED},
}

var refundStatuses = enumPairs[transfersv1.RefundStatus, bffv1.RefundStatus]{
	{transfersv1.RefundStatus_REFUND_STATUS_UNSPECIFIED, bffv1.RefundStatus_REFUND_STATUS_UNSPECIFIED},
	{transfersv1.RefundStatus_REFUND_STATUS_NONE, bffv1.RefundStatus_REFUND_STATUS_NONE},
	{transfersv1.RefundStatus_REFUND_STATUS_PENDING, bffv1.RefundStatus_REFUND_STATUS_PENDING},
	{transfersv1.RefundStatus_REFUND_STATUS_REFUNDED, bffv1.RefundStatus_REFUND_STATUS_REFUNDED},
}

var limitKinds = enumPairs[transfersv1.LimitKind, bffv1.LimitKind]{
	{transfersv1.LimitKind_LIMIT_KIND_UNSPECIFIED, bffv1.LimitKind_LIMIT_KIND_UNSPECIFIED},
	{transfersv1.LimitKind_LIMIT_KIND_PER_TRANSFER, bffv1.LimitKind_LIMIT_KIND_PER_TRANSFER},
	{transfersv1.LimitKind_LIMIT_KIND_DAILY, bffv1.LimitKind_LIMIT_KIND_DAILY},
	{transfersv1.LimitKind_LIMIT_KIND_MONTHLY, bffv1.LimitKind_LIMIT_KIND_MONTHLY},
	{transfersv1.LimitKind_LIMIT_KIND_YEARLY, bffv1.LimitKind_LIMIT_KIND_YEARLY},
	{transfersv1.LimitKind_LIMIT_KIND_MINIMUM, bffv1.LimitKind_LIMIT_KIND_MINIMUM},
}

var scheduleFrequencies = enumPairs[transfersv1.ScheduleFrequency, bffv1.ScheduleFrequency]{
	{transfersv1.ScheduleFrequency_SCHEDULE_FREQUENCY_UNSPECIFIED, bffv1.ScheduleFrequency_SCHEDULE_FREQUENCY_UNSPECIFIED},
	{transfersv1.ScheduleFrequency_SCHEDULE_FREQUENCY_WEEKLY, bffv1.ScheduleFrequency_SCHEDULE_FREQUENCY_WEEKLY},
	{transfersv1.ScheduleFrequency_SCHEDULE_FREQUENCY_MONTHLY, bffv1.ScheduleFrequency_SCHEDULE_FREQUENCY_MONTHLY},
}

var scheduleStates = enumPairs[transfersv1.ScheduleState, bffv1.ScheduleState]{
	{transfersv1.ScheduleState_SCHEDULE_STATE_UNSPECIFIED, bffv1.ScheduleState_SCHEDULE_STATE_UNSPECIFIED},
	{transfersv1.ScheduleState_SCHEDULE_STATE_ACTIVE, bffv1.ScheduleState_SCHEDULE_STATE_ACTIVE},
	{transfersv1.ScheduleState_SCHEDULE_STATE_PAUSED, bffv1.ScheduleState_SCHEDULE_STATE_PAUSED},
	{transfersv1.ScheduleState_SCHEDULE_STATE_ENDED, bffv1.ScheduleState_SCHEDULE_STATE_ENDED},
}

var creditMovementKinds = enumPairs[transfersv1.CreditMovementKind, bffv1.CreditMovementKind]{
	{transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_UNSPECIFIED, bffv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_UNSPECIFIED},
	{transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_REFERRAL_WELCOME, bffv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_REFERRAL_WELCOME},
	{transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_REFERRAL_REWARD, bffv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_REFERRAL_REWARD},
	{transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_SPENT, bffv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_SPENT},
	{transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_RETURNED, bffv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_RETURNED},
}

// smsDeliveryStatuses: notifications tracks every delivery (SMS and e-mail); the browser sees
// only the voucher SMS's.
var smsDeliveryStatuses = enumPairs[notificationsv1.DeliveryStatus, bffv1.SmsDeliveryStatus]{
	{notificationsv1.DeliveryStatus_DELIVERY_STATUS_UNSPECIFIED, bffv1.SmsDeliveryStatus_SMS_DELIVERY_STATUS_UNSPECIFIED},
	{notificationsv1.DeliveryStatus_DELIVERY_STATUS_QUEUED, bffv1.SmsDeliveryStatus_SMS_DELIVERY_STATUS_QUEUED},
	{notificationsv1.DeliveryStatus_DELIVERY_STATUS_SENT, bffv1.SmsDeliveryStatus_SMS_DELIVERY_STATUS_SENT},
	{notificationsv1.DeliveryStatus_DELIVERY_STATUS_DELIVERED, bffv1.SmsDeliveryStatus_SMS_DELIVERY_STATUS_DELIVERED},
	{notificationsv1.DeliveryStatus_DELIVERY_STATUS_FAILED, bffv1.SmsDeliveryStatus_SMS_DELIVERY_STATUS_FAILED},
}

var supportMessageKinds = enumPairs[notificationsv1.SupportMessageKind, bffv1.SupportMessageKind]{
	{notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_UNSPECIFIED, bffv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_UNSPECIFIED},
	{notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_QUESTION, bffv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_QUESTION},
	{notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_ISSUE, bffv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_ISSUE},
	{notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_FEEDBACK, bffv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_FEEDBACK},
	{notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_CONTACT, bffv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_CONTACT},
}

var codePurposes = enumPairs[identityv1.CodePurpose, bffv1.CodePurpose]{
	{identityv1.CodePurpose_CODE_PURPOSE_UNSPECIFIED, bffv1.CodePurpose_CODE_PURPOSE_UNSPECIFIED},
	{identityv1.CodePurpose_CODE_PURPOSE_EMAIL_VERIFICATION, bffv1.CodePurpose_CODE_PURPOSE_EMAIL_VERIFICATION},
	{identityv1.CodePurpose_CODE_PURPOSE_PASSWORD_RESET, bffv1.CodePurpose_CODE_PURPOSE_PASSWORD_RESET},
}
