package handlers

import (
	"context"
	"errors"
	"strings"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"

	"github.com/thumela/thumela/bff/internal/rpcerr"
	"github.com/thumela/thumela/bff/internal/session"
)

// Support implements thumela.bff.v1.SupportService: the Help Center's Contact Us, /contact and
// /feedback, handed to the notifications service, which keeps the support inbox, answers the
// ticket and e-mails the support address. The rules (required fields, lengths, the limit per
// client address) are the service's; the BFF adds who is writing and from where.
type Support struct {
	*Deps
}

var _ bffv1connect.SupportServiceHandler = (*Support)(nil)

func (s *Support) SubmitSupportMessage(ctx context.Context, req *bffv1.SubmitSupportMessageRequest) (*bffv1.SubmitSupportMessageResponse, error) {
	info := callInfo(ctx)
	in := &notificationsv1.SubmitSupportMessageRequest{
		// The enums share their numbers.
		Kind:    supportMessageKinds.toService(req.GetKind()),
		Name:    strings.TrimSpace(req.GetName()),
		Email:   strings.TrimSpace(req.GetEmail()),
		Subject: req.GetSubject(),
		Message: req.GetMessage(),
		Details: req.GetDetails(),
		// Signed in or not, the limit counts messages per client address.
		ClientAddress: s.ClientAddr.Of(info.Peer().Addr, info.RequestHeader()),
	}
	g, err := s.Tokens.Grant(ctx, s.sessionToken(ctx))
	switch {
	case err == nil:
		// A signed-in sender writes as themself (the service links the message to the user
		// named by the token); what the form leaves out comes from the account.
		ctx = withBearer(ctx, g.AccessToken)
		if in.Email == "" {
			in.Email = g.Email
		}
		if in.Name == "" {
			in.Name = s.accountName(ctx)
		}
	case errors.Is(err, session.ErrNoSession):
		// A visitor (or a session that has ended): the call carries the BFF's service token.
	default:
		// Identity could not say who this is: sending the message as a visitor's would lose
		// the account's e-mail, so the sender is asked to try again.
		return nil, rpcerr.FromService(ctx, s.Logger, err)
	}
	res, err := s.Notifications.SubmitSupportMessage(ctx, in)
	if err != nil {
		// ResourceExhausted keeps its google.rpc.RetryInfo, InvalidArgument its field violations.
		return nil, rpcerr.FromService(ctx, s.Logger, err)
	}
	return &bffv1.SubmitSupportMessageResponse{Ticket: res.GetTicket()}, nil
}

// accountName is the signed-in user's name from their profile (the user of the access token
// ctx carries), "" when it cannot be read (the message still goes, with the account's e-mail).
func (s *Support) accountName(ctx context.Context) string {
	res, err := s.Profiles.GetProfile(ctx, &profilesv1.GetProfileRequest{})
	if err != nil {
		s.Logger.WarnContext(ctx, "support message: could not read the sender's profile; sent without a name", "err", err)
		return ""
	}
	p := res.GetProfile()
	return strings.TrimSpace(p.GetFirstName() + " " + p.GetLastName())
}
