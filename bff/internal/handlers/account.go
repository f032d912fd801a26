package handlers

import (
	"context"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
)

// Account implements thumela.bff.v1.AccountService.
type Account struct {
	*Deps
}

var _ bffv1connect.AccountServiceHandler = (*Account)(nil)

func (a *Account) GetProfile(ctx context.Context, _ *bffv1.GetProfileRequest) (*bffv1.GetProfileResponse, error) {
	res, err := forward(ctx, a.Deps, a.Profiles.GetProfile, &profilesv1.GetProfileRequest{})
	if err != nil {
		return nil, err
	}
	return &bffv1.GetProfileResponse{Profile: profileToBFF(res.GetProfile())}, nil
}

func (a *Account) UpdateProfile(ctx context.Context, req *bffv1.UpdateProfileRequest) (*bffv1.UpdateProfileResponse, error) {
	res, err := forward(ctx, a.Deps, a.Profiles.UpdateProfile, &profilesv1.UpdateProfileRequest{
		FirstName:   req.GetFirstName(),
		LastName:    req.GetLastName(),
		PhoneNumber: req.GetPhoneNumber(),
	})
	if err != nil {
		return nil, err
	}
	return &bffv1.UpdateProfileResponse{Profile: profileToBFF(res.GetProfile())}, nil
}
