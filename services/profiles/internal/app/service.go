// Package app holds the profile use cases, each scoped to the calling user.
package app

// Service implements the use cases.
type Service struct{ repo Repository }

// New returns the service over repo.
func New(repo Repository) *Service { return &Service{repo: repo} }
